import { catchError, concatMap, delay, map, mergeMap, of, switchMap, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createSession,
  registryOf,
  SessionClosedError,
  type EventInput,
  type HookEvent,
  type OutputLine,
  type Registry,
} from 'cosh-hooks';
import type { HookResult } from 'cosh-hooks/executors';
import { commandHook, createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';

const shell = (id: string, command: string, session = 's1') => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: session,
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

/** A line in a word: `note <message>`, `<seq> <decision> <tool_use_id>`, or `error <index> <message>`. */
const label = (line: OutputLine): string => {
  if (line.type === 'stream_event') return `note ${line.event.message}`;
  if (line.type === 'hook_error') return `error ${line.index} ${line.message}`;
  return `${line.seq} ${line.decision} ${line.tool_use_id ?? ''}`.trim();
};

const labelled = (lines$: Observable<OutputLine>): Observable<string> => lines$.pipe(map(label));

const guardThenAudit: Registry = registryOf((event) =>
  event === 'PreToolUse' ? [commandHook('guard'), commandHook('audit')] : [],
);

const commandOf = (event: HookEvent): string =>
  'tool_input' in event ? String(event.tool_input['command']) : '';

describe('createSession: a host loop in virtual time', () => {
  it("mixes the host's own operators (delay, concatMap) with decide; seq counts across calls", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const allow = cold('--(r|)', { r: results.allow() });
      const block = cold('--(r|)', { r: results.block('no') });
      const audit = cold('-(r|)', { r: results.none() });
      const guard = (event: HookEvent) => (commandOf(event).startsWith('rm') ? block : allow);
      const session = createSession(guardThenAudit, testDeps(scheduler, fakeExecutor({ guard, audit })));
      const events$ = hot('-a---b---|', { a: shell('t1', 'ls'), b: shell('t2', 'rm -rf /') });

      // The host's loop: it takes 2 frames to prepare each event, then waits for its decision.
      const loop$ = events$.pipe(
        delay(2),
        concatMap((event) => session.decide(event)),
      );

      // a: delayed to 3, guard 3→5, audit 5→6: decision 1 at 6.
      // b: delayed to 7, guard blocks at 9: its notification and decision 2 at 9; audit never runs.
      expectObservable(labelled(loop$)).toBe('------A--(nB|)', {
        A: '1 allow t1',
        n: 'note no',
        B: '2 block t2',
      });
      expectSubscriptions(allow.subscriptions).toBe(['---^-!']);
      expectSubscriptions(block.subscriptions).toBe(['-------^-!']);
      expectSubscriptions(audit.subscriptions).toBe(['-----^!']);
    });
  });

  it('cancels the running hook when the host unsubscribes (switchMap), and the next event starts at once', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const slow = cold('-----(r|)', { r: results.allow() });
      const quick = cold('-(r|)', { r: results.allow() });
      const audit = cold('(r|)', { r: results.none() });
      const guard = (event: HookEvent) => (commandOf(event) === 'slow' ? slow : quick);
      const session = createSession(guardThenAudit, testDeps(scheduler, fakeExecutor({ guard, audit })));
      const events$ = hot('a--b---|', { a: shell('t1', 'slow'), b: shell('t2', 'ls') });

      const loop$ = events$.pipe(switchMap((event) => session.decide(event)));

      // t1 is cancelled at 3 (its seq, 1, stays used); t2 runs from 3 and is decided at 4 as seq 2.
      expectObservable(labelled(loop$)).toBe('----B--|', { B: '2 allow t2' });
      expectSubscriptions(slow.subscriptions).toBe(['^--!']);
      expectSubscriptions(quick.subscriptions).toBe(['---^!']);
      expectSubscriptions(audit.subscriptions).toBe(['----(^!)']);
    });
  });

  it('an unsubscribed decide stops its hook and never starts the rest of its chain', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const hung = cold<HookResult>('-');
      const audit = cold('(r|)', { r: results.none() });
      const session = createSession(
        guardThenAudit,
        testDeps(scheduler, fakeExecutor({ guard: hung, audit })),
      );

      expectObservable(labelled(session.decide(shell('t1', 'ls'))), '^---!').toBe('-');
      expectSubscriptions(hung.subscriptions).toBe(['^---!']);
      expectSubscriptions(audit.subscriptions).toBe([]);
    });
  });

  it('queues decides subscribed together (mergeMap): an event waits for the decision before it', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const first = cold('---(r|)', { r: results.allow() });
      const second = cold('-(r|)', { r: results.block('no') });
      const guard = (event: HookEvent) => (commandOf(event) === 'one' ? first : second);
      const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard })));
      const events$ = hot('(ab)', { a: shell('t1', 'one'), b: shell('t2', 'two') });

      const loop$ = events$.pipe(mergeMap((event) => session.decide(event)));

      expectObservable(labelled(loop$)).toBe('---A(nB)', { A: '1 allow t1', n: 'note no', B: '2 block t2' });
      expectSubscriptions(first.subscriptions).toBe(['^--!']);
      expectSubscriptions(second.subscriptions).toBe(['---^!']);
    });
  });

  it('20,000 decides queued behind a running one, each answered at once when its turn comes: no recursion', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const slow = cold('--(r|)', { r: results.allow() });
      const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard: slow })));
      const stop = (id: number) => ({
        hook_event_name: 'Stop' as const,
        session_id: 's1',
        tool_use_id: `q${id}`,
      });
      const decisions$ = of(shell('t0', 'ls'), ...Array.from({ length: 20_000 }, (_, id) => stop(id))).pipe(
        mergeMap((event) => session.decide(event)),
        toArray(),
        map((lines) => [lines.length, label(lines[0]!), label(lines[1]!), label(lines[20_000]!)]),
      );
      expectObservable(decisions$).toBe('--(a|)', {
        a: [20_001, '1 allow t0', '2 none q0', '20001 none q19999'],
      });
    });
  });

  it("with concurrency 'per-session', events of different sessions run side by side", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const slow = cold('---(r|)', { r: results.allow() });
      const quick = cold('-(r|)', { r: results.allow() });
      const guard = (event: HookEvent) => (commandOf(event) === 'slow' ? slow : quick);
      const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard })), {
        concurrency: 'per-session',
      });
      const events$ = hot('(abc)', {
        a: shell('t1', 'slow', 's1'),
        b: shell('t2', 'quick', 's2'),
        c: shell('t3', 'quick', 's1'),
      });

      const loop$ = events$.pipe(mergeMap((event) => session.decide(event)));

      // s2's event overtakes s1's slow one; s1's second event waits for its first.
      expectObservable(labelled(loop$)).toBe('-B-AC', { A: '1 allow t1', B: '2 allow t2', C: '3 allow t3' });
      expectSubscriptions(slow.subscriptions).toBe(['^--!']);
      expectSubscriptions(quick.subscriptions).toBe(['^!', '---^!']);
    });
  });

  it('answers an invalid event with one hook_error value and completes; seq is not used up', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const session = createSession(
        registryOf(() => []),
        testDeps(scheduler, fakeExecutor({})),
      );
      const events$ = hot('a-b-c-|', {
        a: shell('t1', 'ls'),
        b: { hook_event_name: 'PreToolUse', session_id: 's1' } as EventInput, // no tool_name: checked at run time
        c: shell('t3', 'ls'),
      });

      const loop$ = events$.pipe(concatMap((event) => session.decide(event)));

      expectObservable(labelled(loop$)).toBe('a-b-c-|', {
        a: '1 none t1',
        b: 'error 2 tool_name: missing required field (expected a string)',
        c: '2 none t3',
      });
    });
  });

  it('close() errors the running and the queued decides, stops their hooks, and every later decide', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const hung = cold<HookResult>('-');
      const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard: hung })));
      const closing = cold('--c').subscribe(() => session.close());
      const events$ = hot('(ab)--c', { a: shell('t1', 'ls'), b: shell('t2', 'ls'), c: shell('t3', 'ls') });

      const outcomes$ = events$.pipe(
        mergeMap((event) =>
          session
            .decide(event)
            .pipe(
              catchError((error: unknown) =>
                of(error instanceof SessionClosedError ? `closed: ${error.message}` : 'other error'),
              ),
            ),
        ),
      );

      expectObservable(outcomes$.pipe(map((line) => (typeof line === 'string' ? line : label(line))))).toBe(
        '--(xy)c',
        {
          x: 'closed: the session was closed before the decision',
          y: 'closed: the session was closed before the decision',
          c: 'closed: the session is closed',
        },
      );
      expectSubscriptions(hung.subscriptions).toBe(['^-!']);
      scheduler.schedule(() => {
        expect(session.closed).toBe(true);
        closing.unsubscribe();
      }, 10);
    });
  });
});
