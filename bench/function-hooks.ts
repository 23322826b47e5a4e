import { from } from 'rxjs';
import type { EventInput } from '../src/events/codecs.js';
import { performance } from 'node:perf_hooks';
import { processExecutor } from '../src/exec/process-executor.js';
import { defaultDeps, hookPipeline } from '../src/pipeline/pipeline.js';
import { defineHooks } from '../src/registry/define.js';
import type { Registry } from '../src/registry/hook.js';
import { preToolUse } from './fixtures.js';
import { stockEngine } from './stock-engine.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { formatNumber } from './report.js';
import { median, pairedRatios, summarize } from './stats.js';
import { interleave } from './timing.js';

const MANY = 10;

/** `count` in-process hooks that each allow, on PreToolUse. */
const functionHooks = (count: number): Registry =>
  defineHooks({
    PreToolUse: Array.from({ length: count }, (_, i) => ({
      name: `fn-${i + 1}`,
      run: () => ({ decision: 'allow' as const }),
    })),
  });

/**
 * Milliseconds for every event of `events` through the pipeline, or through `stockEngine` (the same
 * shape from stock RxJS operators, the floor of 4a–4c), checking each decision.
 */
const pipelineRound =
  (registry: Registry, hooks: number, events: readonly unknown[], stock = false): (() => number) =>
  () => {
    const deps = defaultDeps(processExecutor());
    const expected = hooks === 0 ? 'none' : 'allow';
    let decided = 0;
    const start = performance.now();
    const input$ = from(events as readonly EventInput[]);
    (stock ? stockEngine(registry, deps)(input$) : hookPipeline(registry, deps)(input$).decisions$).subscribe(
      (decision) => {
        if (decision.decision === expected && decision.hooks.length === hooks) decided += 1;
      },
    );
    const elapsed = performance.now() - start;
    if (decided !== events.length)
      throw new Error(`${decided} of ${events.length} events decided as expected`);
    return elapsed;
  };

/**
 * Measurement 4: the cost of an in-process function hook, per hook per event: rounds of events with
 * 10 function hooks, 1 function hook and no hook, interleaved; cost = (t10 − t0) / (10 × events),
 * per round. (t10 − t1) / (9 × events) is the marginal cost of one more hook in a chain that already
 * runs, without the per-chain set-up.
 */
export const measureFunctionHooks = async (context: Context): Promise<Measured> => {
  const batch = context.quick ? 4_000 : 20_000;
  const counts = context.quick ? { warmup: 2, iterations: 5 } : { warmup: 3, iterations: 15 };
  const events = Array.from({ length: batch }, (_, n) => preToolUse(context.fixtures.dir, n));
  context.log(`4 function hooks: ${counts.iterations} rounds of ${batch} events × 0, 1, ${MANY} hooks`);
  const samples = await interleave(counts, {
    none: pipelineRound(functionHooks(0), 0, events),
    one: pipelineRound(functionHooks(1), 1, events),
    many: pipelineRound(functionHooks(MANY), MANY, events),
    stockNone: pipelineRound(functionHooks(0), 0, events, true),
    stockOne: pipelineRound(functionHooks(1), 1, events, true),
    stockMany: pipelineRound(functionHooks(MANY), MANY, events, true),
  });
  const perHookUs = samples.many.map((many, i) => ((many - samples.none[i]!) * 1000) / (MANY * batch));
  const marginalUs = samples.many.map((many, i) => ((many - samples.one[i]!) * 1000) / ((MANY - 1) * batch));
  const stockPerHookUs = samples.stockMany.map(
    (many, i) => ((many - samples.stockNone[i]!) * 1000) / (MANY * batch),
  );
  const stockMarginalUs = samples.stockMany.map(
    (many, i) => ((many - samples.stockOne[i]!) * 1000) / ((MANY - 1) * batch),
  );
  const stockOneUs = samples.stockOne.map((ms) => (ms * 1000) / batch);
  const noneUs = samples.none.map((ms) => (ms * 1000) / batch);
  const manyUs = samples.many.map((ms) => (ms * 1000) / batch);
  const oneUs = samples.one.map((ms) => (ms * 1000) / batch);
  // Each round's event with one hook against the event without hooks measured next to it.
  const oneRatio = median(pairedRatios(samples.one, samples.none));
  // The same event with one hook through the stock shape, measured next to it: the target.
  const stockRatio = median(pairedRatios(samples.one, samples.stockOne));
  const stockPerHook = summarize(stockPerHookUs);
  const stockMarginal = summarize(stockMarginalUs);
  const perHook = summarize(perHookUs);
  const marginal = summarize(marginalUs);
  return {
    rows: [
      {
        id: '4a',
        what: `in-process function hook, cost per hook per event ((${MANY} hooks − none) / ${MANY}), vs the same in \`stockEngine\``,
        subject: `${formatNumber(perHook.median)} µs (p95 ${formatNumber(perHook.p95)})`,
        baseline: `${formatNumber(stockPerHook.median)} µs (p95 ${formatNumber(stockPerHook.p95)})`,
        ratio: median(perHookUs) / median(stockPerHookUs),
      },
      {
        id: '4c',
        what: 'an event with one function hook through `hookPipeline` vs through `stockEngine` (the same shape from stock RxJS operators; paired rounds)',
        subject: `${formatNumber(median(oneUs))} µs per event`,
        baseline: `${formatNumber(median(stockOneUs))} µs per event`,
        ratio: stockRatio,
        target: { op: '<=', limit: 1.5, unit: '×' },
        checked: stockRatio,
      },
      {
        id: '4d',
        what: "same event with one function hook vs without hooks (4c's target before issue 37)",
        subject: `${formatNumber(median(oneUs))} µs per event`,
        baseline: `${formatNumber(median(noneUs))} µs per event; with ${MANY}: ${formatNumber(median(manyUs))} µs`,
        ratio: oneRatio,
      },
      {
        id: '4b',
        what: `same, marginal: one more hook in a running chain ((${MANY} − 1) / ${MANY - 1}), vs the same in \`stockEngine\``,
        subject: `${formatNumber(marginal.median)} µs (p95 ${formatNumber(marginal.p95)})`,
        baseline: `${formatNumber(stockMarginal.median)} µs (p95 ${formatNumber(stockMarginal.p95)})`,
        ratio: median(marginalUs) / median(stockMarginalUs),
      },
    ],
    raw: {
      '4': {
        unit: 'ms per round (none/one/many), µs per hook (perHook, marginal)',
        batch,
        hooks: MANY,
        none: rawSeries(samples.none),
        one: rawSeries(samples.one),
        many: rawSeries(samples.many),
        perHookUs: rawSeries(perHookUs),
        marginalUs: rawSeries(marginalUs),
        stockNone: rawSeries(samples.stockNone),
        stockOne: rawSeries(samples.stockOne),
        stockMany: rawSeries(samples.stockMany),
      },
    },
  };
};
