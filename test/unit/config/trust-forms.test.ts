import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, loadHooks, type LoadOptions } from '../../../src/config/index.js';
import { planTrust, recordTrust } from '../../../src/config/trust-workspace.js';
import type { CommandHook } from '../../../src/registry/hook.js';

// Which command forms `cosh-hooks trust` accepts for a project hook (docs/configuration.md, trust).
// Each hostile form below ran changed code as a trusted hook before trust became an allow-list.

let root: string;
let ws: string;
let home: string;

beforeEach(() => {
  // A space in the workspace path: an unquoted variable would split there.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-trust-forms-')));
  ws = join(root, 'my repo');
  home = join(root, 'home');
  mkdirSync(join(ws, '.copilot-shell'), { recursive: true });
  writeFileSync(join(root, 'system.toml'), '');
  for (const [file, text] of [
    ['guard.sh', '#!/bin/sh\necho "{}"\n'],
    ['guard.py', '#!/usr/bin/python3 -I\nprint("{}")\n'],
    ['guard.mjs', '#!/usr/bin/env node\nconsole.log("{}")\n'],
    ['guard.js', 'console.log("{}")\n'],
    ['env.sh', 'echo loaded\n'],
    ['loader.mjs', 'console.log("loaded")\n'],
  ] as const)
    writeFileSync(join(ws, '.copilot-shell', file), text);
  chmodSync(join(ws, '.copilot-shell', 'guard.sh'), 0o755);
  chmodSync(join(ws, '.copilot-shell', 'guard.py'), 0o755);
  writeFileSync(join(ws, 'guard.py'), 'print("{}")\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const options = (): LoadOptions => ({
  home,
  workspace: ws,
  systemConfigPath: join(root, 'system.toml'),
  systemExtensionsDir: null,
});
const configure = (command: string, ...more: string[]) =>
  writeFileSync(
    join(ws, '.copilot-shell', 'config.toml'),
    ['[[hooks.PreToolUse]]', 'name = "guard"', `command = ${JSON.stringify(command)}`, ...more, ''].join(
      '\n',
    ),
  );
const trustAndLoad = () => {
  recordTrust(planTrust(options()));
  const result = loadHooks(options());
  if (!result.ok) throw new Error(result.errors.map(formatProblem).join('\n'));
  return result.registry.PreToolUse[0] as CommandHook;
};
const S = '"$COSH_WORKSPACE_PATH/.copilot-shell';

describe('trust refuses every command form whose files it cannot name', () => {
  it.each([
    // builtins and wrappers that run a file
    [`exec ${S}/guard.sh"`, 'exec runs another program'],
    [`. ${S}/guard.sh"`, '. runs another program'],
    [`source ${S}/guard.sh"`, 'source runs another program'],
    [`command ${S}/guard.sh"`, 'command runs another program'],
    [`builtin . ${S}/guard.sh"`, 'builtin runs another program'],
    [`eval ${S}/guard.sh"`, 'eval runs another program'],
    [`env ${S}/guard.sh"`, 'env runs another program'],
    [`timeout 5 ${S}/guard.sh"`, 'timeout runs another program'],
    [`nice ${S}/guard.sh"`, 'nice runs another program'],
    [`nohup ${S}/guard.sh"`, 'nohup runs another program'],
    [`xargs ${S}/guard.sh"`, 'xargs runs another program'],
    [`{ ${S}/guard.sh"; }`, 'a group or subshell ({)'],
    [`if true; then ${S}/guard.sh"; fi`, 'an operator (;)'],
    [`(${S}/guard.sh")`, 'a group or subshell'],
    [`sh ${S}/guard.sh" | cat`, 'an operator (|)'],
    [`sh ${S}/guard.sh" && true`, 'an operator (&)'],
    [`sh ${S}/guard.sh" > /dev/null`, 'a redirection'],
    [`sh < ${S}/guard.sh"`, 'a redirection'],
    [`sh ${S}/guard.sh"\nsh ${S}/env.sh"`, 'a line break'],
    [`sh ${S}/guard.sh" # ; x`, 'a comment'],
    // files a command loads
    [`BASH_ENV=${S}/env.sh" bash ${S}/guard.sh"`, 'an inline assignment'],
    [`node --import=${S}/loader.mjs" ${S}/guard.mjs"`, 'a flag trust does not accept'],
    [`node -r ${S}/loader.mjs" ${S}/guard.mjs"`, 'a flag trust does not accept'],
    ['python3 -m guard', 'a flag trust does not accept'],
    [`python3 -c 'import guard'`, 'a flag trust does not accept'],
    [`python3 -W error::guard.X ${S}/guard.py"`, 'a flag trust does not accept'],
    [`bash --rcfile ${S}/env.sh" ${S}/guard.sh"`, 'a flag trust does not accept'],
    [`bash -c 'sh "$0"' ${S}/guard.sh"`, 'a flag trust does not accept'],
    [`perl -Mguard ${S}/guard.py"`, 'a flag trust does not accept'],
    [`ruby -r${S}/env.sh" ${S}/guard.py"`, 'a flag trust does not accept'],
    ['python3', 'with no script'],
    [`node ${S}/guard.js"`, 'a .mjs or .cjs file'],
    // expansions that split, glob or name something else
    ['sh $COSH_WORKSPACE_PATH/.copilot-shell/guard.sh', 'an unquoted expansion'],
    ['sh ${COSH_WORKSPACE_PATH}/.copilot-shell/guard.sh', 'an unquoted expansion'],
    ['sh "$HOME/.copilot-shell/guard.sh"', '$HOME is not a workspace variable'],
    ['sh "$CLAUDE_PROJECT_DIR/.copilot-shell/guard.sh"', '$CLAUDE_PROJECT_DIR is not a workspace variable'],
    [`sh "$COSH_WORKSPACE_PATH/$(echo .copilot-shell)/guard.sh"`, 'an expansion other than'],
    ['sh "${COSH_WORKSPACE_PATH:-/tmp}/guard.sh"', 'an expansion other than'],
    ['sh "`pwd`/guard.sh"', 'a command substitution'],
    [`sh ${S}"/*.sh`, 'a glob'],
    ['sh ~/guard.sh', 'a tilde'],
    ['sh \\$COSH_WORKSPACE_PATH/x.sh', 'a backslash'],
    // paths that do not name one file the same way every time
    ['sh .copilot-shell/guard.sh', 'a relative path'],
    [`sh ${S}/../my repo/.copilot-shell/guard.sh"`, 'a "." or ".." segment'],
    ['"$COSH_WORKSPACE_PATH"/.copilot-shell//guard.sh', '"//"'],
    ['sh /etc/profile', 'is outside the workspace'],
    ['guard.sh', 'is found on PATH'],
  ])('%s', (command, reason) => {
    configure(command);
    const hook = trustAndLoad();
    expect(hook.enabled).toBe(false);
    expect(hook.untrusted).toContain('trust refuses its command: ');
    expect(hook.untrusted).toContain(reason);
  });

  it.each([
    ['BASH_ENV'],
    ['ENV'],
    ['NODE_OPTIONS'],
    ['PYTHONPATH'],
    ['PYTHONSTARTUP'],
    ['LD_PRELOAD'],
    ['PATH'],
    ['PERL5OPT'],
    ['RUBYOPT'],
    ['SHELLOPTS'],
    ['GIT_CONFIG_GLOBAL'],
    ['CLAUDE_PROJECT_DIR'],
    ['MY_TOOL_PATH'],
    ['npm_config_userconfig'],
  ])('an env table setting %s', (name) => {
    configure(`sh ${S}/guard.sh"`, `env = { ${name} = "$COSH_WORKSPACE_PATH/.copilot-shell/env.sh" }`);
    const hook = trustAndLoad();
    expect(hook.untrusted).toContain(`env ${name}: a variable that can make`);
  });

  it('a script linked out of the workspace, or a link folder on its path out of it, is refused', () => {
    writeFileSync(join(root, 'outside.sh'), '#!/bin/sh\necho "{}"\n');
    symlinkSync(join(root, 'outside.sh'), join(ws, '.copilot-shell', 'out.sh'));
    configure(`sh ${S}/out.sh"`);
    expect(trustAndLoad().untrusted).toContain(
      `is outside the workspace (it is ${join(root, 'outside.sh')})`,
    );
    mkdirSync(join(root, 'tools'));
    writeFileSync(join(root, 'tools', 'g.sh'), 'echo "{}"\n');
    symlinkSync(join(root, 'tools'), join(ws, 'tools'));
    configure('sh "$COSH_WORKSPACE_PATH/tools/g.sh"');
    expect(trustAndLoad().untrusted).toContain('is outside the workspace');
  });

  it('an interpreter inside the workspace, or found on PATH through a folder of it, is refused', () => {
    mkdirSync(join(ws, 'bin'));
    writeFileSync(join(ws, 'bin', 'python3'), '#!/bin/sh\nexec "$@"\n');
    chmodSync(join(ws, 'bin', 'python3'), 0o755);
    configure(`"$COSH_WORKSPACE_PATH/bin/python3" -I ${S}/guard.py"`);
    expect(trustAndLoad().untrusted).toContain('is inside the workspace');
    const before = process.env['PATH'];
    try {
      process.env['PATH'] = `${join(ws, 'bin')}:${before ?? ''}`;
      configure(`python3 -I ${S}/guard.py"`);
      expect(trustAndLoad().untrusted).toContain(`PATH holds ${join(ws, 'bin')}, inside the workspace`);
      process.env['PATH'] = `.:${before ?? ''}`;
      expect(trustAndLoad().untrusted).toContain('PATH holds the relative folder "."');
    } finally {
      process.env['PATH'] = before;
    }
  });

  it("an interpreter on PATH that is a script (a version manager's shim) or a launcher linked under its name is refused", () => {
    const shims = join(root, 'shims');
    mkdirSync(shims);
    writeFileSync(join(shims, 'python3'), '#!/bin/sh\nexec pyenv exec python3 "$@"\n');
    chmodSync(join(shims, 'python3'), 0o755);
    symlinkSync('/bin/ls', join(shims, 'node'));
    const before = process.env['PATH'];
    try {
      process.env['PATH'] = `${shims}:${before ?? ''}`;
      configure(`python3 -I ${S}/guard.py"`);
      expect(trustAndLoad().untrusted).toContain(
        `the interpreter ${join(shims, 'python3')} is itself a script`,
      );
      configure(`node ${S}/guard.mjs"`);
      expect(trustAndLoad().untrusted).toContain('which is not an interpreter trust accepts (a launcher?)');
    } finally {
      process.env['PATH'] = before;
    }
  });

  it.each([
    ['#!/usr/bin/env -S python3 -X importtime', 'runs env with something other than one known interpreter'],
    ['#!/usr/bin/env python3 -m x', 'runs env with something other than one known interpreter'],
    ['#!/bin/bash --rcfile /x', 'passes a flag trust does not accept'],
    ['#!/usr/bin/perl -Mx', 'passes a flag trust does not accept'],
    ['#!/usr/bin/make -f', 'names an interpreter trust does not accept'],
    ['#!bin/sh', 'by a plain absolute path'],
    ['echo "{}"', 'has no #! line'],
    ['\u007fELF', 'has no #! line'],
  ])('a script run by path whose first line is %s', (line, reason) => {
    writeFileSync(join(ws, '.copilot-shell', 'run'), `${line}\necho "{}"\n`);
    chmodSync(join(ws, '.copilot-shell', 'run'), 0o755);
    configure(`${S}/run"`);
    expect(trustAndLoad().untrusted).toContain(reason);
  });

  it("a #! interpreter inside the workspace is refused (also as env's)", () => {
    ws = join(root, 'plain'); // the kernel ends a #! interpreter at a blank
    mkdirSync(join(ws, '.copilot-shell'), { recursive: true });
    writeFileSync(join(ws, 'interp'), '#!/bin/sh\n');
    writeFileSync(join(ws, 'env'), '#!/bin/sh\n');
    chmodSync(join(ws, 'interp'), 0o755);
    chmodSync(join(ws, 'env'), 0o755);
    writeFileSync(join(ws, '.copilot-shell', 'run'), `#!${join(ws, 'env')} perl\n`);
    configure(`${S}/run"`);
    expect(trustAndLoad().untrusted).toContain(`the interpreter ${join(ws, 'env')} is inside the workspace`);
  });
});

describe('trust accepts the forms it can pin, named as the command names them', () => {
  const guard = (file: string) => join(ws, '.copilot-shell', file);
  it.each([
    [`sh ${S}/guard.sh"`, 'guard.sh'],
    [`bash -eu ${S}/guard.sh" --strict "$COSH_SESSION_ID"`, 'guard.sh'],
    [`sh -- ${S}/guard.sh"`, 'guard.sh'],
    [`${S}/guard.sh" arg`, 'guard.sh'],
    [`"$COSH_WORKSPACE_PATH"/.copilot-shell/guard.sh`, 'guard.sh'],
    [`/usr/bin/python3 -I ${S}/guard.py"`, 'guard.py'],
    [`${S}/guard.py"`, 'guard.py'],
    [`node ${S}/guard.mjs"`, 'guard.mjs'],
    [`sh '${join('/', 'x')}'`.replace(`'/x'`, `'${'WS'}/.copilot-shell/guard.sh'`), 'guard.sh'],
  ])('%s', (command, file) => {
    configure(command.replace('WS', ws));
    const hook = trustAndLoad();
    expect(hook.untrusted).toBeUndefined();
    expect(hook.enabled).toBe(true);
    expect(hook.trustedScripts).toEqual([{ path: guard(file), sha256: expect.stringMatching(/^sha256:/) }]);
    appendFileSync(guard(file), '\n');
    const after = loadHooks(options());
    expect(after.ok && after.registry.PreToolUse[0]?.enabled).toBe(false);
  });

  it.each([['env = { GUARD_MODE = "off" }'], ['observe = true'], ['timeout = 60000'], ['matcher = "Read"']])(
    'adding %s to a trusted hook untrusts it: the definition digest covers every key',
    (line) => {
      configure(`sh ${S}/guard.sh"`);
      expect(trustAndLoad().enabled).toBe(true);
      configure(`sh ${S}/guard.sh"`, line);
      const after = loadHooks(options());
      const hook = after.ok ? after.registry.PreToolUse[0] : undefined;
      expect(hook?.enabled).toBe(false);
      expect(hook?.kind === 'command' && hook.untrusted).toContain('definition changed since it was trusted');
    },
  );

  it('echo, printf, true, false run no file: trusted with nothing to pin', () => {
    configure(`printf '%s' '{"decision":"block"}'`);
    const hook = trustAndLoad();
    expect(hook.enabled).toBe(true);
    expect(hook.trustedScripts).toBeUndefined();
  });

  it('a claude hook may name its script from $CLAUDE_PROJECT_DIR, which the engine sets to the workspace', () => {
    configure('sh "$CLAUDE_PROJECT_DIR/.copilot-shell/guard.sh"', 'dialect = "claude"');
    expect(trustAndLoad().trustedScripts).toEqual([{ path: guard('guard.sh'), sha256: expect.any(String) }]);
  });
});

describe('round 5: what the interpreter reads from the #! line, and python isolated', () => {
  const place = (file: string, text: string) => writeFileSync(join(ws, '.copilot-shell', file), text);

  it.each([
    // perl runs the program a #! line names when the line does not say perl
    ['perl', 'guard.pl', '#!.copilot-shell/check\nprint "{}"\n', 'its #! line'],
    ['perl', 'guard.pl', '#!/bin/sh\nprint "{}"\n', 'not the interpreter that runs it'],
    ['perl -w', 'guard.pl', '#!/usr/bin/perl -Mguard\nprint "{}"\n', 'passes a flag trust does not accept'],
    ['perl', 'guard.pl', '\ufeff#!/bin/sh\nprint "{}"\n', 'not the interpreter that runs it'],
    // ruby skips to a later `#!…ruby` line (and reads its flags) when the first does not say ruby
    ['ruby', 'guard.rb', '#!/bin/sh\n#!/usr/bin/ruby -r./x\nputs "{}"\n', 'not the interpreter that runs it'],
    ['ruby', 'guard.rb', '#!/usr/bin/ruby -r./x\nputs "{}"\n', 'passes a flag trust does not accept'],
    // the same rule for every interpreter trust accepts
    ['sh', 'guard2.sh', '#!/usr/bin/perl\necho "{}"\n', 'not the interpreter that runs it'],
    [
      '/usr/bin/python3 -I',
      'guard2.py',
      '#!/usr/bin/env node\nprint("{}")\n',
      'not the interpreter that runs it',
    ],
  ])('%s running %s (%j) is refused', (runner, file, text, reason) => {
    place(file, text);
    configure(`${runner} ${S}/${file}"`);
    const hook = trustAndLoad();
    expect(hook.enabled).toBe(false);
    expect(hook.untrusted).toContain(reason);
  });

  it.each([
    [`python3 ${S}/guard.py"`, 'python3 without -I'],
    [`python3 -u ${S}/guard.py"`, 'python3 without -I'],
    [`/usr/bin/python3 -E -s ${S}/guard.py"`, 'python3 without -I'],
  ])('%s is refused: python imports from the script folder first', (command, reason) => {
    configure(command);
    expect(trustAndLoad().untrusted).toContain(reason);
  });

  it.each([
    ['#!/usr/bin/python3', 'runs python without -I'],
    ['#!/usr/bin/env python3', 'runs python without -I'],
  ])('a python script run by path whose #! line is %s is refused', (line, reason) => {
    place('run.py', `${line}\nprint("{}")\n`);
    chmodSync(join(ws, '.copilot-shell', 'run.py'), 0o755);
    configure(`${S}/run.py"`);
    expect(trustAndLoad().untrusted).toContain(reason);
  });

  it.each([
    ['perl', 'ok.pl', '#!/usr/bin/perl -w\nprint "{}"\n'],
    ['perl', 'ok.pl', '#!/usr/bin/env perl\nprint "{}"\n'],
    ['perl', 'ok.pl', 'print "{}"\n'],
    ['/usr/bin/python3 -I', 'ok.py', '#!/usr/bin/env python3\nprint("{}")\n'],
    ['/usr/bin/python3 -uI', 'ok.py', 'print("{}")\n'],
    ['bash', 'ok.sh', '#!/bin/sh\necho "{}"\n'],
  ])('%s running %s with a #! line naming its own interpreter is trusted', (runner, file, text) => {
    place(file, text);
    configure(`${runner} ${S}/${file}"`);
    const hook = trustAndLoad();
    expect(hook.untrusted).toBeUndefined();
    expect(hook.enabled).toBe(true);
  });

  it('a python script run by path with #!/usr/bin/python3 -I is trusted', () => {
    place('run.py', '#!/usr/bin/python3 -I\nprint("{}")\n');
    chmodSync(join(ws, '.copilot-shell', 'run.py'), 0o755);
    configure(`${S}/run.py"`);
    expect(trustAndLoad().enabled).toBe(true);
  });
});
