import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, from, lastValueFrom, toArray, asyncScheduler } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runHook } from '../../operators/runHooks.js';
import type { HookEvent } from '../../src/events/codecs.js';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor } from '../../src/exec/index.js';
import type { HookDecision } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks, type HookDefinition } from '../../src/registry/define.js';
import { commandHook } from '../../src/testing/index.js';

/*
 * A hook's timeout is its own time (docs/execution.md, "Deadlines"): waiting for a process slot or
 * for the spawn helper does not count against it and is bounded on its own (`queue_timeout`); a
 * result that arrived while the engine was busy is never a timeout; one session's huge event does
 * not hold another session's guard past its deadline.
 */

const scratch = mkdtempSync(join(tmpdir(), 'cosh-time-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const event = (session: string, command: string): HookEvent => {
  const decoded = decodeEvent(
    {
      hook_event_name: 'PreToolUse',
      session_id: session,
      cwd: scratch,
      tool_name: 'Bash',
      tool_input: { command },
    },
    { now: () => new Date(Date.UTC(2026, 0, 1)), cwd: () => scratch },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

/** A guard that blocks a command containing `rm -rf` and allows the rest, reading the event whole. */
const GUARD = `if grep -q 'rm -rf'; then echo '{"decision":"block","reason":"guard: rm -rf"}'; else echo '{"decision":"allow"}'; fi`;

/** Every decision of `events` through `hooks`, per-session concurrency, by session id. */
const decide = async (
  hooks: HookDefinition[],
  events: HookEvent[],
  executor: ReturnType<typeof processExecutor>,
): Promise<Record<string, Pick<HookDecision, 'decision' | 'reason'> & { outcomes: string[] }>> => {
  const registry = defineHooks({ PreToolUse: hooks });
  const decisions = await lastValueFrom(
    hookPipeline(registry, defaultDeps(executor), { concurrency: 'per-session' })(
      from(events),
    ).decisions$.pipe(toArray()),
  );
  return Object.fromEntries(
    decisions.map((line) => [
      line.session_id,
      {
        decision: line.decision,
        ...(line.reason !== undefined && { reason: line.reason }),
        outcomes: line.hooks.map(
          (report) => `${report.outcome}${report.message === undefined ? '' : `: ${report.message}`}`,
        ),
      },
    ]),
  );
};

/** Blocks this process's event loop for `ms`, as a 30 MB event's synchronous work would. */
const busy = (ms: number): void => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
};

describe.each(['never', 'always'] as const)(
  "spawnHelper %s: the wait for a turn is not the hook's time",
  (mode) => {
    it('8 sessions on 4 slots, each guard 1 s of a 2 s timeout: all answer (the second round waited 1 s)', async () => {
      const guard: HookDefinition = {
        name: 'slow-guard',
        command: `sleep 1; ${GUARD}`,
        timeout: 2000,
        fail_closed: true,
      };
      const sessions = Array.from({ length: 8 }, (_, index) => `s${index}`);
      const decisions = await decide(
        [guard],
        sessions.map((session, index) => event(session, index % 2 === 0 ? 'rm -rf /' : 'ls')),
        processExecutor({ spawnHelper: mode, maxProcesses: 4 }),
      );
      expect(decisions).toStrictEqual(
        Object.fromEntries(
          sessions.map((session, index) => [
            session,
            index % 2 === 0
              ? { decision: 'block', reason: 'guard: rm -rf', outcomes: ['ok'] }
              : { decision: 'allow', outcomes: ['ok'] },
          ]),
        ),
      );
    }, 30_000);

    it('a wait for a slot that outlasts the timeout is queue_timeout, and a fail_closed guard blocks on it', async () => {
      const holder: HookDefinition = {
        name: 'holder',
        command: 'sleep 3; echo {}',
        timeout: 10_000,
        matcher: 'Write',
      };
      const guard: HookDefinition = {
        name: 'guard',
        command: GUARD,
        timeout: 300,
        fail_closed: true,
        matcher: 'Bash',
      };
      const hold = { ...event('holding', 'x'), tool_name: 'Write' } as HookEvent;
      const decisions = await decide(
        [holder, guard],
        [hold, event('guarded', 'ls')],
        processExecutor({ spawnHelper: mode, maxProcesses: 1, killGraceMs: 100 }),
      );
      expect(decisions['guarded']).toStrictEqual({
        decision: 'block',
        reason: 'hook "guard" failed closed: waited 300 ms for a process slot, never started',
        outcomes: ['queue_timeout: waited 300 ms for a process slot, never started'],
      });
      expect(decisions['holding']).toStrictEqual({ decision: 'none', outcomes: ['ok'] });
    }, 30_000);
  },
);

describe.each(['never', 'always'] as const)('spawnHelper %s: a busy engine', (mode) => {
  it('a guard that answered in time while the event loop was blocked past its deadline is not a timeout', async () => {
    const executor = processExecutor({ spawnHelper: mode });
    const deps = { executor, scheduler: asyncScheduler };
    // Warm up (the spawn helper's start is not the point here).
    await firstValueFrom(runHook(commandHook('warm', { command: GUARD }), event('warm', 'ls'), deps));
    const guard = commandHook('guard', { command: GUARD, timeout: 300, fail_closed: true });
    const result = firstValueFrom(runHook(guard, event('guarded', 'rm -rf /'), deps));
    // The guard answers within milliseconds; the engine is busy for 1.5 s (another session's event).
    busy(1500);
    expect(await result).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'block', reason: 'guard: rm -rf' },
    });
  }, 30_000);
});

describe('a huge event of one session and a small guard of another, through the spawn helper', () => {
  it("the guard answers for its own event, within its deadline, while 30 MB go to the other session's hook", async () => {
    const reader: HookDefinition = {
      name: 'reader',
      command: `wc -c | { read n; echo "{\\"decision\\":\\"allow\\",\\"reason\\":\\"$n bytes\\"}"; }`,
      timeout: 60_000,
      redact: false,
      matcher: 'Write',
    };
    const guard: HookDefinition = {
      name: 'guard',
      command: GUARD,
      timeout: 1500,
      fail_closed: true,
      matcher: 'Bash',
    };
    const huge = { ...event('huge', 'x'.repeat(30 * 1024 * 1024)), tool_name: 'Write' } as HookEvent;
    const small = event('small', 'rm -rf /');
    const decisions = await decide(
      [reader, guard],
      [huge, small],
      processExecutor({ spawnHelper: 'always' }),
    );
    expect(decisions['small']).toStrictEqual({
      decision: 'block',
      reason: 'guard: rm -rf',
      outcomes: ['ok'],
    });
    expect(decisions['huge']).toStrictEqual({
      decision: 'allow',
      reason: `${JSON.stringify(huge).length + 1} bytes`,
      outcomes: ['ok'],
    });
  }, 120_000);
});
