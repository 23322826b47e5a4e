import { filter, type Observable, type OperatorFunction, type Unsubscribable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import { describeThrown } from '../events/untrusted.js';
import { failure, type HookResult } from '../protocol/result.js';
import type { CommandHook, FunctionHook, Hook } from '../registry/hook.js';

/**
 * What a hook run reports before its result:
 * - `queued`: the hook waits for its turn and has not started; `waitingFor` says for what ("a
 *   process slot", "its process to start" through the spawn helper, "its persistent process" for
 *   a persistent hook answering an earlier request). Emitted first, if at all, when subscribing.
 *   Until `started` follows, the wait is bounded on its own (by the hook's timeout) and ends as `queue_timeout`;
 *   the hook's own deadline starts with `started`. A run that never reports `queued` started when
 *   it was subscribed.
 * - `started`: the hook's process is running, after a `queued`: its deadline starts now.
 * - `exited`: the process ended; its result follows within the executor's short stdout drain.
 *   The hook's deadline stops here: a hook that exits in time is never a `timeout`.
 * - `stderr`: the first non-blank line of its stderr so far, the block reason a `fail_closed`
 *   hook gets if it then times out (docs/protocol.md).
 */
export type HookProgress =
  | { readonly progress: 'queued'; readonly waitingFor: string }
  | { readonly progress: 'started' }
  | { readonly progress: 'exited' }
  | { readonly progress: 'stderr'; readonly firstLine: string };

/** Everything an executor emits: progress notices, then exactly one result. */
export type HookEmission = HookResult | HookProgress;

export const isProgress = (emission: HookEmission): emission is HookProgress => 'progress' in emission;

export const isResult = (emission: HookEmission): emission is HookResult => !('progress' in emission);

/**
 * The executor port: runs one hook, of any kind, for one event. Cold (nothing starts before
 * subscribe), emits optional progress notices then exactly one classified result, completes, never
 * errors, and on unsubscribe cancels whatever it started. The operators only know this type:
 * `processExecutor()` is the real one (`hookExecutor` composing processes for command hooks with the
 * in-process runner for function hooks) and `cosh-hooks/testing` has a fake.
 */
export type HookExecutor = (hook: Hook, event: HookEvent) => Observable<HookEmission>;

/**
 * Runs command hooks only, with the same contract as `HookExecutor`: the process side of the port.
 * `hookExecutor(commands)` makes it an executor for every hook kind.
 */
export type CommandExecutor = (hook: CommandHook, event: HookEvent) => Observable<HookEmission>;

/** Runs function hooks only, with the same contract as `HookExecutor`. */
export type FunctionExecutor = (hook: FunctionHook, event: HookEvent) => Observable<HookEmission>;

/** Drops progress notices: for callers that only want an executor's result. */
export const resultOnly = (): OperatorFunction<HookEmission, HookResult> => filter(isResult);

/**
 * One run's view of an executor that keeps processes across events: `unsubscribe` ends them.
 * `E` is the executor's kind, every hook kind by default.
 */
export interface ExecutorRun<
  E extends HookExecutor | CommandExecutor | FunctionExecutor = HookExecutor,
> extends Unsubscribable {
  readonly executor: E;
}

/**
 * An executor holding state whose lifetime is one run of the engine (persistent hook processes,
 * spec §8). The pipeline calls `openRun` when a run starts and unsubscribes it when the run ends
 * (end of input, unsubscribe, `close()`). Called directly, outside a run, it still works: each
 * call then owns what it starts. `E` is the executor's kind, every hook kind by default.
 */
export type RunScopedExecutor<E extends HookExecutor | CommandExecutor | FunctionExecutor = HookExecutor> =
  E & {
    readonly openRun: () => ExecutorRun<E>;
  };

/** The executor for one run: a run-scoped executor's own, or a plain executor as it is. */
export const openRun = <E extends HookExecutor | CommandExecutor | FunctionExecutor>(
  executor: E,
): ExecutorRun<E> =>
  'openRun' in executor && typeof executor.openRun === 'function'
    ? (executor as RunScopedExecutor<E>).openRun()
    : { executor, unsubscribe: () => undefined };

/**
 * The failure for a hook run that threw or errored: a function hook that threw or rejected, or an
 * executor that broke its contract by erroring. Never throws itself, whatever was thrown.
 */
export const exceptionFailure = (error: unknown): HookResult =>
  failure('exception', `threw: ${describeThrown(error)}`);
