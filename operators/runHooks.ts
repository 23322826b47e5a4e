import {
  catchError,
  concatMap,
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
  scan,
  startWith,
  switchMap,
  take,
  timer,
  type MonoTypeOperatorFunction,
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
import { redactedEvent, redactResult } from '../src/protocol/redact.js';
import { checkToolRewrites } from '../src/protocol/tool-declarations.js';
import { failure, queueTimeoutFailure, timeoutFailure, type HookResult } from '../src/protocol/result.js';
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
 * Which clock runs: the hook's own (`run`), the wait for its turn (`queue`), or none (`done`: it
 * exited, answered or completed).
 */
type Phase = 'run' | 'queue' | 'done';

interface PhaseState {
  readonly phase: Phase;
  readonly first: boolean;
}

/** A `queued` notice counts only as the first emission; `started` ends the wait; an end ends both. */
const nextPhase = ({ phase, first }: PhaseState, emission: HookEmission): PhaseState => {
  if (phase === 'done') return { phase, first: false };
  if (!isProgress(emission)) return { phase: 'done', first: false };
  switch (emission.progress) {
    case 'queued':
      return { phase: first ? 'queue' : phase, first: false };
    case 'started':
      return { phase: phase === 'queue' ? 'run' : phase, first: false };
    case 'exited':
      return { phase: 'done', first: false };
    default:
      return { phase, first: false };
  }
};

/**
 * The deadlines of one hook's emissions (docs/persistent.md#time): the hook's `timeoutMs` counts
 * from subscribe, or, when the executor says first that the hook must wait (`queued`), from its
 * `started`; the wait itself is bounded by `queueMs`. A missed deadline is one more emission, a `timeout` or a
 * `queue_timeout` failure; the first result downstream ends the run (and unsubscribes the hook).
 * As `runHook` uses it (timeoutMs = queueMs = 7):
 *
 * ```
 * executor: q---s-----R|     q = queued, s = started, R = its result
 * result:   ----------(R|)   R at 4+6 is in time: the 4 frames in the queue do not count
 * executor: q--------s-R|    (its subscription: ^------!)
 * result:   -------(Q|)      Q = queue_timeout at frame 7: the hook never started
 * ```
 */
const withDeadlines = (
  timeoutMs: number,
  queueMs: number,
  stderrFirstLine: () => string | undefined,
  scheduler: SchedulerLike,
): MonoTypeOperatorFunction<HookEmission> =>
  connect((emissions) =>
    merge(
      emissions,
      emissions.pipe(
        scan(nextPhase, { phase: 'run', first: true }),
        map(({ phase }) => phase),
        startWith<Phase>('run'),
        // An executor that completes without a result (a broken contract) leaves no clock running.
        endWith<Phase>('done'),
        distinctUntilChanged(),
        switchMap((phase): Observable<HookEmission> => {
          if (phase === 'run')
            return timer(timeoutMs, scheduler).pipe(map(() => timeoutFailure(timeoutMs, stderrFirstLine())));
          if (phase === 'queue')
            return timer(queueMs, scheduler).pipe(map(() => queueTimeoutFailure(queueMs)));
          return EMPTY;
        }),
      ),
    ),
  );

/**
 * One hook, of any kind, as a stream that always emits exactly one `HookResult` and completes: the
 * executor runs it (`deps.executor`, the port). The deadline is a timer on the scheduler, armed
 * until the first result or `exited` notice (so the stdout drain after a hook exited in time never
 * turns into a timeout); missing it unsubscribes the hook, which cancels it (a process group is
 * killed), and yields a `timeout` result carrying the stderr line seen so far. A hook that must
 * wait for its turn (`queued`, a persistent hook busy with another event) gets its own time from
 * `started`; the wait is bounded by the hook's timeout too, and missing that is `queue_timeout`.
 * An error or an empty completion of the executor (which breaks the port's contract) becomes a
 * failure.
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
      withDeadlines(hook.timeoutMs, hook.timeoutMs, () => stderrFirstLine, deps.scheduler),
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
 * Secrets (SPEC §4.7): a hook receives the event redacted unless it sets `redact = false` (the
 * redacted copy is made once per event, when the first hook that needs it starts), and every
 * result is redacted before it counts: output, failure message, fail_closed reason.
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
            runHook(one, one.redact === false ? sent : redactedEvent(sent), deps);
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
