import { concatWith, defer, map, of, tap, type OperatorFunction } from 'rxjs';
import { chainVerdict, type ChainStep } from '../src/chain/hook-run.js';
import type { HookRun } from '../src/protocol/aggregate.js';
import type { Hook } from '../src/registry/hook.js';

export type { ChainStep };

/**
 * Re-emits every hook run as it arrives and, when the runs complete, the chain's verdict
 * (spec §4.6): hooks of `chain` that did not run are reported as `skipped`.
 *
 * ```
 * runs:    --a----B|
 * output:  --a----B(V|)      V = aggregate([a, B], skipped: the rest of the chain)
 * ```
 *
 * Example: `from(chain).pipe(runHooks(event, deps), stopOnBlock(), foldDecision(chain))`
 */
export const foldDecision =
  (chain: readonly Hook[]): OperatorFunction<HookRun, ChainStep> =>
  (runs$) =>
    defer(() => {
      const runs: HookRun[] = [];
      return runs$.pipe(
        tap((run) => runs.push(run)),
        map((run): ChainStep => ({ type: 'run', run })),
        concatWith(defer(() => of(chainVerdict(chain, runs)))),
      );
    });
