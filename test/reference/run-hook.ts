/*
 * REFERENCE COPY (issue 37, stage 0) of `src/chain/run-hook.ts` on main @ 0e9ce46: verbatim but for
 * the import paths (DirectObserver: the copy beside it). The oracle the composed engine is checked
 * against, frame for frame, by test/unit/reference/*.test.ts. Never edit it to make a test pass.
 */
/**
 * Running one hook of a chain: the executor port under the hook's deadlines (its own time, and the
 * wait for its turn), with the event in the hook's dialect. Not an operator: `runHooks` (operators/)
 * maps a chain through it, and `runObservers` runs observers with it.
 */
import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { HookEvent } from '../../src/events/codecs.js';
import { exceptionFailure, isResult, type HookEmission, type HookExecutor } from '../../src/exec/port.js';
import { failure, queueTimeoutFailure, timeoutFailure, type HookResult } from '../../src/protocol/result.js';
import type { Hook } from '../../src/registry/hook.js';
import { DirectObserver } from './direct-observer.js';

/** What running hooks needs from the outside world. */
export interface RunDeps {
  /** The executor port: runs every hook, command or function (`processExecutor()`, `fakeExecutor`). */
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
}

/** Which deadline runs: the hook's own (`run`), the wait for its turn (`queue`), or none any more. */
type Phase = 'run' | 'queue' | 'done';

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
 *   `queued` counts only as the executor's first emission (the port's contract): a late one never
 *   restarts a deadline, so an executor cannot buy its hook more time by announcing a wait.
 *
 * The engine being busy is not the hook's time: a deadline timer that runs late (the event loop was
 * busy with other work) waits as long again as it was late, and any deadline is judged one turn of
 * I/O after it passed, so a result that had already arrived is taken, not turned into a timeout.
 * Either failure unsubscribes the hook, which cancels it (a process group is killed).
 *
 * A hook that answers while it is subscribed (a function hook returning a plain value) never arms a
 * timer: the deadline is set only once the subscription returned without a result. Written by hand
 * rather than as a chain of operators: about ten operators per hook were most of an in-process
 * hook's cost (docs/performance.md, row 4c).
 *
 * ```
 * executor: -q---s-------r|     q = queued, s = started, r = result; timeout 8
 * output:   -------------(r|)   the wait (frames 1–5) is not the hook's: r at 5+8 is in time
 * ```
 */
export const runHook = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  new Observable<HookResult>((subscriber) => {
    const { scheduler } = deps;
    let stderrFirstLine: string | undefined;
    let phase: Phase = 'run';
    let queuedFor = '';
    let emissions = 0;
    let finished = false;
    let subscribing = true;
    let deadline: Subscription | undefined;
    // Set once the executor's subscription returned; a result during it is handled after.
    let running: Subscription | undefined = undefined;

    const finish = (result: HookResult): void => {
      if (finished) return;
      finished = true;
      deadline?.unsubscribe();
      running?.unsubscribe();
      subscriber.next(result);
      subscriber.complete();
    };

    /** `result` after `ms` of the engine's time, plus the time the timer ran late, plus one turn. */
    const arm = (): void => {
      deadline?.unsubscribe();
      deadline = undefined;
      if (phase === 'done') return;
      const ms = hook.timeoutMs;
      const due = scheduler.now() + ms;
      const failed =
        phase === 'queue'
          ? () => queueTimeoutFailure(ms, queuedFor)
          : () => timeoutFailure(ms, stderrFirstLine);
      const timer = scheduler.schedule(() => {
        timer.add(scheduler.schedule(() => finish(failed()), Math.max(0, scheduler.now() - due)));
      }, ms);
      deadline = timer;
    };

    const enter = (next: Phase): void => {
      if (next === phase) return;
      phase = next;
      // While subscribing, the deadline is armed once the subscription returned (if still needed).
      if (!subscribing) arm();
    };

    const onEmission = (emission: HookEmission): void => {
      if (finished) return;
      if (isResult(emission)) return finish(emission);
      // A stderr notice is kept for the timeout's message and moves nothing.
      if (emission.progress === 'stderr') {
        stderrFirstLine = emission.firstLine;
        return;
      }
      const first = emissions === 0;
      emissions += 1;
      if (emission.progress === 'queued') {
        if (!first) return;
        queuedFor = emission.waitingFor;
        enter('queue');
      } else enter(emission.progress === 'started' ? 'run' : 'done');
    };

    const source = deps.executor(hook, event);
    running = source.subscribe(
      new DirectObserver<HookEmission>({
        next: onEmission,
        error: (error: unknown) => finish(exceptionFailure(error)),
        complete: () => finish(failure('exception', 'completed without a result')),
      }),
    );
    subscribing = false;
    if (finished) running.unsubscribe();
    else arm();
    return () => {
      finished = true;
      deadline?.unsubscribe();
      running?.unsubscribe();
    };
  });
