/**
 * `runObservers` is written by hand; this is the composed form it replaced (docs/performance.md,
 * "Hand-written hot paths"), kept as its reference: for any observations, observers, timings and
 * queue bound, both emit the same records at the same virtual frames and end the same way.
 */
import fc from 'fast-check';
import {
  concatMap,
  concatWith,
  connect,
  defer,
  filter,
  finalize,
  groupBy,
  map,
  merge,
  mergeMap,
  of,
  type Observable,
  type OperatorFunction,
  Subject,
} from 'rxjs';
import { describe, expect, it } from 'vitest';
import { runObservers } from '../../../operators/index.js';
import { runObserver, type Observation, type ObserverRecord } from '../../../operators/runObservers.js';
import { observerDroppedRecord } from '../../../src/audit/build.js';
import type { RunDeps } from '../../../src/chain/hook-run.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookDecision } from '../../../src/output/index.js';
import type { Hook } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

interface Task {
  readonly hook: Hook;
  readonly observation: Observation;
}

interface Drops {
  readonly first: Task;
  readonly last: Task;
  readonly count: number;
}

const lane =
  (limit: number, deps: RunDeps): OperatorFunction<Task, ObserverRecord> =>
  (tasks$) =>
    defer(() => {
      let held = 0;
      let total = 0;
      let drops: Drops | undefined;
      const reportOf = (batch: Drops) =>
        observerDroppedRecord(
          batch.first.observation.ids,
          batch.first.hook,
          batch.count,
          total,
          batch.last.observation.ids.seq,
          limit,
          deps.scheduler.now(),
        );
      return tasks$.pipe(
        map((task) => {
          if (held >= limit) {
            total += 1;
            drops = { first: drops?.first ?? task, last: task, count: (drops?.count ?? 0) + 1 };
            return { task, run: false, report: undefined };
          }
          held += 1;
          const report = drops;
          drops = undefined;
          return { task, run: true, report };
        }),
        connect((admissions$) =>
          merge(
            admissions$.pipe(
              concatMap(({ report }) => (report === undefined ? [] : [reportOf(report)])),
              concatWith(defer(() => (drops === undefined ? [] : [reportOf(drops)]))),
            ),
            admissions$.pipe(
              filter((admission) => admission.run),
              concatMap(({ task }) =>
                runObserver(task.hook, task.observation, deps).pipe(finalize(() => (held -= 1))),
              ),
            ),
          ),
        ),
      );
    });

/** The composed `runObservers` (concatMap into tasks, groupBy, a lane per observer). */
const composedRunObservers =
  (deps: RunDeps, limit = 64): OperatorFunction<Observation, ObserverRecord> =>
  (observations$) =>
    observations$.pipe(
      concatMap((observation) => observation.observers.map((hook): Task => ({ hook, observation }))),
      groupBy((task) => task.hook),
      mergeMap((tasks$) => tasks$.pipe(lane(Math.max(1, limit), deps))),
    );

const event = (n: number): HookEvent => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: `echo ${n}` },
});
const decision = (seq: number): HookDecision => ({
  type: 'hook_decision',
  seq,
  hook_event_name: 'PreToolUse',
  session_id: 's',
  decision: 'allow',
  hooks: [],
});

/** An observer: how many frames it takes (0: answers while subscribed), and whether it fails. */
interface ObserverSpec {
  readonly frames: number;
  readonly fails: boolean;
}

interface Scenario {
  readonly observers: readonly ObserverSpec[];
  /** Per observation: frames after the previous one, and which observers (indexes) it meets. */
  readonly observations: readonly { readonly gap: number; readonly meets: readonly number[] }[];
  readonly limit: number;
  /** How the observations end: completion or error, this many frames after the last. */
  readonly end: { readonly gap: number; readonly error: boolean };
}

const scenario: fc.Arbitrary<Scenario> = fc
  .array(fc.record({ frames: fc.integer({ min: 0, max: 6 }), fails: fc.boolean() }), {
    minLength: 1,
    maxLength: 3,
  })
  .chain((observers) =>
    fc.record({
      observers: fc.constant(observers),
      observations: fc.array(
        fc.record({
          gap: fc.integer({ min: 0, max: 4 }),
          meets: fc.subarray(
            observers.map((_, i) => i),
            { minLength: 1 },
          ),
        }),
        { maxLength: 12 },
      ),
      limit: fc.integer({ min: 0, max: 3 }),
      end: fc.record({ gap: fc.integer({ min: 0, max: 12 }), error: fc.boolean() }),
    }),
  );

/** What an operator emits for the scenario: `frame:record` lines, then how it ended. */
const played = (
  run: (deps: RunDeps, limit: number) => OperatorFunction<Observation, ObserverRecord>,
  s: Scenario,
): string[] => {
  const scheduler = createTestScheduler();
  const seen: string[] = [];
  scheduler.run(({ cold, hot }) => {
    const hooks = s.observers.map((_, i) => commandHook(`o${i}`, { observe: true }));
    const behaviours = Object.fromEntries(
      s.observers.map((spec, i) => {
        const result = spec.fails ? results.fail('exit', 'exited with status 1') : results.none();
        return [
          `o${i}`,
          (): Observable<typeof result> =>
            spec.frames === 0 ? of(result) : cold(`${'-'.repeat(spec.frames)}(r|)`, { r: result }),
        ];
      }),
    );
    let marble = '';
    const values: Record<string, Observation> = {};
    s.observations.forEach((o, n) => {
      const key = String.fromCharCode(97 + n);
      marble += `${'-'.repeat(o.gap)}${key}`;
      values[key] = {
        ids: { seq: n + 1, hook_event_name: 'PreToolUse', session_id: 's' },
        event: event(n + 1),
        decision: decision(n + 1),
        observers: o.meets.map((i) => hooks[i]!),
      };
    });
    marble += `${'-'.repeat(s.end.gap)}${s.end.error ? '#' : '|'}`;
    const observations = hot(marble, values, new Error('gone'));
    observations.pipe(run({ executor: fakeExecutor(behaviours), scheduler }, s.limit)).subscribe({
      next: (record) => seen.push(`${scheduler.now()}:${JSON.stringify(record)}`),
      error: (error: unknown) => seen.push(`${scheduler.now()}:error ${(error as Error).message}`),
      complete: () => seen.push(`${scheduler.now()}:complete`),
    });
  });
  return seen;
};

describe('runObservers, written by hand', () => {
  it('emits exactly what the composed form emits, frame for frame, for any observations, observers and bound', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(played(runObservers, s)).toStrictEqual(played(composedRunObservers, s));
      }),
      { numRuns: 300 },
    );
  });

  it('a full lane turns a thousand events away, sent at once, and says so in one record', () => {
    const burst = (run: typeof runObservers): string[] => {
      const scheduler = createTestScheduler();
      const seen: string[] = [];
      scheduler.run(({ cold }) => {
        const hook = commandHook('o', { observe: true });
        const executor = fakeExecutor({ o: cold('-----(r|)', { r: results.none() }) });
        const observations = new Subject<Observation>();
        observations.pipe(run({ executor, scheduler }, 1)).subscribe({
          next: (record) => seen.push(`${scheduler.now()}:${record.record}:${JSON.stringify(record)}`),
          complete: () => seen.push(`${scheduler.now()}:complete`),
        });
        for (let n = 1; n <= 1000; n++) {
          observations.next({
            ids: { seq: n, hook_event_name: 'PreToolUse', session_id: 's' },
            event: event(n),
            decision: decision(n),
            observers: [hook],
          });
        }
        observations.complete();
      });
      return seen;
    };
    const out = burst(runObservers);
    expect(out).toStrictEqual(burst(composedRunObservers));
    const drops = out.filter((line) => line.includes(':observer_dropped:'));
    expect(drops).toHaveLength(1);
    expect(drops[0]).toContain('"dropped":999');
    expect(out.at(-1)).toBe('5:complete');
  });
});
