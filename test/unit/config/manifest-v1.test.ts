import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExtensions } from '../../../src/config/extensions.js';
import { decodeManifestText } from '../../../src/config/manifest.js';
import { formatPath, formatProblem, type ConfigProblem } from '../../../src/config/problems.js';
import { COSH_CORE_VERSION } from '../../../src/version.js';

const FILE = '/ext/ops/cosh-extension.json';
const VARS = { extensionPath: '/opt/ext/ops', workspacePath: '/work/project' };

/** A valid schemaVersion 1 manifest, changed by `patch`. */
const manifest = (patch: (m: Record<string, unknown>) => void = () => {}): Record<string, unknown> => {
  const m: Record<string, unknown> = {
    schemaVersion: 1,
    name: 'example.ops',
    version: '1.0.0',
    compatibility: { cosh: '>=0.12.0' },
    hooks: {
      PreToolUse: [
        {
          matcher: 'shell',
          hooks: [
            {
              type: 'command',
              name: 'guard',
              command: 'python3 ${extensionPath}/hooks/guard.py --dir=${workspacePath}',
              timeout: 30,
              env: { GUARD_HOME: '${extensionPath}/data', SEP: 'a${/}b' },
            },
          ],
        },
      ],
      Stop: [{ hooks: [{ type: 'command', name: 'audit', command: 'sh ${extensionPath}/stop.sh' }] }],
    },
  };
  patch(m);
  return m;
};

const decode = (m: unknown) => decodeManifestText(JSON.stringify(m, null, 2), FILE, VARS);

/** The first hook entry of PreToolUse, to patch. */
const firstHook = (m: Record<string, unknown>): Record<string, unknown> =>
  (
    ((m.hooks as Record<string, unknown[]>).PreToolUse as Record<string, unknown>[])[0]?.hooks as Record<
      string,
      unknown
    >[]
  )[0] as Record<string, unknown>;

const errorsOf = (m: unknown): ConfigProblem[] => {
  const result = decode(m);
  if (result.ok) throw new Error(`expected errors, loaded ${JSON.stringify(result.value)}`);
  return [...result.error];
};

/** Every error names the manifest file, a line and the field. */
const expectError = (m: unknown, path: string, message: RegExp): void => {
  const errors = errorsOf(m);
  expect(errors.every((problem) => problem.file === FILE && typeof problem.line === 'number')).toBe(true);
  expect(errors.map(formatProblem)).toContainEqual(expect.stringMatching(message));
  expect(errors.map((problem) => problem.path)).toContain(path);
};

describe('schemaVersion 1 manifests: loaded as cosh-core loads them', () => {
  it('a valid manifest: timeout in seconds becomes ms, variables substituted, names kept', () => {
    const result = decode(manifest());
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    expect(result.value).toMatchObject({ name: 'example.ops', version: '1.0.0' });
    const [guard] = result.value.hooks.PreToolUse;
    expect(guard).toMatchObject({
      name: 'guard',
      source: 'extension:example.ops',
      command: 'python3 /opt/ext/ops/hooks/guard.py --dir=/work/project',
      timeoutMs: 30_000,
      env: { GUARD_HOME: '/opt/ext/ops/data', SEP: 'a/b' },
      extensionPath: '/opt/ext/ops',
      workspacePath: '/work/project',
      matcher: expect.objectContaining({ source: 'shell' }),
      origin: expect.objectContaining({ file: FILE, path: 'hooks.PreToolUse[0].hooks[0]' }),
    });
    // cosh-core blocks on a failing PreToolUse hook unless it says fail_open; elsewhere it ignores failures.
    expect(guard?.failClosed).toBe(true);
    expect(result.value.hooks.Stop[0]).toMatchObject({ name: 'audit', failClosed: false, timeoutMs: 5000 });
  });

  it('fail_open: true on a PreToolUse hook: a failure passes', () => {
    const result = decode(manifest((m) => void (firstHook(m).fail_open = true)));
    expect(result.ok && result.value.hooks.PreToolUse[0]?.failClosed).toBe(false);
  });

  it.each([
    ['at the top', (m: Record<string, unknown>) => void (m.dialect = 'claude'), 'dialect'],
    [
      'in a hook (a cosh-hooks key)',
      (m: Record<string, unknown>) => void (firstHook(m).fail_closed = true),
      'hooks.PreToolUse[0].hooks[0].fail_closed',
    ],
    [
      'in a hook (observe)',
      (m: Record<string, unknown>) => void (firstHook(m).observe = true),
      'hooks.PreToolUse[0].hooks[0].observe',
    ],
    [
      'in a group',
      (m: Record<string, unknown>) => {
        (
          (m.hooks as Record<string, Record<string, unknown>[]>).PreToolUse as Record<string, unknown>[]
        )[0]!.when = 'x';
      },
      'hooks.PreToolUse[0].when',
    ],
    [
      'in compatibility',
      (m: Record<string, unknown>) => void ((m.compatibility as Record<string, unknown>).node = '>=20'),
      'compatibility.node',
    ],
    [
      'an event cosh-core does not have',
      (m: Record<string, unknown>) => {
        (m.hooks as Record<string, unknown>).SessionEnd = [];
      },
      'hooks.SessionEnd',
    ],
  ])('an unknown key %s is an error, and nothing of the extension loads', (_where, patch, path) => {
    expectError(manifest(patch), path, /unknown key/);
  });

  it.each([0, 301, -5, 1.5, '30', true, 30_000])(
    'timeout %j is an error naming seconds 1..300',
    (timeout) => {
      expectError(
        manifest((m) => void (firstHook(m).timeout = timeout)),
        'hooks.PreToolUse[0].hooks[0].timeout',
        /seconds 1\.\.300/,
      );
    },
  );

  it.each([1, 300])('timeout %j is accepted', (timeout) => {
    const result = decode(manifest((m) => void (firstHook(m).timeout = timeout)));
    expect(result.ok && result.value.hooks.PreToolUse[0]?.timeoutMs).toBe(timeout * 1000);
  });

  it('a missing name is an error (not a skipped hook)', () => {
    expectError(
      manifest((m) => void delete firstHook(m).name),
      'hooks.PreToolUse[0].hooks[0].name',
      /missing required key/,
    );
  });

  it.each(['', 'Guard', '-guard', 'guard.', 'a/b', 'g u', 'x'.repeat(65)])(
    'hook name %j is an error',
    (name) => {
      expectError(
        manifest((m) => void (firstHook(m).name = name)),
        'hooks.PreToolUse[0].hooks[0].name',
        /name/,
      );
    },
  );

  it('a duplicate name is an error, across events too', () => {
    expectError(
      manifest((m) => {
        (
          (m.hooks as Record<string, Record<string, unknown>[]>).Stop![0]!.hooks as Record<string, unknown>[]
        )[0]!.name = 'guard';
      }),
      'hooks.Stop[0].hooks[0].name',
      /duplicate hook name "guard".*hooks\.PreToolUse\[0\]\.hooks\[0\]/,
    );
  });

  it.each(['BAD-NAME', '1X', 'A B', ''])('env name %j is rejected, naming the file and the field', (name) => {
    expectError(
      manifest((m) => void (firstHook(m).env = { [name]: 'v' })),
      formatPath(['hooks', 'PreToolUse', 0, 'hooks', 0, 'env', name]),
      /^\/ext\/ops\/cosh-extension\.json:\d+: .*invalid environment variable name/,
    );
  });

  it('an env value that is not a string is an error', () => {
    expectError(
      manifest((m) => void (firstHook(m).env = { A: 1 })),
      'hooks.PreToolUse[0].hooks[0].env.A',
      /expected/,
    );
  });

  it.each([
    ['${HOME}/x.sh', /only \$\{extensionPath\}, \$\{workspacePath\} and \$\{\/\}/],
    ['sh ${pathSeparator}x', /only \$\{extensionPath\}/],
    ['sh ${extensionPath}/../outside.sh', /inside the extension/],
    ['sh ${extensionPath}/./x.sh', /inside the extension/],
    ['sh ${extensionPath}x.sh', /followed by "\/"/],
    ['cd ${extensionPath} && ./x', /followed by "\/"/],
    ['sh x.sh\nrm -rf /', /one line/],
    ['   ', /non-empty/],
  ])('command %j is an error', (command, message) => {
    expectError(
      manifest((m) => void (firstHook(m).command = command)),
      'hooks.PreToolUse[0].hooks[0].command',
      message,
    );
  });

  it('$HOME (no braces) and ${workspacePath}, ${/} are fine in a command', () => {
    const result = decode(
      manifest((m) => void (firstHook(m).command = 'sh $HOME/a.sh ${workspacePath}${/}b ${extensionPath}/')),
    );
    expect(result.ok && result.value.hooks.PreToolUse[0]?.command).toBe(
      'sh $HOME/a.sh /work/project/b /opt/ext/ops/',
    );
  });

  it.each([2, '1', 0, true])('schemaVersion %j is an error', (schemaVersion) => {
    expectError(
      manifest((m) => void (m.schemaVersion = schemaVersion)),
      'schemaVersion',
      /schemaVersion must be the integer 1/,
    );
  });

  it('compatibility.cosh must match cosh-core version cosh-hooks follows', () => {
    expectError(
      manifest((m) => void (m.compatibility = { cosh: '>=99.0.0' })),
      'compatibility.cosh',
      new RegExp(`requires cosh >=99\\.0\\.0.*${COSH_CORE_VERSION.replace(/\./g, '\\.')}`),
    );
    expectError(
      manifest((m) => void (m.compatibility = { cosh: 'latest' })),
      'compatibility.cosh',
      /invalid version requirement/,
    );
    expectError(
      manifest((m) => void delete m.compatibility),
      'compatibility',
      /missing required key/,
    );
  });

  it.each([
    ['version', (m: Record<string, unknown>) => void (m.version = '1.0'), /SemVer/],
    ['name', (m: Record<string, unknown>) => void (m.name = 'Example'), /lowercase/],
    ['description', (m: Record<string, unknown>) => void (m.description = 'é'.repeat(513)), /1024/],
    [
      'hooks.PreToolUse[0].hooks',
      (m: Record<string, unknown>) => {
        (
          (m.hooks as Record<string, Record<string, unknown>[]>).PreToolUse as Record<string, unknown>[]
        )[0]!.hooks = [];
      },
      /cannot be empty/,
    ],
    [
      'hooks.PreToolUse[0].hooks[0].type',
      (m: Record<string, unknown>) => void (firstHook(m).type = 'prompt'),
      /"command"/,
    ],
    [
      'mcpServers.inv.transport',
      (m: Record<string, unknown>) => void (m.mcpServers = { inv: { transport: 'http', command: 'inv' } }),
      /stdio/,
    ],
    ['skills[0]', (m: Record<string, unknown>) => void (m.skills = ['../outside']), /inside the extension/],
    [
      'settings[1].key',
      (m: Record<string, unknown>) =>
        void (m.settings = [
          { key: 'token', type: 'string', description: 'd' },
          { key: 'token', type: 'string', description: 'd' },
        ]),
      /duplicate/,
    ],
  ])('%s: an error', (path, patch, message) => {
    expectError(manifest(patch), path, message);
  });

  it('every error is reported at once', () => {
    const errors = errorsOf(
      manifest((m) => {
        m.extra = 1;
        firstHook(m).timeout = 0;
        firstHook(m).env = { 'BAD-NAME': 'v' };
      }),
    );
    expect(errors.map((problem) => problem.path)).toEqual(
      expect.arrayContaining([
        'extra',
        'hooks.PreToolUse[0].hooks[0].timeout',
        'hooks.PreToolUse[0].hooks[0].env.BAD-NAME',
      ]),
    );
  });

  it('a broken schemaVersion 1 manifest disables only its own extension', () => {
    const root = mkdtempSync(join(tmpdir(), 'v1-ext-'));
    const write = (folder: string, content: unknown) => {
      mkdirSync(join(root, folder));
      writeFileSync(join(root, folder, 'cosh-extension.json'), JSON.stringify(content, null, 2));
    };
    write(
      'broken',
      manifest((m) => void (firstHook(m).timeout = 0)),
    );
    write(
      'good',
      manifest((m) => void (m.name = 'good.ops')),
    );
    const loaded = loadExtensions([{ dir: root, scope: 'user', explicit: true }], '/work/project');
    expect(loaded.extensions.map((extension) => extension.name)).toEqual(['good.ops']);
    expect(loaded.warnings.map(formatProblem)).toContainEqual(
      expect.stringMatching(/broken\/cosh-extension\.json: extension not loaded: 1 problem/),
    );
  });
});
