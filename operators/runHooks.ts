import {
  catchError,
  concatMap,
  defaultIfEmpty,
  defer,
  filter,
  map,
  of,
  take,
  timeout,
  type Observable,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import type { HookEvent } from '../src/events/codecs.js';
import {
  exceptionFailure,
  isProgress,
  isResult,
  type HookEmission,
  type HookExecutor,
  type HookProgress,
} from '../src/exec/port.js';
import type { HookRun } from '../src/protocol/aggregate.js';
import { effectiveDecision } from '../src/protocol/effective.js';
import { redactedEvent, redactResult } from '../src/protocol/redact/index.js';
import { checkToolRewrites } from '../src/protocol/tool-declarations.js';
import { failure, timeoutFailure, type HookResult } from '../src/protocol/result.js';
import type { Hook } from '../src/registry/hook.js';
import { translateDialect } from './translateDialect.js';

/** What running hooks needs from the outside world. */
export interface RunDeps {
  /** The executor port: runs every hook, command or function (`execaExecutor()`, `fakeExecutor`). */
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
}

type StderrNotice = Extract<HookProgress, { readonly progress: 'stderr' }>;

const isStderrNotice = (emission: HookEmission): emission is StderrNotice =>
  isProgress(emission) && emission.progress === 'stderr';

/**
 * One hook, of any kind, as a stream that always emits exactly one `HookResult` and completes: the
 * executor runs it (`deps.executor`, the port). The deadline is `timeout` on the scheduler, armed
 * until the first result or `exited` notice (so the stdout drain after a hook exited in time never
 * turns into a timeout); missing it unsubscribes the hook, which cancels it (a process group is
 * killed), and yields a `timeout` result carrying the stderr line seen so far. An error or an empty
 * completion of the executor (which breaks the port's contract) becomes a failure.
 */
export const runHook = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  defer(() => {
    let stderrFirstLine: string | undefined;
    return deps.executor(hook, event).pipe(
      // A stderr notice is kept for the timeout's message and goes no further.
      filter((emission) => {
        if (!isStderrNotice(emission)) return true;
        stderrFirstLine = emission.firstLine;
        return false;
      }),
      timeout({
        first: hook.timeoutMs,
        with: () => of<HookEmission>(timeoutFailure(hook.timeoutMs, stderrFirstLine)),
        scheduler: deps.scheduler,
      }),
      filter(isResult),
      take(1),
      defaultIfEmpty<HookResult, HookResult>(failure('exception', 'completed without a result')),
      catchError((error: unknown) => of(exceptionFailure(error))),
    );
  });

/**
 * Runs the hooks of one event's chain one after another (`concatMap`), each under its own
 * timeout, and emits a `HookRun` per hook as it finishes. A hook starts only after the previous one
 * finished; a failure is a value (outcome = failure kind), so the next hook still runs.
 *
 * Secrets (docs/protocol.md): a hook receives the event as the host sent it; one that sets
 * `redact = true` (an observer) gets a redacted copy, made once per event when the first such
 * hook starts, in which only single tokens are replaced (it never hides code). Every result is
 * redacted before it counts: output, failure message, fail_closed reason.
 *
 * ```
 * hooks:   (ab|)               a and b are hooks; b has timeout 3
 * a:       --A|                a answers at frame 2 (a's subscription: ^-!)
 * b:         ------B|          b would answer at 2+6 (b's subscription: --^--!)
 * output:  --a--(t|)           a = run of a; t = b's `timeout` run at frame 2+3
 * ```
 *
 * Example: `from(chain).pipe(runHooks(event, { executor, scheduler }))`
 */
export const runHooks =
  (event: HookEvent, deps: RunDeps): OperatorFunction<Hook, HookRun> =>
  (hooks) =>
    hooks.pipe(
      concatMap((hook) =>
        defer(() => {
          const startedAt = deps.scheduler.now();
          const run = (one: Hook, sent: HookEvent) =>
            runHook(one, one.redact === true ? redactedEvent(sent) : sent, deps);
          // The event is translated before it is redacted, and the answer read in the hook's
          // dialect before it is redacted (translateDialect reads the raw printed text).
          return translateDialect(hook, event, run).pipe(
            map(redactResult),
            map((result) =>
              event.hook_event_name === 'BeforeModel' ? checkToolRewrites(event.llm_request, result) : result,
            ),
            map((result): HookRun => ({
              hook,
              result,
              effective: effectiveDecision(event.hook_event_name, hook, result),
              durationMs: Math.max(0, Math.round(deps.scheduler.now() - startedAt)),
            })),
          );
        }),
      ),
    );
