import {
  concatMap,
  concatWith,
  connect,
  defer,
  filter,
  groupBy,
  map,
  merge,
  mergeMap,
  finalize,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import { observerDroppedRecord, observerResultRecord } from '../src/audit/build.js';
import type { AuditEventIds, ObserverDroppedRecord, ObserverResultRecord } from '../src/audit/records.js';
import type { HookEvent } from '../src/events/codecs.js';
import type { HookDecision } from '../src/output/lines.js';
import { redactedEvent, redactResult } from '../src/protocol/redact/index.js';
import type { Hook } from '../src/registry/hook.js';
import { runHook, type RunDeps } from '../src/chain/run-hook.js';
import { translateDialect } from '../src/chain/translate-dialect.js';

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

interface Task {
  readonly hook: Hook;
  readonly observation: Observation;
}

/** The event an observer receives: the admitted event plus `cosh_decision` (the decision line minus `type`). */
export const observedEvent = (event: HookEvent, decision: HookDecision): HookEvent => {
  const { type: _line, ...decided } = decision;
  return { ...event, [DECISION_FIELD]: decided } as unknown as HookEvent;
};

const runObserver = (task: Task, deps: RunDeps): Observable<ObserverResultRecord> =>
  defer(() => {
    const { hook, observation } = task;
    const startedAt = deps.scheduler.now();
    const sent = observedEvent(observation.event, observation.decision);
    return translateDialect(hook, sent, (one, event) =>
      runHook(one, one.redact === true ? redactedEvent(event) : event, deps),
    ).pipe(
      map((result) =>
        observerResultRecord(observation.ids, hook, redactResult(result), startedAt, deps.scheduler.now()),
      ),
    );
  });

/** Events a full lane turned away since its last report: reported as one `observer_dropped`. */
interface Drops {
  readonly first: Task;
  readonly last: Task;
  readonly count: number;
}

interface Admission {
  readonly task: Task;
  readonly run: boolean;
  /** The drops to report now: before this event runs, or when the lane ends. */
  readonly report?: Drops;
}

/**
 * One observer's lane: one event at a time, at most `limit` held; past that the newest is dropped.
 * Drops are reported together, as one record, when the lane next takes an event or ends: an
 * overloaded observer costs the audit one record per burst, not one per event.
 */
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
        map((task): Admission => {
          if (held >= limit) {
            total += 1;
            drops = { first: drops?.first ?? task, last: task, count: (drops?.count ?? 0) + 1 };
            return { task, run: false };
          }
          held += 1;
          const report = drops;
          drops = undefined;
          return report === undefined ? { task, run: true } : { task, run: true, report };
        }),
        connect((admissions$) =>
          merge(
            admissions$.pipe(
              concatMap(({ report }) => (report === undefined ? [] : [reportOf(report)])),
              concatWith(defer(() => (drops === undefined ? [] : [reportOf(drops)]))),
            ),
            admissions$.pipe(
              filter((admission) => admission.run),
              concatMap(({ task }) => runObserver(task, deps).pipe(finalize(() => (held -= 1)))),
            ),
          ),
        ),
      );
    });

/**
 * Runs observer hooks (docs/audit.md) for decided events and emits what happened as audit records.
 * Each observer has its own lane: its events run one at a time, in decision order, each under the
 * observer's timeout, with the event plus `cosh_decision`. A lane holds at most `limit` events
 * (the one running included); an event arriving at a full lane is dropped for that observer (the
 * newest is dropped, the queue is kept). Drops are reported as one `observer_dropped` record per
 * burst (its first event's ids, how many, the last `seq`, the running total), when the lane next
 * takes an event or when the observations end. An observer's
 * answer is recorded and never acted on; its failure is an `observer_result` and nothing else.
 * Observers of one event run concurrently with each other and with later events' chains.
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
  (deps: RunDeps, limit: number = DEFAULT_OBSERVER_QUEUE): OperatorFunction<Observation, ObserverRecord> =>
  (observations$) =>
    observations$.pipe(
      concatMap((observation) => observation.observers.map((hook): Task => ({ hook, observation }))),
      groupBy((task) => task.hook),
      mergeMap((tasks$) => tasks$.pipe(lane(Math.max(1, limit), deps))),
    );
