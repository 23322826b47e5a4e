import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, loadHooks, type LoadOptions, type LoadResult } from '../../../src/config/index.js';
import { chainFor } from '../../../src/registry/chain.js';
import type { HookEvent } from '../../../src/events/codecs.js';
import type { Registry } from '../../../src/registry/hook.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/config/extensions/', import.meta.url));

let root: string;
let home: string;
let userDir: string;
let systemDir: string;
let stateDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cosh-config-'));
  home = join(root, 'home');
  userDir = join(home, '.copilot-shell', 'extensions');
  systemDir = join(root, 'system-extensions');
  stateDir = join(home, '.copilot-shell', 'states');
  mkdirSync(userDir, { recursive: true });
  mkdirSync(systemDir, { recursive: true });
  // The hooks below run `run NAME`, `x`, `y`…: programs on the PATH the load-time checks look in.
  for (const program of ['run', 'x', 'y', 'a', 'b', 'c']) {
    write(join(root, 'bin', program), '#!/bin/sh\n');
    chmodSync(join(root, 'bin', program), 0o755);
  }
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const write = (path: string, text: string): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const writeConfig = (...lines: string[]) =>
  write(join(home, '.copilot-shell', 'config.toml'), lines.join('\n'));
const writeManifest = (dir: string, folder: string, manifest: unknown) =>
  write(
    join(dir, folder, 'cosh-extension.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2),
  );
const writeState = (file: 'hooks.json' | 'extensions.json', text: string) =>
  write(join(stateDir, file), text);

/** A manifest with one command hook per name, all on `event`. */
const manifestOf = (
  name: string,
  hookNames: readonly string[],
  event = 'PreToolUse',
  extra: object = {},
) => ({
  name,
  ...extra,
  hooks: {
    [event]: [{ hooks: hookNames.map((hook) => ({ type: 'command', name: hook, command: `run ${hook}` })) }],
  },
});

/** Options that never look at the real home or /usr/share. */
const load = (options: LoadOptions = {}): LoadResult =>
  loadHooks({
    home,
    systemExtensionsDir: systemDir,
    workspace: join(root, 'ws'),
    env: { PATH: `${join(root, 'bin')}:/usr/bin:/bin` },
    ...options,
  });

const loaded = (options: LoadOptions = {}) => {
  const result = load(options);
  if (!result.ok) throw new Error(`unexpected errors:\n${result.errors.map(formatProblem).join('\n')}`);
  return result;
};

const names = (registry: Registry, event: keyof Registry) =>
  registry[event].map((hook) => `${hook.source}/${hook.name}${hook.enabled ? '' : ' (off)'}`);

const preToolUse = (tool_name: string): HookEvent =>
  ({ hook_event_name: 'PreToolUse', session_id: 's', tool_name, tool_input: {} }) as HookEvent;

describe('loadHooks: files and defaults', () => {
  it('a missing default config file means no hooks, and no configFile source', () => {
    const result = loaded();
    expect(result.warnings).toEqual([]);
    expect(result.sources.configFile).toBeUndefined();
    expect(result.sources.extensions).toEqual([]);
    for (const chain of Object.values(result.registry)) expect(chain).toEqual([]);
  });

  it('a missing explicit config file is an error', () => {
    const file = join(root, 'nope.toml');
    expect(load({ configPath: file })).toMatchObject({
      ok: false,
      errors: [{ file, message: 'file not found' }],
      warnings: [],
    });
  });

  it('finds config, extensions and state under <home>/.copilot-shell by default', () => {
    const file = writeConfig('[[hooks.Stop]]', 'name = "from-config"', 'command = "x"');
    writeManifest(userDir, 'ext', manifestOf('ext', ['from-ext'], 'Stop'));
    writeState('hooks.json', '{"disabled": ["from-ext"]}');
    const result = loaded();
    expect(result.sources.configFile).toBe(file);
    expect(names(result.registry, 'Stop')).toEqual(['config/from-config', 'extension:ext/from-ext (off)']);
  });

  it('an invalid config file gives every error and no registry; warnings are kept', () => {
    const file = writeConfig(
      '[[hooks.Stop]]',
      'command = "x"',
      'timeout = 0',
      '[[hooks.Nope]]',
      'command = "y"',
    );
    writeManifest(userDir, 'ext', manifestOf('ext', ['a']));
    const result = load();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatProblem)).toEqual([
      `${file}:3: hooks.Stop[0].timeout: expected an integer 1..600000, got 0`,
      `${file}:4: hooks.Nope: unknown event name (expected enabled, fail_closed, stop_loop_limit, project_env, managed_only, project_hooks, any or one of PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)`,
    ]);
    // A hook without a name is not an error: it is skipped with a warning (reported with the errors).
    expect(result.warnings.map(formatProblem)).toEqual([
      `${file}:1: hooks.Stop[0].name: hook has no name; skipped (every other hook of the file runs)`,
    ]);
  });

  it('an invalid config file still reports the problems of extensions and state files', () => {
    const file = writeConfig('[[hooks.Stop]]', 'name = "s"', 'command = "x"', 'timeout = "5s"');
    const broken = writeManifest(
      userDir,
      'broken',
      '{"name": "broken", "hooks": {"Stop": [{"hooks": [{"type": "command", "name": "b", "command": "x", "timeout": "5s"}]}]}}',
    );
    writeState('hooks.json', '{"disabled": "all"}');
    const result = load();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatProblem)).toEqual([
      `${file}:4: hooks.Stop[0].timeout: expected an integer 1..600000, got "5s"`,
    ]);
    const warned = result.warnings.map((problem) => problem.file);
    expect(warned).toContain(broken);
    expect(warned).toContain(join(home, '.copilot-shell', 'states', 'hooks.json'));
  });

  it('an explicit extensions folder that does not exist is a warning; the default one is not', () => {
    const missing = join(root, 'missing');
    expect(loaded({ extensionsDirs: [missing] }).warnings).toEqual([
      { file: missing, message: 'extensions folder not found' },
    ]);
    rmSync(userDir, { recursive: true });
    expect(loaded().warnings).toEqual([]);
  });
});

describe('loadHooks: chain order', () => {
  it('config hooks in file order, then extensions alphabetically by manifest name, each in manifest order', () => {
    writeConfig(
      '[[hooks.PreToolUse]]',
      'name = "c2"',
      'command = "x"',
      '[[hooks.PreToolUse]]',
      'name = "c1"',
      'command = "x"',
    );
    // Folder names sort the other way round: the manifest name decides.
    writeManifest(userDir, 'a-folder', manifestOf('zeta', ['z2', 'z1']));
    writeManifest(userDir, 'b-folder', manifestOf('Beta', ['b1']));
    writeManifest(systemDir, 'c-folder', manifestOf('alpha', ['a1', 'a2']));
    const result = loaded();
    expect(names(result.registry, 'PreToolUse')).toEqual([
      'config/c2',
      'config/c1',
      'extension:Beta/b1', // code-unit order: upper case before lower case
      'extension:alpha/a1',
      'extension:alpha/a2',
      'extension:zeta/z2',
      'extension:zeta/z1',
    ]);
    expect(result.sources.extensions.map((extension) => extension.name)).toEqual(['Beta', 'alpha', 'zeta']);
  });

  it('groups of one event keep their order, each hook with its own group matcher', () => {
    writeManifest(userDir, 'sec', {
      name: 'sec',
      hooks: {
        PreToolUse: [
          {
            matcher: '^(run_shell_command|shell)$',
            hooks: [{ type: 'command', name: 'shell-only', command: 'a' }],
          },
          { hooks: [{ type: 'command', name: 'every-tool', command: 'b' }] },
          { matcher: 'write', hooks: [{ type: 'command', name: 'writes', command: 'c' }] },
        ],
      },
    });
    const { registry } = loaded();
    expect(chainFor(registry, preToolUse('shell')).map((hook) => hook.name)).toEqual([
      'shell-only',
      'every-tool',
    ]);
    expect(chainFor(registry, preToolUse('write_file')).map((hook) => hook.name)).toEqual([
      'every-tool',
      'writes',
    ]);
    expect(chainFor(registry, preToolUse('run_shell_command_x')).map((hook) => hook.name)).toEqual([
      'every-tool',
    ]);
  });
});

describe('loadHooks: user and system extensions', () => {
  it('a user extension hides the system extension of the same manifest name', () => {
    writeManifest(
      userDir,
      'my-copy',
      manifestOf('agent-sec-core', ['user-hook'], 'PreToolUse', { version: '2.0.0' }),
    );
    writeManifest(
      systemDir,
      'agent-sec-core',
      manifestOf('agent-sec-core', ['system-hook'], 'PreToolUse', { version: '0.7.0' }),
    );
    writeManifest(systemDir, 'other', manifestOf('other', ['o']));
    const result = loaded();
    expect(names(result.registry, 'PreToolUse')).toEqual([
      'extension:agent-sec-core/user-hook',
      'extension:other/o',
    ]);
    expect(result.sources.extensions).toEqual([
      {
        name: 'agent-sec-core',
        version: '2.0.0',
        path: join(userDir, 'my-copy'),
        scope: 'user',
        enabled: true,
      },
      { name: 'other', path: join(systemDir, 'other'), scope: 'system', enabled: true },
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('extensionsDirs replaces the default user folder, and earlier folders win', () => {
    const first = join(root, 'first');
    const second = join(root, 'second');
    writeManifest(userDir, 'ignored', manifestOf('default-dir', ['d']));
    writeManifest(first, 'x', manifestOf('shared', ['from-first']));
    writeManifest(second, 'x', manifestOf('shared', ['from-second']));
    writeManifest(second, 'y', manifestOf('only-second', ['s']));
    const result = loaded({ extensionsDirs: [first, second] });
    expect(names(result.registry, 'PreToolUse')).toEqual([
      'extension:only-second/s',
      'extension:shared/from-first',
    ]);
    expect(result.warnings).toEqual([
      {
        file: join(second, 'x', 'cosh-extension.json'),
        message: `extension "shared" not loaded: ${join(first, 'x', 'cosh-extension.json')} has the same name`,
      },
    ]);
  });

  it('a broken manifest disables only that extension, with warnings naming its file', () => {
    const broken = writeManifest(userDir, 'broken', {
      name: 'agent-sec-core',
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', name: 'a', command: 'x', timeout: '5s' }] }] },
    });
    writeManifest(systemDir, 'agent-sec-core', manifestOf('agent-sec-core', ['system-hook']));
    writeManifest(userDir, 'fine', manifestOf('fine', ['f']));
    writeManifest(userDir, 'garbage', '{ not json');
    const result = loaded();
    // The broken user copy hides nothing: the system copy still guards the shell.
    expect(names(result.registry, 'PreToolUse')).toEqual([
      'extension:agent-sec-core/system-hook',
      'extension:fine/f',
    ]);
    expect(result.warnings.map(formatProblem)).toEqual([
      `${broken}: extension not loaded: 1 problem in its manifest`,
      `${broken}:11: hooks.PreToolUse[0].hooks[0].timeout: expected an integer 1..600000, got "5s"`,
      `${join(userDir, 'garbage', 'cosh-extension.json')}: extension not loaded: 1 problem in its manifest`,
      expect.stringMatching(/garbage\/cosh-extension\.json(:1)?: invalid JSON/),
    ]);
  });

  it('folders without a manifest and plain files are not extensions; symlinked folders are', () => {
    mkdirSync(join(userDir, 'empty-folder'));
    write(join(userDir, 'README.md'), '# notes');
    const elsewhere = join(root, 'linked-source');
    writeManifest(elsewhere, 'ext', manifestOf('linked', ['l']));
    symlinkSync(join(elsewhere, 'ext'), join(userDir, 'linked'));
    const result = loaded();
    expect(result.warnings).toEqual([]);
    expect(names(result.registry, 'PreToolUse')).toEqual(['extension:linked/l']);
    expect(result.registry.PreToolUse[0]).toMatchObject({
      kind: 'command',
      extensionPath: join(userDir, 'linked'),
    });
  });

  it('shipped manifests load unchanged from a real folder, with variables substituted', () => {
    cpSync(join(FIXTURES, 'agent-sec-core'), join(systemDir, 'agent-sec-core'), { recursive: true });
    cpSync(join(FIXTURES, 'tokenless'), join(userDir, 'tokenless'), { recursive: true });
    const workspace = join(root, 'project');
    const result = loaded({ workspace });
    // The fixtures ship manifests without their scripts: the load-time checks say so, and only that.
    expect(result.warnings.filter((problem) => problem.hook === undefined)).toEqual([]);
    expect(
      result.warnings.every((problem) =>
        /^command cannot start: (script|program) ".*" not found;/.test(problem.message),
      ),
    ).toBe(true);
    expect(result.sources.extensions).toEqual([
      {
        name: 'agent-sec-core',
        version: '0.7.0',
        path: join(systemDir, 'agent-sec-core'),
        scope: 'system',
        enabled: true,
      },
      { name: 'tokenless', version: '0.3.1', path: join(userDir, 'tokenless'), scope: 'user', enabled: true },
    ]);
    const commands = result.registry.PreToolUse.map((hook) => (hook.kind === 'command' ? hook.command : ''));
    // A plain path is pasted as is; one with other characters (a TMPDIR with a space) becomes the
    // expansion of the variable the hook gets it in (spec §3).
    const inCommand = (path: string, variable: string) =>
      /^[A-Za-z0-9_./,:@%+=-]+$/.test(path) ? path : `"\${${variable}}"`;
    const secCore = inCommand(join(systemDir, 'agent-sec-core'), 'COSH_EXTENSION_PATH');
    const tokenless = inCommand(join(userDir, 'tokenless'), 'COSH_EXTENSION_PATH');
    expect(commands).toEqual([
      `python3 ${secCore}/hooks/code_scanner_hook.py`,
      `python3 ${secCore}/hooks/pii_checker_hook.py --workspace ${inCommand(workspace, 'COSH_WORKSPACE_PATH')}`,
      `python3 ${secCore}/hooks/secret_guard.py`,
      `sh ${tokenless}/hooks/run-hook.sh tool-ready`,
      `sh ${tokenless}/hooks/run-hook.sh rewrite`,
    ]);
    expect(chainFor(result.registry, preToolUse('run_shell_command')).map((hook) => hook.name)).toEqual([
      'code-scanner',
      'pii-checker',
      'tokenless-tool-ready',
      'tokenless-rewrite',
    ]);
  });
});

describe('loadHooks: disabled state', () => {
  beforeEach(() => {
    writeConfig(
      '[[hooks.PreToolUse]]',
      'name = "audit"',
      'command = "x"',
      '[[hooks.PreToolUse]]',
      'name = "guard"',
      'command = "y"',
    );
    writeManifest(userDir, 'sec', manifestOf('sec', ['audit', 'scan']));
    writeManifest(systemDir, 'tok', manifestOf('tok', ['rewrite']));
  });

  it('extensions.json turns whole extensions off, hooks.json turns hooks off by name in every source', () => {
    writeState('extensions.json', '{"disabled": ["tok", "not-installed"]}');
    writeState('hooks.json', '{"disabled": ["audit"], "updatedBy": "cosh"}');
    const result = loaded();
    expect(names(result.registry, 'PreToolUse')).toEqual([
      'config/audit (off)',
      'config/guard',
      'extension:sec/audit (off)',
      'extension:sec/scan',
      'extension:tok/rewrite (off)',
    ]);
    expect(result.sources.extensions.map((extension) => [extension.name, extension.enabled])).toEqual([
      ['sec', true],
      ['tok', false],
    ]);
    expect(
      chainFor(result.registry, preToolUse('shell')).map((hook) => `${hook.source}/${hook.name}`),
    ).toEqual(['config/guard', 'extension:sec/scan']);
    expect(result.warnings).toEqual([]);
  });

  it('the state folder can be moved', () => {
    const elsewhere = join(root, 'states');
    write(join(elsewhere, 'hooks.json'), '{"disabled": ["guard"]}');
    expect(names(loaded({ stateDir: elsewhere }).registry, 'PreToolUse')).toContain('config/guard (off)');
  });

  it.each([
    [
      'not JSON',
      '{"disabled": [',
      (file: string) => [{ file, message: expect.stringMatching(/^invalid JSON, ignored: /) }],
    ],
    [
      'disabled not an array',
      '{"disabled": "tok"}',
      (file: string) => [
        { file, line: 1, path: 'disabled', message: 'expected an array of names, got "tok"; file ignored' },
      ],
    ],
    [
      'a name that is not a string',
      '{\n  "disabled": [\n    "tok",\n    3\n  ]\n}',
      (file: string) => [
        { file, line: 4, path: 'disabled[1]', message: 'expected a string, got 3; file ignored' },
      ],
    ],
    [
      'not an object',
      '["tok"]',
      (file: string) => [{ file, line: 1, message: 'expected an object, got an array; file ignored' }],
    ],
  ])('a malformed state file (%s) is a warning and disables nothing', (_, text, expected) => {
    const file = writeState('extensions.json', text);
    const result = loaded();
    expect(result.warnings).toEqual(expected(file));
    expect(result.registry.PreToolUse.every((hook) => hook.enabled)).toBe(true);
  });

  it('a state folder path that is a file disables nothing and does not crash', () => {
    write(join(root, 'states-file'), '');
    const result = loaded({ stateDir: join(root, 'states-file') });
    expect(result.registry.PreToolUse).toHaveLength(5);
    expect(result.warnings).toEqual([]);
  });
});

describe('loadHooks: [hooks] enabled = false', () => {
  it('keeps config hooks, all off, and does not read extensions at all', () => {
    writeConfig('[hooks]', 'enabled = false', '[[hooks.Stop]]', 'name = "s"', 'command = "x"');
    writeManifest(userDir, 'ext', manifestOf('ext', ['e'], 'Stop'));
    writeManifest(userDir, 'broken', '{ not json');
    writeState('extensions.json', 'not json either');
    const result = loaded();
    expect(names(result.registry, 'Stop')).toEqual(['config/s (off)']);
    expect(result.sources.extensions).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(chainFor(result.registry, { hook_event_name: 'Stop', session_id: 's' } as HookEvent)).toEqual([]);
  });

  it('still validates the file: errors are errors', () => {
    const file = writeConfig(
      '[hooks]',
      'enabled = false',
      '[[hooks.Stop]]',
      'name = "s"',
      'command = "x"',
      'timeout = 0',
    );
    expect(load()).toMatchObject({
      ok: false,
      errors: [
        { file, line: 6, path: 'hooks.Stop[0].timeout', message: 'expected an integer 1..600000, got 0' },
      ],
      warnings: [],
    });
  });
});
