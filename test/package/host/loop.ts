// A host project's marble tests (run with node:test by test/package/consumer.test.ts, in a scratch
// project that installed the packed tarball next to its own rxjs). The host's own rxjs operators
// (delay, timer) must run in the same virtual time as the package's: with two rxjs copies they
// would not (the host's delay would emit nothing).
import { test } from 'node:test';
import { concatMap, delay, filter, map, timer } from 'rxjs';
import { createSession, hookPipeline, isDecision, registryOf, type HookEvent } from 'cosh-hooks';
import { concatMapByKey } from 'cosh-hooks/operators';
import { commandHook, createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';

const shell = (id: string, command: string, session = 's1') => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: session,
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

const commandOf = (event: HookEvent): string =>
  'tool_input' in event ? String(event.tool_input['command']) : '';

const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));

test("the host's delay and the session's hooks share virtual time; seq counts across decides", () => {
  const scheduler = createTestScheduler();
  scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
    const allow = cold('--(r|)', { r: results.allow() });
    const block = cold('--(r|)', { r: results.block('no') });
    const guard = (event: HookEvent) => (commandOf(event).startsWith('rm') ? block : allow);
    const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard })));
    const events$ = hot('-a---b|', { a: shell('t1', 'ls'), b: shell('t2', 'rm -rf /') });

    const loop$ = events$.pipe(
      delay(100),
      concatMap((event) => session.decide(event)),
      filter(isDecision),
      map((d) => `${d.seq} ${d.decision} ${d.tool_use_id ?? ''}`),
    );

    expectObservable(loop$).toBe('103ms a---(b|)', { a: '1 allow t1', b: '2 block t2' });
    expectSubscriptions(allow.subscriptions).toBe(['101ms ^-!']);
    expectSubscriptions(block.subscriptions).toBe(['105ms ^-!']);
  });
});

test("the pipeline's decisions through the host's timer and the package's concatMapByKey", () => {
  const scheduler = createTestScheduler();
  scheduler.run(({ cold, hot, expectObservable }) => {
    const guard = cold('-(r|)', { r: results.allow() });
    const events$ = hot('a-b|', { a: shell('t1', 'ls', 's1'), b: shell('t2', 'ls', 's2') });
    const { decisions$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({ guard })))(events$);

    // The host acts on each decision, one at a time per session, each action taking 10 ms.
    const actions$ = decisions$.pipe(
      concatMapByKey(
        (d) => d.session_id,
        (d) => timer(10).pipe(map(() => `ran ${d.tool_use_id ?? ''}`)),
      ),
    );

    expectObservable(actions$).toBe('- 10ms a-(b|)', { a: 'ran t1', b: 'ran t2' });
  });
});
