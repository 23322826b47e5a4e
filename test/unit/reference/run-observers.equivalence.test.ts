/**
 * The live `runObservers` (operators/) against the hand-written one of test/reference/ (issue 37,
 * stage 0), frame for frame: for 1–3 observers with generated timeouts and scripts of executor
 * emissions, observations at generated frames meeting any of them (bursts at one frame included),
 * any queue bound, observations that end or error, an `interrupt$` at any frame, deadline timers on
 * time or late, and an unsubscription at any frame, both emit the same records at the same frames,
 * end the same way, and start and stop each observer's executor at the same frames.
 */
import fc from 'fast-check';
import { timer, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { runObservers } from '../../../operators/index.js';
import type { Observation } from '../../../operators/runObservers.js';
import { runObservers as referenceRunObservers } from '../../reference/runObservers.js';
import type { HookDecision } from '../../../src/output/index.js';
import { createTestScheduler } from '../../../src/testing/index.js';
import {
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
  readonly observers: readonly HookSpec[];
  /** Per observation: frames after the previous one (0: a burst), and which observers it meets. */
  readonly observations: readonly { readonly gap: number; readonly meets: readonly number[] }[];
  readonly limit: number;
  readonly end: { readonly gap: number; readonly error: boolean };
  readonly interrupt: number | undefined;
  readonly late: number;
  readonly cut: number | undefined;
}

const scenario: fc.Arbitrary<Scenario> = fc
  .array(hookSpec, { minLength: 1, maxLength: 3 })
  .chain((observers) =>
    fc.record({
      observers: fc.constant(observers),
      observations: fc.array(
        fc.record({
          gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 })),
          meets: fc.subarray(
            observers.map((_, i) => i),
            { minLength: 1 },
          ),
        }),
        { maxLength: 10 },
      ),
      limit: fc.integer({ min: 0, max: 3 }),
      end: fc.record({ gap: fc.integer({ min: 0, max: 12 }), error: fc.boolean() }),
      interrupt: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
      late: lateness,
      cut: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    }),
  );

const decision = (seq: number): HookDecision => ({
  type: 'hook_decision',
  seq,
  hook_event_name: 'PreToolUse',
  session_id: 's',
  decision: 'allow',
  hooks: [],
});

const played = (s: Scenario, live: boolean): Recording => {
  const scheduler = createTestScheduler();
  const life: string[] = [];
  let out: string[] = [];
  scheduler.run(({ hot }) => {
    const hooks = hooksOf(s.observers, 'o');
    const scripts = new Map(hooks.map((hook, i) => [hook.name, s.observers[i]!.script]));
    const deps = {
      executor: scriptedExecutor(scripts, scheduler, life),
      scheduler: lateScheduler(scheduler, s.late),
    };
    let marble = '';
    const values: Record<string, Observation> = {};
    s.observations.forEach((o, n) => {
      const key = String.fromCharCode(97 + n);
      marble += `${'-'.repeat(o.gap)}${key}`;
      values[key] = {
        ids: { seq: n + 1, hook_event_name: 'PreToolUse', session_id: 's' },
        event: eventOf('PreToolUse'),
        decision: decision(n + 1),
        observers: o.meets.map((i) => hooks[i]!),
      };
    });
    marble += `${'-'.repeat(s.end.gap)}${s.end.error ? '#' : '|'}`;
    const observations: Observable<Observation> = hot(marble, values, new Error('gone'));
    const interrupt$ = s.interrupt === undefined ? undefined : timer(s.interrupt, scheduler);
    const run = live ? runObservers : referenceRunObservers;
    out = record(scheduler, observations.pipe(run(deps, s.limit, interrupt$)), s.cut);
  });
  return { out, life: lifetimes(life) };
};

describe('runObservers (test/reference) against the live runObservers, generated scenarios', () => {
  it('the same records at the same frames, the same end, each observer started and stopped at the same frames', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(played(s, true)).toStrictEqual(played(s, false));
      }),
      { numRuns: 250 },
    );
  });

  it('the scenarios reach drops, a cut-short observer, an error and a cut', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        for (const line of played(s, false).out) {
          if (line.includes('"record":"observer_dropped"')) seen.add('dropped');
          if (line.includes('cut short')) seen.add('interrupted');
          if (/^\d+:error /.test(line)) seen.add('error');
          if (line.endsWith(':cut')) seen.add('cut');
        }
      }),
      { numRuns: 250, seed: 37 },
    );
    expect([...seen].sort()).toStrictEqual(['cut', 'dropped', 'error', 'interrupted']);
  });
});
