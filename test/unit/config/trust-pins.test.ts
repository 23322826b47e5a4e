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
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, loadHooks, type LoadOptions } from '../../../src/config/index.js';
import { planTrust, recordTrust } from '../../../src/config/trust-workspace.js';
import { MAX_FOLDER_ENTRIES } from '../../../src/exec/script-digest.js';
import { changedTrustedScript } from '../../../src/exec/trusted-scripts.js';
import type { CommandHook } from '../../../src/registry/hook.js';

// Issue 38, classes 1 and 3: trust pins the project's hook folder, not only the script a command
// names (a sibling a script imports is code too), and a project hook's `env` names are refused
// unless the user's own config allows them (a deny-list missed OPENSSL_CONF, which node and
// python's ssl read at start to load a shared library).

let root: string;
let ws: string;
let home: string;
const folder = () => join(ws, '.copilot-shell');
const S = '"$COSH_WORKSPACE_PATH/.copilot-shell';

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-trust-pins-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, '.copilot-shell'), { recursive: true });
  mkdirSync(join(home, '.copilot-shell'), { recursive: true });
  writeFileSync(join(root, 'system.toml'), '');
  writeFileSync(join(folder(), 'guard.mjs'), "import { verdict } from './lib.mjs';\nconsole.log(verdict);\n");
  writeFileSync(join(folder(), 'lib.mjs'), 'export const verdict = \'{"decision":"block"}\';\n');
  writeFileSync(join(folder(), 'guard.sh'), '#!/bin/sh\necho "{}"\n');
  chmodSync(join(folder(), 'guard.sh'), 0o755);
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
    join(folder(), 'config.toml'),
    ['[[hooks.PreToolUse]]', 'name = "guard"', `command = ${JSON.stringify(command)}`, ...more, ''].join(
      '\n',
    ),
  );
const load = () => {
  const result = loadHooks(options());
  if (!result.ok) throw new Error(result.errors.map(formatProblem).join('\n'));
  return result.registry.PreToolUse[0] as CommandHook;
};
const trustAndLoad = () => {
  recordTrust(planTrust(options()));
  return load();
};

describe('trust pins the project hook folder', () => {
  it('a sibling the script imports, changed after trust: the hook is untrusted', () => {
    configure(`node ${S}/guard.mjs"`);
    expect(trustAndLoad().enabled).toBe(true);
    writeFileSync(join(folder(), 'lib.mjs'), 'export const verdict = \'{"decision":"allow"}\';\n');
    const hook = load();
    expect(hook.enabled).toBe(false);
    expect(hook.untrusted).toBe(`folder ${folder()}/ changed since it was trusted (run cosh-hooks trust)`);
  });

  it.each([
    [
      'a file added (json.py beside a python script)',
      () => writeFileSync(join(folder(), 'json.py'), 'x = 1\n'),
    ],
    ['a file removed', () => rmSync(join(folder(), 'lib.mjs'))],
    [
      'a file in a subfolder added',
      () => {
        mkdirSync(join(folder(), 'node_modules', 'x'), { recursive: true });
        writeFileSync(join(folder(), 'node_modules', 'x', 'index.js'), '');
      },
    ],
    ['an empty folder added', () => mkdirSync(join(folder(), 'json'))],
    ['a file made executable', () => chmodSync(join(folder(), 'lib.mjs'), 0o755)],
    ['the config itself edited (a comment)', () => appendFileSync(join(folder(), 'config.toml'), '# x\n')],
  ])('%s: untrusted', (_, change) => {
    configure(`sh ${S}/guard.sh"`);
    expect(trustAndLoad().enabled).toBe(true);
    change();
    expect(load().untrusted).toContain(`folder ${folder()}/ changed since it was trusted`);
  });

  it('a sibling changed while the agent runs: the executor does not start the trusted hook', () => {
    configure(`node ${S}/guard.mjs"`);
    const hook = trustAndLoad();
    expect(hook.trustedScripts?.map(({ path }) => path)).toEqual([
      join(folder(), 'guard.mjs'),
      `${folder()}/`,
    ]);
    expect(changedTrustedScript(hook)).toBeUndefined();
    writeFileSync(join(folder(), 'lib.mjs'), 'export const verdict = "{}";\n');
    expect(changedTrustedScript(hook)?.message).toBe(
      `not started: folder ${folder()}/ changed since it was trusted (a file in it was added, removed or changed); run cosh-hooks trust to trust it again`,
    );
  });

  it.each([
    [
      'a link to a file outside',
      () => {
        writeFileSync(join(root, 'outside.py'), '');
        symlinkSync(join(root, 'outside.py'), join(folder(), 'json.py'));
      },
      'json.py is a link',
    ],
    ['a link to a folder', () => symlinkSync(root, join(folder(), 'lib')), 'lib is a link'],
    [
      'a FIFO (never read, never blocks)',
      () => execFileSync('mkfifo', [join(folder(), 'pipe')]),
      'pipe is not a regular file',
    ],
    [
      'too many files',
      () => {
        for (let i = 0; i <= MAX_FOLDER_ENTRIES; i += 1) writeFileSync(join(folder(), `f${i}`), '');
      },
      `more than ${MAX_FOLDER_ENTRIES} files and folders`,
    ],
  ])('a folder holding %s cannot be verified: never trusted', (_, make, reason) => {
    configure(`sh ${S}/guard.sh"`);
    make();
    const hook = trustAndLoad();
    expect(hook.enabled).toBe(false);
    expect(hook.untrusted).toContain(reason);
  });

  it('a script elsewhere in the workspace is pinned by file only (docs: what it imports is not covered)', () => {
    writeFileSync(join(ws, 'guard.sh'), '#!/bin/sh\necho "{}"\n');
    configure('sh "$COSH_WORKSPACE_PATH/guard.sh"');
    const hook = trustAndLoad();
    expect(hook.trustedScripts?.map(({ path }) => path)).toEqual([join(ws, 'guard.sh')]);
  });
});

describe('a project hook env name runs only when the user allows it', () => {
  const allow = (layer: 'user' | 'system', names: string[]) =>
    writeFileSync(
      layer === 'user' ? join(home, '.copilot-shell', 'config.toml') : join(root, 'system.toml'),
      `[hooks]\nproject_env = ${JSON.stringify(names)}\n`,
    );

  it.each([['OPENSSL_CONF'], ['GUARD_MODE'], ['SSL_CERT_FILE'], ['node_options']])(
    'env %s, not allowed anywhere: refused',
    (name) => {
      configure(`sh ${S}/guard.sh"`, `env = { ${name} = ".copilot-shell/tls.cnf" }`);
      expect(trustAndLoad().untrusted).toContain(`env ${name}: not allowed by project_env`);
    },
  );

  it('a name the user config allows is trusted; another is still refused', () => {
    allow('user', ['GUARD_MODE']);
    configure(`sh ${S}/guard.sh"`, 'env = { GUARD_MODE = "strict" }');
    expect(trustAndLoad().enabled).toBe(true);
    configure(`sh ${S}/guard.sh"`, 'env = { GUARD_MODE = "strict", OPENSSL_CONF = "x" }');
    expect(trustAndLoad().untrusted).toContain('env OPENSSL_CONF: not allowed by project_env');
  });

  it('the system config may allow a name too', () => {
    allow('system', ['GUARD_MODE']);
    configure(`sh ${S}/guard.sh"`, 'env = { GUARD_MODE = "strict" }');
    expect(trustAndLoad().enabled).toBe(true);
  });

  it('a project cannot allow its own names: an error naming the file and key', () => {
    configure(`sh ${S}/guard.sh"`, 'env = { OPENSSL_CONF = "x" }');
    writeFileSync(
      join(folder(), 'config.toml'),
      `[hooks]\nproject_env = ["OPENSSL_CONF"]\n\n[[hooks.PreToolUse]]\nname = "guard"\ncommand = ${JSON.stringify(`sh ${S}/guard.sh"`)}\nenv = { OPENSSL_CONF = "x" }\n`,
    );
    const result = loadHooks(options());
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.errors.map(formatProblem).join('\n')).toContain(
      `${join(folder(), 'config.toml')}:2: hooks.project_env: only the user or system config may set this`,
    );
  });

  it.each([['PATH'], ['COSH_WORKSPACE_PATH'], ['CLAUDE_PROJECT_DIR']])(
    'env %s stays refused even when allowed: the engine sets it, trust reads interpreters from it',
    (name) => {
      allow('user', [name]);
      configure(`sh ${S}/guard.sh"`, `env = { ${name} = "/tmp" }`);
      expect(trustAndLoad().untrusted).toContain(`env ${name}: `);
      expect(trustAndLoad().untrusted).not.toContain('not allowed by project_env');
    },
  );
});
