/**
 * The live per-hook path (`of(hook).pipe(runHooks(event, deps))`, its result) against the
 * hand-written `runHook` of test/reference/ (issue 37, stage 0), frame for frame: for any script of
 * executor emissions (queued, started, stderr, exited, a result, an error, an empty completion, a
 * stream that never ends, an executor that throws), any timeout, deadline timers on time or late,
 * and an unsubscription at any frame, both emit the same result at the same frame, end the same
 * way, and subscribe and end the executor at the same frames. Imports only public operators.
 */
import fc from 'fast-check';
import { map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { runHooks } from '../../../operators/index.js';
import { runHook } from '../../reference/run-hook.js';
import { createTestScheduler } from '../../../src/testing/index.js';
import {
  eventName,
  eventOf,
  hookSpec,
  hooksOf,
  lateness,
  lateScheduler,
  lifetimes,
  record,
  scriptedExecutor,
  type HookSpec,
  type Recording,
} from './scenarios.js';

interface Scenario {
  readonly hook: HookSpec;
  readonly event: 'PreToolUse' | 'PostToolUse' | 'Stop';
  readonly late: number;
  readonly cut: number | undefined;
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  hook: hookSpec,
  event: eventName,
  late: lateness,
  cut: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
});

const played = (s: Scenario, live: boolean): Recording => {
  const scheduler = createTestScheduler();
  const life: string[] = [];
  let out: string[] = [];
  scheduler.run(() => {
    const [hook] = hooksOf([s.hook]);
    const executor = scriptedExecutor(new Map([[hook!.name, s.hook.script]]), scheduler, life);
    const deps = { executor, scheduler: lateScheduler(scheduler, s.late) };
    const event = eventOf(s.event);
    const result$ = live
      ? of(hook!).pipe(
          runHooks(event, deps),
          map((run) => run.result),
        )
      : runHook(hook!, event, deps);
    out = record(scheduler, result$, s.cut);
  });
  return { out, life: lifetimes(life) };
};

describe('runHook (test/reference) against runHooks, generated scenarios', () => {
  it('the same result at the same frame, the same end, the executor subscribed and ended at the same frames', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(played(s, true)).toStrictEqual(played(s, false));
      }),
      { numRuns: 300 },
    );
  });

  it('the scenarios reach every way a hook ends: answer, timeout, queue_timeout, exception, cut', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        for (const line of played(s, false).out) {
          const outcome = /"outcome":"(\w+)"/.exec(line)?.[1];
          if (outcome !== undefined) seen.add(outcome);
          if (line.endsWith(':cut')) seen.add('cut');
        }
      }),
      { numRuns: 300, seed: 37 },
    );
    expect([...seen].sort()).toStrictEqual(['cut', 'exception', 'exit', 'ok', 'queue_timeout', 'timeout']);
  });
});
