import { Subject, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { guardStopLoops } from '../../../operators/guardStopLoops.js';
import type { EventInput, HookEvent } from '../../../src/events/codecs.js';
import type { HookDecision, HookNotification, OutputLine } from '../../../src/output/lines.js';
import { hookPipeline } from '../../../src/pipeline/pipeline.js';
import { createSession } from '../../../src/pipeline/session.js';
import {
  createStopLoopLedger,
  forgetSession,
  MAX_LOOPING_AGENTS,
  MAX_LOOPING_AGENTS_IN_ALL,
  MAX_LOOPING_SESSIONS,
  recordStopDecision,
  withStopHookActive,
} from '../../../src/protocol/stop-loop.js';
import { registryOf, type Hook } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

const stop = (session = 's', fields: Record<string, unknown> = {}): HookEvent =>
  ({
    hook_event_name: 'Stop' as const,
    session_id: session,
    cwd: '/',
    timestamp: '2026-07-01T10:00:00Z',
    ...fields,
  }) as HookEvent;
const subagentStop = (agent: string, session = 's'): HookEvent =>
  ({
    ...stop(session),
    hook_event_name: 'SubagentStop' as const,
    agent_id: agent,
    agent_type: 'Explore',
  }) as HookEvent;

const decisionOf = (event: HookEvent, decision: HookDecision['decision'], reason?: string): HookDecision => ({
  type: 'hook_decision',
  seq: 1,
  hook_event_name: event.hook_event_name,
  session_id: event.session_id,
  decision,
  ...(reason !== undefined && { reason }),
  hooks: [{ name: 'always-block', source: 'config', decision, outcome: 'ok', duration_ms: 0 }],
});
const hookNote: HookNotification = {
  type: 'stream_event',
  event: {
    subtype: 'hook_notification',
    hook_name: 'always-block',
    message: 'keep going',
    decision: 'block',
    hook_event_name: 'Stop' as const,
    session_id: 's',
  },
};

/** A ledger whose session `s` already has `count` blocked Stops in a row. */
const ledgerAt = (count: number, limit = 8) => {
  const ledger = createStopLoopLedger(limit);
  for (let i = 0; i < count; i += 1) recordStopDecision(ledger, stop(), { decision: 'block' });
  return ledger;
};

describe('guardStopLoops (marbles)', () => {
  it('at the limit, the block becomes pass-through, the guard notification first; the source is subscribed once', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const ledger = ledgerAt(8);
      const event = stop();
      const lines = cold<OutputLine>('--n--d---|', {
        n: hookNote,
        d: decisionOf(event, 'block', 'keep going'),
      });
      const intervention = { limit: 8, blocked: 8, overridden: { decision: 'block', reason: 'keep going' } };
      expectObservable(lines.pipe(guardStopLoops(ledger, event))).toBe('--n--(gD)|', {
        n: hookNote,
        g: {
          type: 'stream_event',
          event: {
            subtype: 'hook_notification',
            hook_name: 'cosh-hooks',
            message:
              'Stop hooks blocked the agent from stopping 8 times in a row (stop_loop_limit = 8): this block is let through so that it can stop',
            decision: 'none',
            hook_event_name: 'Stop' as const,
            session_id: 's',
            stop_loop_guard: intervention,
          },
        },
        D: {
          type: 'hook_decision',
          seq: 1,
          hook_event_name: 'Stop' as const,
          session_id: 's',
          decision: 'none',
          hooks: [
            { name: 'always-block', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 0 },
          ],
          stop_loop_guard: intervention,
        },
      });
      expectSubscriptions(lines.subscriptions).toBe('^--------!');
    });
  });

  it('below the limit a block passes unchanged and counts one more', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const ledger = ledgerAt(7);
      const event = stop();
      const d = decisionOf(event, 'block', 'again');
      expectObservable(cold<OutputLine>('-d|', { d }).pipe(guardStopLoops(ledger, event))).toBe('-d|', { d });
    });
    // After the flush: 8 in a row now, so the next Stop is told the previous one was blocked.
  });

  it('an error of the source passes through after the lines before it', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const lines = cold<OutputLine>('-n-#', { n: hookNote }, new Error('boom'));
      expectObservable(lines.pipe(guardStopLoops(ledgerAt(0), stop()))).toBe(
        '-n-#',
        { n: hookNote },
        new Error('boom'),
      );
      expectSubscriptions(lines.subscriptions).toBe('^--!');
    });
  });

  it('unsubscribing before the decision unsubscribes the source and records nothing', () => {
    const scheduler = createTestScheduler();
    const ledger = ledgerAt(8);
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const event = stop();
      const lines = cold<OutputLine>('-n---d|', { n: hookNote, d: decisionOf(event, 'block') });
      expectObservable(lines.pipe(guardStopLoops(ledger, event)), '^--!').toBe('-n-', { n: hookNote });
      expectSubscriptions(lines.subscriptions).toBe('^--!');
    });
    expect(withStopHookActive(ledger, stop())).toMatchObject({ stop_hook_active: true });
  });

  it('types: lines in, lines out', () => {
    expectTypeOf(guardStopLoops(ledgerAt(0), stop())).toEqualTypeOf<MonoTypeOperatorFunction<OutputLine>>();
  });
});

describe('the Stop-loop ledger', () => {
  it('stop_hook_active: the host may say true; the engine says true after a block; otherwise as sent', () => {
    const ledger = ledgerAt(0);
    expect(withStopHookActive(ledger, stop())).toStrictEqual(stop());
    expect(withStopHookActive(ledger, stop('s', { stop_hook_active: true }))).toStrictEqual(
      stop('s', { stop_hook_active: true }),
    );
    recordStopDecision(ledger, stop(), { decision: 'block' });
    expect(withStopHookActive(ledger, stop('s', { stop_hook_active: false }))).toStrictEqual(
      stop('s', { stop_hook_active: true }),
    );
    // Another session is not in a loop.
    expect(withStopHookActive(ledger, stop('t'))).toStrictEqual(stop('t'));
  });

  it('sub-agents loop on their own: a sub-agent that stops does not reset the main loop or another agent', () => {
    const ledger = createStopLoopLedger(2);
    recordStopDecision(ledger, stop(), { decision: 'block' });
    recordStopDecision(ledger, subagentStop('a'), { decision: 'block' });
    recordStopDecision(ledger, subagentStop('b'), { decision: 'none' });
    recordStopDecision(ledger, subagentStop('a'), { decision: 'block' });
    expect(recordStopDecision(ledger, subagentStop('a'), { decision: 'block', reason: 'r' })).toStrictEqual({
      limit: 2,
      blocked: 2,
      agent: 'a',
      overridden: { decision: 'block', reason: 'r' },
    });
    expect(withStopHookActive(ledger, stop())).toMatchObject({ stop_hook_active: true });
    expect(withStopHookActive(ledger, subagentStop('a'))).not.toHaveProperty('stop_hook_active');
  });

  it('memory: only sessions in a loop are kept, at most MAX_LOOPING_SESSIONS, the oldest forgotten first', () => {
    const ledger = createStopLoopLedger(8);
    for (let i = 0; i < MAX_LOOPING_SESSIONS + 5; i += 1)
      recordStopDecision(ledger, stop(`s${i}`), { decision: 'block' });
    expect(ledger.sessions.size).toBe(MAX_LOOPING_SESSIONS);
    expect(ledger.sessions.has('s0')).toBe(false);
    expect(ledger.sessions.has(`s${MAX_LOOPING_SESSIONS + 4}`)).toBe(true);
    for (let i = 0; i < MAX_LOOPING_SESSIONS + 5; i += 1)
      recordStopDecision(ledger, stop(`s${i}`), { decision: 'allow' });
    expect(ledger.sessions.size).toBe(0);
  });

  it('memory in bytes: 1 MB session and sub-agent ids are kept under keys of at most 128 characters', () => {
    const ledger = createStopLoopLedger(3);
    const id = (n: number) => `${n}-`.padEnd(1024 * 1024, 'x');
    for (let i = 0; i < 50; i += 1) {
      recordStopDecision(ledger, stop(id(i)), { decision: 'block' });
      recordStopDecision(ledger, subagentStop(id(i), id(i)), { decision: 'block' });
    }
    expect(ledger.sessions.size).toBe(50);
    for (const [key, loops] of ledger.sessions) {
      expect(key.length).toBeLessThanOrEqual(128);
      for (const agent of loops.agents.keys()) expect(agent.length).toBeLessThanOrEqual(128);
    }
    // The counts still follow each session and sub-agent: the 4th block of each is let through.
    recordStopDecision(ledger, stop(id(7)), { decision: 'block' });
    recordStopDecision(ledger, stop(id(7)), { decision: 'block' });
    expect(recordStopDecision(ledger, stop(id(7)), { decision: 'block' })).toMatchObject({ blocked: 3 });
    expect(recordStopDecision(ledger, stop(id(8)), { decision: 'block' })).toBeUndefined();
    recordStopDecision(ledger, subagentStop(id(9), id(9)), { decision: 'block' });
    recordStopDecision(ledger, subagentStop(id(9), id(9)), { decision: 'block' });
    expect(recordStopDecision(ledger, subagentStop(id(9), id(9)), { decision: 'block' })).toMatchObject({
      blocked: 3,
      agent: id(9),
    });
    forgetSession(ledger, id(8));
    expect(withStopHookActive(ledger, stop(id(8)))).not.toHaveProperty('stop_hook_active');
  });

  it('memory: sub-agents are bounded in all sessions together, the oldest sessions forgotten first', () => {
    const ledger = createStopLoopLedger(8);
    const sessions = Math.ceil(MAX_LOOPING_AGENTS_IN_ALL / MAX_LOOPING_AGENTS) + 3;
    for (let s = 0; s < sessions; s += 1)
      for (let a = 0; a < MAX_LOOPING_AGENTS; a += 1)
        recordStopDecision(ledger, subagentStop(`a${a}`, `s${s}`), { decision: 'block' });
    let agents = 0;
    for (const loops of ledger.sessions.values()) agents += loops.agents.size;
    expect(agents).toBeLessThanOrEqual(MAX_LOOPING_AGENTS_IN_ALL);
    expect(agents).toBe(ledger.agents);
    expect(ledger.sessions.has('s0')).toBe(false);
    expect(ledger.sessions.get(`s${sessions - 1}`)?.agents.size).toBe(MAX_LOOPING_AGENTS);
  });

  it('a limit that is not a whole number 1..1000 is the default, 8', () => {
    expect(createStopLoopLedger(0).limit).toBe(8);
    expect(createStopLoopLedger(2.5).limit).toBe(8);
    expect(createStopLoopLedger(1001).limit).toBe(8);
    expect(createStopLoopLedger(3).limit).toBe(3);
  });
});

// ----- The engine: an always-block Stop hook and an agent that runs a tool in every continuation.

const base = { cwd: '/', timestamp: '2026-07-01T10:00:00Z' };
const prompt = (session: string) => ({
  ...base,
  hook_event_name: 'UserPromptSubmit' as const,
  session_id: session,
  prompt: 'fix it',
});
const toolCall = (session: string, name: 'PreToolUse' | 'PostToolUse', n: number): EventInput =>
  ({
    ...base,
    hook_event_name: name,
    session_id: session,
    tool_use_id: `t${n}`,
    tool_name: 'shell',
    tool_input: { command: 'make test' },
    ...(name === 'PostToolUse' && { tool_response: 'ok' }),
  }) as EventInput;
const stopEvent = (session: string) => ({ ...base, hook_event_name: 'Stop' as const, session_id: session });
const sessionEnd = (session: string) => ({
  ...base,
  hook_event_name: 'SessionEnd' as const,
  session_id: session,
  reason: 'other',
});

const loopRegistry = (hooks: { stop: Hook[]; tool: Hook[] }) =>
  registryOf((name) =>
    name === 'Stop' ? hooks.stop : name === 'PreToolUse' || name === 'PostToolUse' ? hooks.tool : [],
  );

/**
 * An agent as a host runs it: a prompt, then Stop; each blocked Stop makes it continue with one
 * tool call (PreToolUse, PostToolUse) and try to stop again. Ends when a Stop is not blocked.
 */
const runAgent = (
  decide: (events$: Observable<EventInput>) => Observable<OutputLine>,
  sessions: readonly string[],
  flush: () => void,
): { readonly lines: OutputLine[]; readonly stopsSent: Record<string, number> } => {
  const input = new Subject<EventInput>();
  const lines: OutputLine[] = [];
  const stopsSent: Record<string, number> = {};
  const tools: Record<string, number> = {};
  const sendStop = (session: string) => {
    stopsSent[session] = (stopsSent[session] ?? 0) + 1;
    input.next(stopEvent(session));
  };
  let open = sessions.length;
  decide(input).subscribe((line) => {
    lines.push(line);
    if (line.type !== 'hook_decision' || line.hook_event_name !== 'Stop') return;
    const session = line.session_id;
    if (line.decision === 'block') {
      tools[session] = (tools[session] ?? 0) + 1;
      input.next(toolCall(session, 'PreToolUse', tools[session]));
      input.next(toolCall(session, 'PostToolUse', tools[session]));
      sendStop(session);
    } else {
      input.next(sessionEnd(session));
      open -= 1;
      if (open === 0) input.complete();
    }
  });
  for (const session of sessions) {
    input.next(prompt(session));
    sendStop(session);
  }
  flush();
  return { lines, stopsSent };
};

describe('the Stop-loop guard in the engine (virtual time)', () => {
  it('an always-block Stop hook with a tool call in every continuation ends after exactly 8 blocks', () => {
    const scheduler = createTestScheduler();
    const seen: unknown[] = [];
    scheduler.run(({ cold, flush }) => {
      const executor = fakeExecutor({
        'always-block': (event) => {
          seen.push((event as { stop_hook_active?: unknown }).stop_hook_active);
          return cold('--b|', { b: results.block('Tests are failing: keep working') });
        },
        'tool-audit': cold('-a|', { a: results.allow() }),
      });
      const registry = loopRegistry({
        stop: [commandHook('always-block')],
        tool: [commandHook('tool-audit')],
      });
      const { lines, stopsSent } = runAgent(
        (input) => hookPipeline(registry, testDeps(scheduler, executor))(input).output$,
        ['s'],
        flush,
      );
      const stops = lines.filter(
        (line): line is HookDecision => line.type === 'hook_decision' && line.hook_event_name === 'Stop',
      );
      expect(stops.map((line) => line.decision)).toStrictEqual([...Array<string>(8).fill('block'), 'none']);
      expect(stopsSent).toStrictEqual({ s: 9 });
      // The first Stop is not a continuation; every later one follows a block.
      expect(seen).toStrictEqual([undefined, ...Array<boolean>(8).fill(true)]);
      expect(stops[8]?.stop_loop_guard).toStrictEqual({
        limit: 8,
        blocked: 8,
        overridden: { decision: 'block', reason: 'Tests are failing: keep working' },
      });
      expect(stops[8]).not.toHaveProperty('reason');
      const guardNotes = lines.filter(
        (line) => line.type === 'stream_event' && line.event.hook_name === 'cosh-hooks',
      );
      expect(guardNotes).toHaveLength(1);
      // The notification comes right before the decision it explains.
      expect(lines.indexOf(guardNotes[0]!)).toBe(lines.indexOf(stops[8]!) - 1);
      // The tool calls of every continuation were decided, and did not reset the count.
      expect(
        lines.filter((line) => line.type === 'hook_decision' && line.hook_event_name === 'PreToolUse'),
      ).toHaveLength(8);
    });
  });

  it('the limit is an option; sessions are independent, also with per-session concurrency', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, flush }) => {
      const executor = fakeExecutor({
        'always-block': cold('--b|', { b: results.block('again') }),
        'tool-audit': cold('-a|', { a: results.allow() }),
      });
      const registry = loopRegistry({
        stop: [commandHook('always-block')],
        tool: [commandHook('tool-audit')],
      });
      const { lines, stopsSent } = runAgent(
        (input) =>
          hookPipeline(registry, testDeps(scheduler, executor), {
            stopLoopLimit: 3,
            concurrency: 'per-session',
          })(input).output$,
        ['a', 'b'],
        flush,
      );
      expect(stopsSent).toStrictEqual({ a: 4, b: 4 });
      const bySession = (session: string) =>
        lines
          .filter(
            (line): line is HookDecision =>
              line.type === 'hook_decision' && line.hook_event_name === 'Stop' && line.session_id === session,
          )
          .map((line) => line.decision);
      expect(bySession('a')).toStrictEqual(['block', 'block', 'block', 'none']);
      expect(bySession('b')).toStrictEqual(['block', 'block', 'block', 'none']);
    });
  });

  it('a new prompt resets the count, and so does a Stop that is not blocked; the session end forgets it', () => {
    const scheduler = createTestScheduler();
    const seen: unknown[] = [];
    scheduler.run(({ cold, hot, flush }) => {
      const executor = fakeExecutor({
        gate: (event) => {
          seen.push((event as { stop_hook_active?: unknown }).stop_hook_active ?? false);
          return cold('-x|', {
            x:
              (event as { last_assistant_message?: string }).last_assistant_message === 'done'
                ? results.allow()
                : results.block('no'),
          });
        },
      });
      const registry = registryOf((name) => (name === 'Stop' ? [commandHook('gate')] : []));
      const done = { ...stopEvent('s'), last_assistant_message: 'done' };
      const input = hot('abcdefghij|', {
        a: stopEvent('s'),
        b: stopEvent('s'),
        c: stopEvent('s'), // the 3rd block in a row: limit 2 lets it through
        d: stopEvent('s'), // counted from 0 again
        e: prompt('s'), // a new prompt: from 0
        f: stopEvent('s'),
        g: done, // allowed: from 0
        h: stopEvent('s'),
        i: sessionEnd('s'), // forgotten
        j: stopEvent('s'),
      });
      const out: string[] = [];
      hookPipeline(registry, testDeps(scheduler, executor), { stopLoopLimit: 2 })(input).decisions$.subscribe(
        (line) =>
          out.push(
            `${line.hook_event_name}:${line.decision}${line.stop_loop_guard === undefined ? '' : '!'}`,
          ),
      );
      flush();
      expect(out).toStrictEqual([
        'Stop:block',
        'Stop:block',
        'Stop:none!',
        'Stop:block',
        'UserPromptSubmit:none',
        'Stop:block',
        'Stop:allow',
        'Stop:block',
        'SessionEnd:none',
        'Stop:block',
      ]);
      expect(seen).toStrictEqual([false, true, true, false, false, true, false, false]);
    });
  });

  it('createSession keeps the same count across decide() calls', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, flush }) => {
      const executor = fakeExecutor({ 'always-block': cold('-b|', { b: results.block('again') }) });
      const registry = registryOf((name) => (name === 'Stop' ? [commandHook('always-block')] : []));
      const session = createSession(registry, testDeps(scheduler, executor), { stopLoopLimit: 1 });
      const out: string[] = [];
      for (let i = 0; i < 3; i += 1)
        session.decide(stopEvent('s')).subscribe((line) => {
          if (line.type === 'hook_decision') out.push(line.decision);
        });
      flush();
      expect(out).toStrictEqual(['block', 'none', 'block']);
    });
  });
});
