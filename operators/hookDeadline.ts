import {
  catchError,
  concatWith,
  connect,
  defer,
  distinctUntilChanged,
  filter,
  map,
  merge,
  of,
  race,
  startWith,
  switchMap,
  take,
  timeout,
  timer,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { exceptionFailure, type HookEmission, type HookProgress } from '../src/exec/port.js';
import { failure, queueTimeoutFailure, timeoutFailure, type HookResult } from '../src/protocol/result.js';

/**
 * Which deadline runs: none yet (`subscribing`: the executor is being subscribed), the hook's own
 * (`run`), the wait for its turn (`queue`), or none any more (`done`).
 */
type Phase = 'subscribing' | 'run' | 'queue' | 'done';

/** Marks the end of the executor's subscription, after whatever it emitted while subscribing. */
const SUBSCRIBED = { progress: 'subscribed' } as const;
type Emission = HookEmission | typeof SUBSCRIBED;
const isAResult = (emission: Emission): emission is HookResult => !('progress' in emission);

/** What an executor that completes without a result (breaking the port's contract) yields. */
const NO_RESULT: HookResult = failure('exception', 'completed without a result');

/**
 * Reads a run's progress notices: the phase each one moves the deadline to, and what a missed
 * deadline reports (the first stderr line, what the hook waited for). One per run.
 */
const phaseNotes = (ms: number) => {
  let stderrFirstLine: string | undefined;
  let queuedFor = '';
  let notices = 0;
  let subscribed = false;
  let current: Phase = 'run';
  /** The phase a progress notice moves to; `undefined` for a stderr notice or a late `queued`. */
  const moveTo = (emission: HookProgress): Phase | undefined => {
    if (emission.progress === 'stderr') {
      stderrFirstLine = emission.firstLine;
      return undefined;
    }
    const first = notices++ === 0;
    if (emission.progress === 'queued') {
      if (!first) return undefined;
      queuedFor = emission.waitingFor;
      return 'queue';
    }
    return emission.progress === 'started' ? 'run' : 'done';
  };
  return {
    /**
     * The phase an emission moves to, `undefined` when it moves none (a result too). While the
     * executor is being subscribed, moves are only noted: a deadline starts once the subscription
     * returned (a hook that answered while subscribed never arms one; the spawn is not its time).
     */
    phaseOf: (emission: Emission): Phase | undefined => {
      if (isAResult(emission)) return undefined;
      if (emission.progress === 'subscribed') {
        subscribed = true;
        return current;
      }
      const next = moveTo(emission);
      if (next === undefined) return undefined;
      current = next;
      return subscribed ? next : undefined;
    },
    expired: (phase: 'run' | 'queue'): HookResult =>
      phase === 'queue' ? queueTimeoutFailure(ms, queuedFor) : timeoutFailure(ms, stderrFirstLine),
  };
};

const isPhase = (phase: Phase | undefined): phase is Phase => phase !== undefined;

/**
 * Puts one hook run (an executor's emissions: progress notices, then one result) under the hook's
 * deadlines, on the scheduler, and emits exactly one `HookResult`, then completes (docs/execution.md):
 * - The hook's own deadline, `ms` from its subscription (or from its `started` notice after a
 *   `queued` one) to its result or `exited` notice: missing it yields a `timeout` result carrying
 *   the first stderr line seen so far.
 * - Its wait for a turn, from a first `queued` notice to `started`, bounded by `ms` too: missing it
 *   yields `queue_timeout`. A later `queued` moves nothing: an executor cannot buy time by
 *   announcing a wait.
 * - The engine being busy is not the hook's time: a missed deadline is judged one turn later, as
 *   late again as its timer ran, so a result already in the pipe wins.
 *
 * A `timeout` per phase: each notice that moves the phase starts that phase's `timeout` afresh
 * (`switchMap`). An error or an empty completion of the executor becomes an `exception` failure.
 * The result ends the run (`take(1)`), which unsubscribes the executor: a hook that missed its
 * deadline is cancelled (a command hook's process group is killed).
 *
 * ```
 * emissions: -q---s-------r|     q = queued, s = started, r = result; ms = 8
 * output:    -------------(r|)   the wait (frames 1–5) is not the hook's: r at 5+8 is in time
 * ```
 *
 * Example: `executor(hook, event).pipe(hookDeadline(hook.timeoutMs, scheduler))`
 */
export const hookDeadline =
  (ms: number, scheduler: SchedulerLike): OperatorFunction<HookEmission, HookResult> =>
  (emissions$) =>
    defer(() => {
      const notes = phaseNotes(ms);
      const run$ = emissions$.pipe(
        catchError((error: unknown) => of(exceptionFailure(error))),
        concatWith(of(NO_RESULT)),
      );
      // `merge` subscribes in order: SUBSCRIBED follows what the executor emitted while subscribing.
      return merge<Emission[]>(run$, of(SUBSCRIBED)).pipe(
        connect((shared$) => {
          const result$ = shared$.pipe(filter(isAResult));
          const within = (phase: 'run' | 'queue'): Observable<HookResult> => {
            const due = scheduler.now() + ms;
            return result$.pipe(
              timeout({
                first: ms,
                scheduler,
                with: () =>
                  race(
                    result$,
                    timer(Math.max(0, scheduler.now() - due), scheduler).pipe(
                      map(() => notes.expired(phase)),
                    ),
                  ),
              }),
            );
          };
          return shared$.pipe(
            map(notes.phaseOf),
            filter(isPhase),
            startWith<Phase>('subscribing'),
            distinctUntilChanged(),
            switchMap((phase) => (phase === 'subscribing' || phase === 'done' ? result$ : within(phase))),
            take(1),
          );
        }),
      );
    });
