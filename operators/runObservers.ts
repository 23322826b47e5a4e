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
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import { observerDroppedRecord, observerResultRecord } from '../src/audit/build.js';
import type { AuditEventIds, ObserverDroppedRecord, ObserverResultRecord } from '../src/audit/records.js';
import type { HookEvent } from '../src/events/codecs.js';
import type { HookDecision } from '../src/output/lines.js';
import { redactResult } from '../src/protocol/redact/index.js';
import { failure } from '../src/protocol/result.js';
import type { Hook } from '../src/registry/hook.js';
import type { RunDeps } from '../src/chain/hook-run.js';
import { hookAnswer } from './runHooks.js';

/** One decided event, for its observers: what `runObservers` takes. */
export interface Observation {
  readonly ids: AuditEventIds;
  /** The event as admitted (every hook of the chain saw this one). */
  readonly event: HookEvent;
  /** The decision as the host received it. */
  readonly decision: HookDecision;
  /** The observers that apply to the event (`observersFor`). */
  readonly observers: readonly Hook[];
}

/** What `runObservers` emits: an observer's result, or a drop. */
export type ObserverRecord = ObserverResultRecord | ObserverDroppedRecord;

/** How many events one observer may hold (running + waiting) when none is configured. */
export const DEFAULT_OBSERVER_QUEUE = 64;

/** The field an observer finds the event's final decision in. */
export const DECISION_FIELD = 'cosh_decision';

/** The event an observer receives: the admitted event plus `cosh_decision` (the decision line minus `type`). */
export const observedEvent = (event: HookEvent, decision: HookDecision): HookEvent => {
  const { type: _line, ...decided } = decision;
  return { ...event, [DECISION_FIELD]: decided } as unknown as HookEvent;
};

/**
 * One observer on one decided event, as its `observer_result` record: the event plus
 * `cosh_decision`, redacted first for a `redact = true` observer, in the observer's dialect and
 * under its deadlines; the answer redacted.
 */
export const runObserver = (
  hook: Hook,
  observation: Observation,
  deps: RunDeps,
): Observable<ObserverResultRecord> =>
  defer(() => {
    const startedAt = deps.scheduler.now();
    const sent = observedEvent(observation.event, observation.decision);
    return hookAnswer(hook, sent, deps).pipe(
      map((result) =>
        observerResultRecord(observation.ids, hook, redactResult(result), startedAt, deps.scheduler.now()),
      ),
    );
  });

/** Events a full lane turned away since its last report: reported as one `observer_dropped`. */
interface Drops {
  readonly first: Observation;
  readonly last: Observation;
  readonly count: number;
}

/** One observer's lane: what it holds (running + waiting), what it turned away. */
interface Lane {
  readonly hook: Hook;
  /** Events held: the one running and those waiting. */
  held: number;
  /** Events turned away since the run began. */
  total: number;
  /** Turned away since the last report. */
  drops: Drops | undefined;
  /** Admitted events not started yet, in order. */
  readonly waiting: Observation[];
  /** The event running and when it started: what an interruption records. */
  current: { readonly observation: Observation; readonly startedAt: number } | undefined;
}

const newLane = (hook: Hook): Lane => ({
  hook,
  held: 0,
  total: 0,
  drops: undefined,
  waiting: [],
  current: undefined,
});

/** An event offered to a lane: taken (with the drops to report first), or turned away. */
interface Admission {
  readonly observation: Observation;
  readonly taken: boolean;
  readonly report: Drops | undefined;
}

/** Takes an event if the lane holds fewer than `bound`, else counts it as dropped. */
const admit = (lane: Lane, bound: number, observation: Observation): Admission => {
  if (lane.held >= bound) {
    lane.total += 1;
    const drops = lane.drops;
    lane.drops = { first: drops?.first ?? observation, last: observation, count: (drops?.count ?? 0) + 1 };
    return { observation, taken: false, report: undefined };
  }
  lane.held += 1;
  lane.waiting.push(observation);
  const report = lane.drops;
  lane.drops = undefined;
  return { observation, taken: true, report };
};

/** The lane's drops since its last report, taken out of it (none: `[]`). */
const takeDrops = (lane: Lane): Drops[] => {
  const drops = lane.drops;
  lane.drops = undefined;
  return drops === undefined ? [] : [drops];
};

/**
 * One observer's lane: each event admitted or dropped; drops reported when the lane next takes an
 * event or when its events end; the admitted ones run one at a time, in order.
 */
const runLane =
  (lane: Lane, bound: number, deps: RunDeps, dropped: (lane: Lane, batch: Drops) => ObserverRecord) =>
  (observations$: Observable<Observation>): Observable<ObserverRecord> =>
    observations$.pipe(
      map((observation) => admit(lane, bound, observation)),
      connect((admissions$) =>
        merge(
          admissions$.pipe(
            concatMap(({ report }) => (report === undefined ? [] : [dropped(lane, report)])),
            concatWith(defer(() => takeDrops(lane).map((batch) => dropped(lane, batch)))),
          ),
          admissions$.pipe(
            filter((admission) => admission.taken),
            concatMap(() =>
              defer(() => {
                const observation = lane.waiting.shift() as Observation;
                lane.current = { observation, startedAt: deps.scheduler.now() };
                return runObserver(lane.hook, observation, deps).pipe(
                  finalize(() => {
                    lane.held -= 1;
                    lane.current = undefined;
                  }),
                );
              }),
            ),
          ),
        ),
      ),
    );

/**
 * Runs observer hooks (docs/audit.md) for decided events and emits what happened as audit records.
 * Each observer has its own lane: its events run one at a time, in decision order, each under the
 * observer's timeout, with the event plus `cosh_decision`. A lane holds at most `limit` events
 * (the one running included); an event arriving at a full lane is dropped for that observer (the
 * newest is dropped, the queue is kept), which costs a counter and nothing else. Drops are reported
 * as one `observer_dropped` record per burst (its first event's ids, how many, the last `seq`, the
 * running total), when the lane next takes an event or when the observations end. An observer's
 * answer is recorded and never acted on; its failure is an `observer_result` and nothing else.
 * Observers of one event run concurrently with each other and with later events' chains. The
 * output completes once the observations have and every lane is empty; an error of the
 * observations (or of an observer's stream) is passed on at once, and unsubscribing cancels every
 * running observer. When `interrupt$` emits (the run is being stopped), every running observer is
 * stopped and recorded as cut short (`observer_result`, outcome `signal`), every waiting event is
 * reported as dropped, and the output completes: no observer run ends without a record.
 *
 * Composed: the observations become one task per observer (`concatMap`), `groupBy` observer
 * makes the lanes (`mergeMap`), and a lane admits or drops each task (`map`), reports drops and
 * runs the admitted ones one at a time (`connect`, two `concatMap`s). What a lane holds is kept in
 * its closure, which is what an interruption reads (`takeUntil(interrupt$)`, then its records).
 *
 * ```
 * observations: a-b-c-------|      o is an observer taking 5 frames, limit 2
 * o:            ^----!----!        a runs (0-5), b waits, c finds the lane full, b runs (5-10)
 * output:       -----A----B-(d|)   A, B = observer_result; d = observer_dropped for c, at the end
 * ```
 *
 * Example: `observations$.pipe(runObservers({ executor, scheduler }, 64))`
 */
export const runObservers =
  (
    deps: RunDeps,
    limit: number = DEFAULT_OBSERVER_QUEUE,
    interrupt$?: Observable<unknown>,
  ): OperatorFunction<Observation, ObserverRecord> =>
  (observations$) =>
    defer(() => {
      const bound = Math.max(1, limit);
      // By hook, in the order observers were first met (the order their reports come in).
      const lanes = new Map<Hook, Lane>();
      const dropped = (lane: Lane, batch: Drops): ObserverRecord =>
        observerDroppedRecord(
          batch.first.ids,
          lane.hook,
          batch.count,
          lane.total,
          batch.last.ids.seq,
          bound,
          deps.scheduler.now(),
        );
      const records$ = observations$.pipe(
        concatMap((observation) => observation.observers.map((hook) => ({ hook, observation }))),
        groupBy((task) => task.hook, { element: (task) => task.observation }),
        mergeMap((tasks$) => {
          const lane = newLane(tasks$.key);
          lanes.set(tasks$.key, lane);
          return tasks$.pipe(runLane(lane, bound, deps, dropped));
        }),
      );
      if (interrupt$ === undefined) return records$;
      /**
       * The run is being stopped (a signal, a lost stdout): read when `interrupt$` emits, before
       * the lanes are unsubscribed (which cancels the running observers): each running observer
       * recorded as cut short, each lane's drops and waiting events reported as dropped. So no
       * observer run ends without a record. Then the output completes.
       */
      let cut: ObserverRecord[] = [];
      const interrupted = (): ObserverRecord[] =>
        [...lanes.values()].flatMap((lane) => {
          const out: ObserverRecord[] = [];
          const running = lane.current;
          if (running !== undefined)
            out.push(
              observerResultRecord(
                running.observation.ids,
                lane.hook,
                failure('signal', 'cut short: the run was stopped before the observer answered'),
                running.startedAt,
                deps.scheduler.now(),
              ),
            );
          out.push(...takeDrops(lane).map((batch) => dropped(lane, batch)));
          const waiting = lane.waiting.splice(0);
          const first = waiting[0];
          const last = waiting.at(-1);
          if (first !== undefined && last !== undefined) {
            lane.total += waiting.length;
            out.push(dropped(lane, { first, last, count: waiting.length }));
          }
          lane.held = 0;
          return out;
        });
      return records$.pipe(
        takeUntil(interrupt$.pipe(tap(() => (cut = interrupted())))),
        concatWith(defer(() => cut)),
      );
    });
