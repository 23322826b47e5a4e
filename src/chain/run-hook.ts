/**
 * Running one hook of a chain: the executor port under the hook's deadlines (its own time, and the
 * wait for its turn), with the event in the hook's dialect. Not an operator: `runHooks` (operators/)
 * maps a chain through it, and `runObservers` runs observers with it.
 */
import {
  catchError,
  connect,
  defaultIfEmpty,
  defer,
  distinctUntilChanged,
  EMPTY,
  endWith,
  filter,
  map,
  merge,
  of,
  startWith,
  switchMap,
  take,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import {
  exceptionFailure,
  isProgress,
  isResult,
  type HookEmission,
  type HookExecutor,
  type HookProgress,
} from '../exec/port.js';
import { failure, queueTimeoutFailure, timeoutFailure, type HookResult } from '../protocol/result.js';
import type { Hook } from '../registry/hook.js';

/** What running hooks needs from the outside world. */
export interface RunDeps {
  /** The executor port: runs every hook, command or function (`processExecutor()`, `fakeExecutor`). */
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
}

type StderrNotice = Extract<HookProgress, { readonly progress: 'stderr' }>;

const isStderrNotice = (emission: HookEmission): emission is StderrNotice =>
  isProgress(emission) && emission.progress === 'stderr';

/** Which deadline runs: the hook's own (`run`), the wait for its turn (`queue`), or none any more. */
type Phase =
  | { readonly phase: 'run' }
  | { readonly phase: 'queue'; readonly waitingFor: string }
  | { readonly phase: 'done' };

const RUN: Phase = { phase: 'run' };
const DONE: Phase = { phase: 'done' };

const isQueued = (emission: HookEmission): boolean => isProgress(emission) && emission.progress === 'queued';

/** The phase an emission starts, if it starts one. */
const phaseOf = (emission: HookEmission): Phase | undefined => {
  if (isResult(emission)) return DONE;
  switch (emission.progress) {
    case 'queued':
      return { phase: 'queue', waitingFor: emission.waitingFor };
    case 'started':
      return RUN;
    case 'exited':
      return DONE;
    default:
      return undefined;
  }
};

/**
 * One hook, of any kind, as a stream that always emits exactly one `HookResult` and completes: the
 * executor runs it (`deps.executor`, the port). An error or an empty completion of the executor
 * (which breaks the port's contract) becomes a failure.
 *
 * Deadlines, on the scheduler (docs/execution.md):
 * - The hook's own: `hook.timeoutMs` from its start (its subscription, or its `started` notice
 *   after a `queued` one) to its result or `exited` notice (so the stdout drain after a hook
 *   exited in time never turns into a timeout). Missing it yields a `timeout` result carrying the
 *   stderr line seen so far.
 * - Its wait for a turn: from a `queued` notice to `started`, bounded by the hook's timeout too;
 *   missing it yields `queue_timeout`. The wait does not count against the hook's own deadline.
 *
 * The engine being busy is not the hook's time: a deadline timer that runs late (the event loop was
 * busy with other work) waits as long again as it was late, and any deadline is judged one turn of
 * I/O after it passed, so a result that had already arrived is taken, not turned into a timeout.
 * Either failure unsubscribes the hook, which cancels it (a process group is killed).
 *
 * ```
 * executor: -q---s-------r|     q = queued, s = started, r = result; timeout 8
 * output:   -------------(r|)   the wait (frames 1–5) is not the hook's: r at 5+8 is in time
 * ```
 */
export const runHook = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  defer(() => {
    let stderrFirstLine: string | undefined;
    /**
     * `result` after `ms` of the engine's time: when the timer runs late (the event loop was busy
     * elsewhere), the hook gets the time it lost once more, and in any case one more turn (a zero
     * delay on the scheduler runs after pending I/O), so an answer already waiting is read first.
     */
    const deadline = (ms: number, result: () => HookResult): Observable<HookEmission> =>
      defer(() => {
        const due = deps.scheduler.now() + ms;
        return timer(ms, deps.scheduler).pipe(
          switchMap(() => timer(Math.max(0, deps.scheduler.now() - due), deps.scheduler)),
          map(result),
        );
      });
    return deps.executor(hook, event).pipe(
      // A stderr notice is kept for the timeout's message and goes no further.
      filter((emission) => {
        if (!isStderrNotice(emission)) return true;
        stderrFirstLine = emission.firstLine;
        return false;
      }),
      connect((emissions) =>
        merge(
          emissions,
          emissions.pipe(
            // `queued` counts only as the first emission (the port's contract): a late one must not
            // restart a deadline, so an executor cannot buy its hook more time by announcing a wait.
            map((emission, index) => (index > 0 && isQueued(emission) ? undefined : phaseOf(emission))),
            filter((phase): phase is Phase => phase !== undefined),
            startWith(RUN),
            // An executor that completes without a result (a broken contract) ends the deadline too.
            endWith(DONE),
            distinctUntilChanged((a, b) => a.phase === b.phase),
            switchMap((phase) => {
              if (phase.phase === 'done') return EMPTY;
              if (phase.phase === 'queue') {
                return deadline(hook.timeoutMs, () => queueTimeoutFailure(hook.timeoutMs, phase.waitingFor));
              }
              return deadline(hook.timeoutMs, () => timeoutFailure(hook.timeoutMs, stderrFirstLine));
            }),
          ),
        ),
      ),
      filter(isResult),
      take(1),
      defaultIfEmpty<HookResult, HookResult>(failure('exception', 'completed without a result')),
      catchError((error: unknown) => of(exceptionFailure(error))),
    );
  });
