import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, lastValueFrom, of, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { processExecutor, resultOnly } from '../../src/exec/index.js';
import { decodeEvent } from '../../src/events/decode.js';
import type { HookEvent } from '../../src/events/codecs.js';
import { isDecision } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import { commandHookOf, defineHooks } from '../../src/registry/define.js';
import { cli, sandbox } from '../cli/helpers.js';
import { COSH_CORE_VERSION } from '../../src/version.js';

/**
 * spec §4.2: event data never makes a hook fail to start. An event value that cannot be an
 * environment value (a NUL byte, more than 32 KiB) is left out of the environment; the event on
 * stdin stays whole. And every hook gets the engine's variables (§3, §4.2).
 */

const ENV_HOOK = fileURLToPath(new URL('../fixtures/hooks/env-cwd.js', import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const preToolUse = (sessionId: string): HookEvent => {
  const decoded = decodeEvent(
    {
      hook_event_name: 'PreToolUse',
      session_id: sessionId,
      tool_name: 'shell',
      tool_input: { command: 'ls' },
    },
    { now: () => new Date(0), cwd: () => process.cwd() },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

const HOSTILE_SESSIONS: readonly [string, string][] = [
  ['a NUL byte', 'before\u0000after'],
  ['200,000 characters', 'x'.repeat(200_000)],
  ['32 KiB + 1 byte of multi-byte text', 'é'.repeat(16_384) + 'x'],
];

describe('event values that cannot be environment values (spec §4.2)', () => {
  it.each(HOSTILE_SESSIONS)(
    'a session_id with %s: a fail_closed blocking guard still runs and blocks',
    async (_what, sessionId) => {
      const registry = defineHooks({
        PreToolUse: [
          {
            name: 'guard',
            fail_closed: true,
            command: `echo '{"decision":"block","reason":"guarded"}'`,
          },
        ],
      });
      const lines = await lastValueFrom(
        hookPipeline(registry, defaultDeps())(of(preToolUse(sessionId))).output$.pipe(toArray()),
      );
      const decisions = lines.filter(isDecision);
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toMatchObject({
        decision: 'block',
        reason: 'guarded',
        hooks: [{ name: 'guard', outcome: 'ok' }],
      });
    },
  );

  it.each(HOSTILE_SESSIONS)(
    'a session_id with %s: COSH_SESSION_ID is left out (also an inherited one), the event on stdin is whole',
    async (_what, sessionId) => {
      const hook = commandHookOf({ name: 'env-hook', command: ENV_HOOK }, 'config');
      const event = preToolUse(sessionId);
      const before = process.env['COSH_SESSION_ID'];
      process.env['COSH_SESSION_ID'] = 'stale-outer-session';
      let result;
      try {
        result = await firstValueFrom(processExecutor()(hook, event).pipe(resultOnly()));
      } finally {
        if (before === undefined) delete process.env['COSH_SESSION_ID'];
        else process.env['COSH_SESSION_ID'] = before;
      }
      if (result.outcome !== 'ok') throw new Error(JSON.stringify(result));
      const seen = result.output.hookSpecificOutput as { env: Record<string, unknown>; event: unknown };
      expect(seen.env['COSH_SESSION_ID']).toBeNull();
      expect(seen.env['COSH_HOOK_EVENT']).toBe('PreToolUse');
      expect(seen.event).toStrictEqual(event);
    },
  );

  it('a session_id of exactly 32 KiB is still passed', async () => {
    const sessionId = 's'.repeat(32 * 1024);
    const hook = commandHookOf({ name: 'env-hook', command: ENV_HOOK }, 'config');
    const result = await firstValueFrom(processExecutor()(hook, preToolUse(sessionId)).pipe(resultOnly()));
    if (result.outcome !== 'ok') throw new Error(JSON.stringify(result));
    expect(
      (result.output.hookSpecificOutput as { env: Record<string, unknown> }).env['COSH_SESSION_ID'],
    ).toBe(sessionId);
  });
});

describe("the engine's variables (spec §3, §4.2)", () => {
  it('COSH_RUNTIME, COSH_HOOKS_VERSION, COSH_WORKSPACE_PATH, COSH_EXTENSION_PATH win over the env of the hook and the host', async () => {
    const hook = commandHookOf(
      {
        name: 'env-hook',
        command: ENV_HOOK,
        env: { COSH_RUNTIME: 'fake', COSH_HOOKS_VERSION: '9', COSH_EXTENSION_PATH: '/fake' },
        extensionPath: '/opt/ext/x',
        workspacePath: '/work/project',
      },
      'extension:x',
    );
    const result = await firstValueFrom(processExecutor()(hook, preToolUse('s1')).pipe(resultOnly()));
    if (result.outcome !== 'ok') throw new Error(JSON.stringify(result));
    expect((result.output.hookSpecificOutput as { env: Record<string, unknown> }).env).toStrictEqual({
      COSH_HOOK_EVENT: 'PreToolUse',
      COSH_HOOK_NAME: 'env-hook',
      COSH_SESSION_ID: 's1',
      COSH_RUNTIME: 'cosh-hooks',
      COSH_HOOKS_VERSION: VERSION,
      COSH_WORKSPACE_PATH: '/work/project',
      COSH_EXTENSION_PATH: '/opt/ext/x',
      HOOK_SETTING: null,
      PATH_IS_SET: true,
    });
  });
});

describe("cosh-core's COSH_NG_VERSION (docs/compat.md)", () => {
  it('every hook gets it, set after its own env, so a config or manifest cannot override it', async () => {
    const hook = commandHookOf(
      {
        name: 'ng',
        command: `printf '{"hookSpecificOutput":{"v":"%s"}}' "$COSH_NG_VERSION"`,
        env: { COSH_NG_VERSION: '99.0.0' },
      },
      'config',
    );
    const result = await firstValueFrom(processExecutor()(hook, preToolUse('s1')).pipe(resultOnly()));
    if (result.outcome !== 'ok') throw new Error(JSON.stringify(result));
    expect(result.output.hookSpecificOutput).toStrictEqual({ v: COSH_CORE_VERSION });
  });
});

describe('configured values no process can be given are configuration errors, not hooks that never start', () => {
  // 132,000 bytes in 66,000 characters: over the limit in bytes, and short enough for the TOML locator.
  const BIG = 'é'.repeat(66_000);
  const config = [
    '[[hooks.PreToolUse]]',
    'name = "nul-command"',
    'command = "echo a\\u0000b"',
    '',
    '[[hooks.PreToolUse]]',
    'name = "nul-env"',
    'command = "true"',
    'env = { A = "x\\u0000y" }',
    '',
    '[[hooks.PreToolUse]]',
    'name = "big-env"',
    'command = "true"',
    `env = { B = "${BIG}" }`,
    '',
    '[[hooks.PreToolUse]]',
    'name = "big-command"',
    `command = "echo ${BIG}"`,
    '',
  ].join('\n');

  it('config.toml: validate lists each with its line and field (exit 1); run exits 2', async () => {
    const box = sandbox(config);
    try {
      const validated = await cli(['validate', ...box.flags]);
      expect(validated.code).toBe(1);
      const file = box.path('config.toml');
      expect(validated.stdout.split('\n').filter((line) => line.startsWith('error:'))).toStrictEqual([
        `error: ${file}:3: hooks.PreToolUse[0].command: contains a NUL byte, which no process can be given`,
        `error: ${file}:8: hooks.PreToolUse[1].env.A: contains a NUL byte, which no process can be given`,
        `error: ${file}:13: hooks.PreToolUse[2].env.B: 132002 bytes with its name; the system refuses a variable or argument of 128 KiB or more`,
        `error: ${file}:17: hooks.PreToolUse[3].command: 132005 bytes; the system refuses a variable or argument of 128 KiB or more`,
      ]);
      const ran = await cli(['run', ...box.flags], { input: '' });
      expect(ran.code).toBe(2);
    } finally {
      box.remove();
    }
  });

  it('a manifest: that extension is not loaded, with a warning naming the field', async () => {
    const box = sandbox('');
    try {
      const folder = box.path('extensions/bad');
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'cosh-extension.json'),
        JSON.stringify({
          name: 'bad',
          hooks: {
            Stop: [{ hooks: [{ type: 'command', name: 'h', command: 'true', env: { A: 'x\u0000' } }] }],
          },
        }),
      );
      const validated = await cli(['validate', ...box.flags, '--extensions-dir', box.path('extensions')]);
      expect(validated.stdout).toContain('extension not loaded: 1 problem in its manifest');
      expect(validated.stdout).toContain(
        'hooks.Stop[0].hooks[0].env.A: contains a NUL byte, which no process can be given',
      );
    } finally {
      box.remove();
    }
  });

  it('Claude Code settings (--claude-settings, import): an error naming the field', async () => {
    const box = sandbox('');
    try {
      const settings = box.write(
        'settings.json',
        JSON.stringify({
          hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'echo a\u0000b' }] }] },
        }),
      );
      const message = `error: ${settings}:1: hooks.PreToolUse[0].hooks[0].command: contains a NUL byte, which no process can be given`;
      const validated = await cli(['validate', ...box.flags, '--claude-settings', settings]);
      expect([validated.code, validated.stdout.split('\n')[0]]).toStrictEqual([1, message]);
      const imported = await cli(['import', 'claude', settings]);
      expect([imported.code, imported.stderr.split('\n')[0]]).toStrictEqual([1, message]);
      expect(imported.stdout).not.toContain('echo');
    } finally {
      box.remove();
    }
  });

  it('defineHooks throws a HookDefinitionError naming event, position, hook and field', () => {
    expect(() => defineHooks({ Stop: [{ name: 'h', command: 'echo \u0000' }] })).toThrow(
      'Stop[0] (hook "h"): command: contains a NUL byte, which no process can be given',
    );
    expect(() => defineHooks({ Stop: [{ name: 'h', command: 'true', env: { A: BIG } }] })).toThrow(
      'Stop[0] (hook "h"): env.A: 132002 bytes with its name; the system refuses a variable or argument of 128 KiB or more',
    );
  });
});
