import { takeWhile, type MonoTypeOperatorFunction } from 'rxjs';
import { endsChain } from '../src/chain/hook-run.js';
import type { HookRun } from '../src/protocol/aggregate.js';

/**
 * Passes hook runs through and completes right after the first one whose effective decision is
 * `block` (inclusive `takeWhile`). Placed after `runHooks`, it unsubscribes from the chain, so
 * later hooks are never started. On events that cannot be blocked nothing is effectively `block`,
 * so every hook runs.
 *
 * ```
 * runs:    --a--B--c--|      B = effective block
 * output:  --a--(B|)
 * ```
 *
 * Example: `from(chain).pipe(runHooks(event, deps), stopOnBlock())`
 */
export const stopOnBlock = (): MonoTypeOperatorFunction<HookRun> => takeWhile((run) => !endsChain(run), true);
