// docs/recipes.md, "A host loop with createSession": the marble test of the page, run here so
// that the page cannot rot (test/package/consumer.test.ts compiles it as a host would).
import { concatMap, delay, filter, map, takeUntil } from 'rxjs';
import { describe, it } from 'vitest';
import { createSession, isDecision, registryOf, type EventInput, type HookEvent } from 'cosh-hooks';
import type { HookResult } from 'cosh-hooks/executors';
import { commandHook, createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';

const shell = (id: string, command: string): EventInput => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's1',
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

describe('recipes: a host loop with createSession', () => {
  it('decides each event after the host prepared it, and stops the hook the user gave up on', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const quick = cold<HookResult>('--(r|)', { r: results.allow() });
      const hung = cold<HookResult>('-'); // never answers
      const guard = (event: HookEvent) => (JSON.stringify(event).includes('sleep') ? hung : quick);
      const registry = registryOf((event) => (event === 'PreToolUse' ? [commandHook('guard')] : []));
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard })));

      const events$ = hot('-a---b', { a: shell('t1', 'ls'), b: shell('t2', 'sleep 1000') });
      const escape$ = hot('-----------x'); // the user gives up at frame 11
      const loop$ = events$.pipe(
        delay(2), // the host prepares each event
        concatMap((event) => session.decide(event)),
        filter(isDecision),
        map((d) => `${d.seq} ${d.decision}`),
        takeUntil(escape$),
      );

      // t1: delayed to 3, guard 3→5, decided at 5. t2: delayed to 7, hangs, stopped at 11.
      expectObservable(loop$).toBe('-----a-----|', { a: '1 allow' });
      expectSubscriptions(quick.subscriptions).toBe(['---^-!']);
      expectSubscriptions(hung.subscriptions).toBe(['-------^---!']);
    });
  });
});
