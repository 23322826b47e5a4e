import { filter, type Observable, type OperatorFunction, type Unsubscribable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import type { HookResult } from '../protocol/result.js';
import type { CommandHook } from '../registry/hook.js';

/**
 * What a running hook process reports before its result:
 * - `exited`: the process ended; its result follows within the executor's short stdout drain.
 *   The hook's deadline stops here: a hook that exits in time is never a `timeout`.
 * - `stderr`: the first non-blank line of its stderr so far, the block reason a `fail_closed`
 *   hook gets if it then times out (SPEC §4.5).
 */
export type HookProgress =
  { readonly progress: 'exited' } | { readonly progress: 'stderr'; readonly firstLine: string };

/** Everything an executor emits: progress notices, then exactly one result. */
export type HookEmission = HookResult | HookProgress;

export const isProgress = (emission: HookEmission): emission is HookProgress => 'progress' in emission;

export const isResult = (emission: HookEmission): emission is HookResult => !('progress' in emission);

/**
 * The executor port: runs one command hook for one event. Cold (nothing starts before subscribe),
 * emits optional progress notices then exactly one classified result, completes, never errors,
 * and on unsubscribe kills whatever it started. The pipeline only knows this type;
 * `src/exec/execa-executor` is the real one and `cosh-hooks/testing` has a fake.
 */
export type HookExecutor = (hook: CommandHook, event: HookEvent) => Observable<HookEmission>;

/** Drops progress notices: for callers that only want an executor's result. */
export const resultOnly = (): OperatorFunction<HookEmission, HookResult> => filter(isResult);

/** One run's view of an executor that keeps processes across events: `unsubscribe` ends them. */
export interface ExecutorRun extends Unsubscribable {
  readonly executor: HookExecutor;
}

/**
 * An executor holding state whose lifetime is one run of the engine (persistent hook processes,
 * SPEC §8). The pipeline calls `openRun` when a run starts and unsubscribes it when the run ends
 * (end of input, unsubscribe, `close()`). Called directly, outside a run, it still works: each
 * call then owns what it starts.
 */
export type RunScopedExecutor = HookExecutor & { readonly openRun: () => ExecutorRun };

/** The executor for one run: a run-scoped executor's own, or a plain executor as it is. */
export const openRun = (executor: HookExecutor): ExecutorRun =>
  'openRun' in executor && typeof executor.openRun === 'function'
    ? (executor as RunScopedExecutor).openRun()
    : { executor, unsubscribe: () => undefined };
