/*
 * REFERENCE COPY (issue 37, stage 0) of `operators/runObservers.ts` on main @ 0e9ce46: verbatim but for
 * the import paths (runHook and DirectObserver: the copies beside it). The oracle the composed engine is checked
 * against, frame for frame, by test/unit/reference/*.test.ts. Never edit it to make a test pass.
 */
import { map, defer, Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { observerDroppedRecord, observerResultRecord } from '../../src/audit/build.js';
import type { AuditEventIds, ObserverDroppedRecord, ObserverResultRecord } from '../../src/audit/records.js';
import type { HookEvent } from '../../src/events/codecs.js';
import type { HookDecision } from '../../src/output/lines.js';
import { redactedEvent, redactResult } from '../../src/protocol/redact/index.js';
import { failure } from '../../src/protocol/result.js';
import type { Hook } from '../../src/registry/hook.js';
import { runHook, type RunDeps } from './run-hook.js';
import { translateDialect } from '../../src/chain/translate-dialect.js';
import { DirectObserver } from './direct-observer.js';

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
  readonly first: Observation;
  last: Observation;
  count: number;
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
  readonly waiting: Observation[];
  running: Subscription | undefined;
  /** The event running and when it started: what an interruption records. */
  current: { readonly observation: Observation; readonly startedAt: number } | undefined;
}

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
 * Written by hand (docs/performance.md, "Hand-written hot paths"): composed (`concatMap` into
 * tasks, `groupBy`, a lane's `map` and `connect` with two `concatMap`s) it cost about 2 µs per
 * observed event, even for one a full lane drops. Its spec checks it against that composed form.
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
    new Observable<ObserverRecord>((subscriber) => {
      const bound = Math.max(1, limit);
      // By hook, in the order observers were first met (the order their end-of-run reports come in).
      const lanes = new Map<Hook, Lane>();
      let observationsDone = false;

      const report = (lane: Lane, batch: Drops): void =>
        subscriber.next(
          observerDroppedRecord(
            batch.first.ids,
            lane.hook,
            batch.count,
            lane.total,
            batch.last.ids.seq,
            bound,
            deps.scheduler.now(),
          ),
        );

      const idle = (): boolean => {
        for (const lane of lanes.values()) if (lane.held > 0) return false;
        return true;
      };

      const completeIfDone = (): void => {
        if (observationsDone && idle()) subscriber.complete();
      };

      /** Starts the lane's waiting events in order while they end at once; returns when one runs. */
      const advance = (lane: Lane): void => {
        while (lane.running === undefined && lane.waiting.length > 0 && !subscriber.closed) {
          const observation = lane.waiting.shift() as Observation;
          lane.current = { observation, startedAt: deps.scheduler.now() };
          // A DirectObserver is the subscription itself: closed once the run ended while subscribing.
          const run = runObserver(lane.hook, observation, deps).subscribe(
            new DirectObserver<ObserverResultRecord>({
              next: (record) => subscriber.next(record),
              error: (error: unknown) => subscriber.error(error),
              complete: () => {
                lane.held -= 1;
                lane.current = undefined;
                if (lane.running !== undefined) {
                  lane.running = undefined;
                  advance(lane);
                  completeIfDone();
                }
              },
            }),
          );
          if (!run.closed) lane.running = run;
        }
      };

      const offer = (lane: Lane, observation: Observation): void => {
        if (lane.held >= bound) {
          // A counter and two references: a full lane is what an overloaded observer hits per event.
          lane.total += 1;
          if (lane.drops === undefined) lane.drops = { first: observation, last: observation, count: 1 };
          else {
            lane.drops.last = observation;
            lane.drops.count += 1;
          }
          return;
        }
        lane.held += 1;
        const batch = lane.drops;
        lane.drops = undefined;
        if (batch !== undefined) report(lane, batch);
        lane.waiting.push(observation);
        advance(lane);
      };

      const laneOf = (hook: Hook): Lane => {
        let lane = lanes.get(hook);
        if (lane === undefined) {
          lane = {
            hook,
            held: 0,
            total: 0,
            drops: undefined,
            waiting: [],
            running: undefined,
            current: undefined,
          };
          lanes.set(hook, lane);
        }
        return lane;
      };

      const fromObservations = new DirectObserver<Observation>({
        next: (observation) => {
          try {
            for (const hook of observation.observers) {
              if (subscriber.closed) return;
              offer(laneOf(hook), observation);
            }
          } catch (error) {
            subscriber.error(error);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          observationsDone = true;
          try {
            for (const lane of lanes.values()) {
              const batch = lane.drops;
              lane.drops = undefined;
              if (batch !== undefined && !subscriber.closed) report(lane, batch);
            }
          } catch (error) {
            return subscriber.error(error);
          }
          completeIfDone();
        },
      });
      /**
       * The run is being stopped (a signal, a lost stdout): each running observer is stopped and
       * recorded as cut short, each waiting event counted as dropped, so that no observer run ends
       * without a record. Then the output completes.
       */
      const interrupt = (): void => {
        for (const lane of lanes.values()) {
          const running = lane.current;
          lane.running?.unsubscribe();
          lane.running = undefined;
          lane.current = undefined;
          if (running !== undefined && !subscriber.closed)
            subscriber.next(
              observerResultRecord(
                running.observation.ids,
                lane.hook,
                failure('signal', 'cut short: the run was stopped before the observer answered'),
                running.startedAt,
                deps.scheduler.now(),
              ),
            );
          const waiting = lane.waiting.splice(0);
          const batch = lane.drops;
          lane.drops = undefined;
          if (batch !== undefined && !subscriber.closed) report(lane, batch);
          const first = waiting[0];
          const last = waiting.at(-1);
          if (first !== undefined && last !== undefined && !subscriber.closed) {
            lane.total += waiting.length;
            report(lane, { first, last, count: waiting.length });
          }
          lane.held = 0;
        }
        observationsDone = true;
        if (!subscriber.closed) subscriber.complete();
      };
      if (interrupt$ !== undefined) subscriber.add(interrupt$.subscribe(interrupt));
      subscriber.add(fromObservations);
      observations$.subscribe(fromObservations);
      return () => {
        for (const lane of lanes.values()) {
          lane.running?.unsubscribe();
          lane.running = undefined;
          lane.waiting.length = 0;
        }
      };
    });
