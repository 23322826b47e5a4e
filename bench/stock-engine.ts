import { concatMap, EMPTY, from, last, map, type Observable } from 'rxjs';
import { admitEvents } from '../operators/admitEvents.js';
import { foldDecision } from '../operators/foldDecision.js';
import { matchHooks } from '../operators/matchHooks.js';
import { parseLines } from '../operators/parseLines.js';
import { runHooks } from '../operators/runHooks.js';
import { stopOnBlock } from '../operators/stopOnBlock.js';
import type { EventInput } from '../src/events/codecs.js';
import type { JsonLine } from '../src/events/input.js';
import { toDecision, type HookDecision } from '../src/output/lines.js';
import type { PipelineDeps } from '../src/pipeline/pipeline.js';
import type { Registry } from '../src/registry/hook.js';

/**
 * The floor of rows 3a, 3d, 4a–4c, 9a and 9b (docs/performance.md): the engine's shape built from
 * stock RxJS operators and the public operators, with the same deps (executor, scheduler) and
 * nothing else: each event parsed, admitted and matched, then `concatMap` to its chain as
 * `from(chain).pipe(runHooks, stopOnBlock, foldDecision)` and its decision line. No audit, no
 * Stop-loop guard, no error boundary, no shared outputs: what any engine of this design does per
 * event, so a ratio against it is the cost of what `hookPipeline` adds, not of RxJS itself.
 */
export const stockEngine =
  (registry: Registry, deps: PipelineDeps) =>
  (input$: Observable<EventInput | JsonLine>): Observable<HookDecision> =>
    input$.pipe(
      parseLines(),
      admitEvents(deps),
      matchHooks(registry),
      concatMap((job) =>
        job.kind !== 'event'
          ? EMPTY
          : from(job.chain).pipe(
              runHooks(job.event, deps),
              stopOnBlock(),
              foldDecision(job.chain),
              last(),
              map((step) => {
                if (step.type !== 'verdict') throw new Error('a chain ended without its verdict');
                return toDecision(job.seq, job.event, step.verdict);
              }),
            ),
      ),
    );
