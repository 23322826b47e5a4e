import { from, type Observable } from 'rxjs';
import { concatMapInline } from '../operators/concatMapInline.js';
import { admitEvents } from '../operators/admitEvents.js';
import { parseLines } from '../operators/parseLines.js';
import { matchHooks } from '../operators/matchHooks.js';
import { performance } from 'node:perf_hooks';
import type { EventInput, HookEvent } from '../src/events/codecs.js';
import { admit, JsonLine, readInput } from '../src/events/input.js';
import { parseJson } from '../src/events/untrusted.js';
import { decodeEvent, type EventDefaults } from '../src/events/decode.js';
import { processExecutor } from '../src/exec/process-executor.js';
import { toDecision } from '../src/output/lines.js';
import { aggregate } from '../src/protocol/aggregate.js';
import { defaultDeps, hookPipeline } from '../src/pipeline/pipeline.js';
import { chainFor } from '../src/registry/chain.js';
import { defineHooks } from '../src/registry/define.js';
import type { Registry } from '../src/registry/hook.js';
import { mixedEvent } from './fixtures.js';
import { stockEngine } from './stock-engine.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { formatNumber } from './report.js';
import { median, pairedRatios, ratio, summarizeRates, type Summary } from './stats.js';
import { interleaveIsolated, type IsolatedProbe } from './isolated.js';
import { interleave } from './timing.js';

/**
 * A registry as a real configuration has it: a guard on one tool. None of the benchmark's events
 * uses that tool, so every event takes the no-hook path, after its matcher was tested.
 */
export const unmatchedRegistry = (): Registry =>
  defineHooks({ PreToolUse: [{ name: 'deploy-guard', command: 'true', matcher: '^deploy$' }] });

/** Events per second of `count` events through `hookPipeline`, synchronously from an array. */
const throughPipeline =
  (registry: Registry, events: readonly unknown[]): (() => number) =>
  () => {
    const deps = defaultDeps(processExecutor());
    let answered = 0;
    const start = performance.now();
    hookPipeline(
      registry,
      deps,
    )(from(events as readonly EventInput[])).output$.subscribe((line) => {
      if (line.type === 'hook_decision' && line.decision === 'none') answered += 1;
    });
    const elapsed = performance.now() - start;
    if (answered !== events.length) throw new Error(`${answered} of ${events.length} events decided`);
    return events.length / (elapsed / 1000);
  };

/** Events per second of `count` events through `stockEngine` (the floor of 3a and 3d). */
const throughStock =
  (registry: Registry, events: readonly unknown[]): (() => number) =>
  () => {
    const deps = defaultDeps(processExecutor());
    let answered = 0;
    const start = performance.now();
    stockEngine(
      registry,
      deps,
    )(from(events as readonly EventInput[])).subscribe((line) => {
      if (line.decision === 'none') answered += 1;
    });
    const elapsed = performance.now() - start;
    if (answered !== events.length) throw new Error(`${answered} of ${events.length} events decided`);
    return events.length / (elapsed / 1000);
  };

/**
 * Where the loops put each result. A result that never leaves the loop lets the JIT inline the
 * function and drop the allocation (escape analysis), which would make the floor faster than any
 * caller that uses the value; storing it in a heap object, as the pipeline hands it on, prevents
 * that.
 */
const sink: { value: unknown } = { value: undefined };

/** The loop the issue asks for: the same decode and aggregate functions, nothing else. */
const decodeAggregateLoop =
  (events: readonly unknown[], defaults: EventDefaults): (() => number) =>
  () => {
    let decided = 0;
    const start = performance.now();
    for (const value of events) {
      const decoded = decodeEvent(value, defaults);
      if (decoded.ok) {
        sink.value = aggregate([]);
        decided += 1;
      }
    }
    const elapsed = performance.now() - start;
    if (decided !== events.length) throw new Error(`${decided} of ${events.length} events decoded`);
    return events.length / (elapsed / 1000);
  };

/**
 * The floor of the object path since events are data (docs/protocol.md): a host's object is
 * admitted as the engine's own plain-data copy (`admit`: the copy that refuses getters, `toJSON`,
 * cycles…, then `decodeEvent` on it) and the empty aggregate. The same function the pipeline
 * admits with, nothing else.
 */
const admitAggregateLoop =
  (events: readonly unknown[], defaults: EventDefaults): (() => number) =>
  () => {
    let decided = 0;
    const start = performance.now();
    for (const value of events) {
      const admitted = admit(readInput(value), defaults);
      if (admitted.ok) {
        sink.value = aggregate([]);
        decided += 1;
      }
    }
    const elapsed = performance.now() - start;
    if (decided !== events.length) throw new Error(`${decided} of ${events.length} events admitted`);
    return events.length / (elapsed / 1000);
  };

/**
 * The floor of the JSON-lines path: each line's text parsed and the value decoded, and the empty
 * aggregate, as `decodeAggregateLoop` does for objects.
 */
const parseDecodeLoop =
  (lines: readonly JsonLine[], defaults: EventDefaults): (() => number) =>
  () => {
    let decided = 0;
    const start = performance.now();
    for (const line of lines) {
      const parsed = parseJson(line.text);
      if (!parsed.ok) continue;
      const decoded = decodeEvent(parsed.value, defaults);
      if (decoded.ok) {
        sink.value = aggregate([]);
        decided += 1;
      }
    }
    const elapsed = performance.now() - start;
    if (decided !== lines.length) throw new Error(`${decided} of ${lines.length} lines decoded`);
    return lines.length / (elapsed / 1000);
  };

/**
 * Every piece of per-event work the pipeline does, in a plain loop: decode, chain lookup (matcher
 * included), aggregate, decision line. What the pipeline costs beyond this is RxJS itself.
 */
const fullWorkLoop =
  (registry: Registry, events: readonly unknown[], defaults: EventDefaults): (() => number) =>
  () => {
    let seq = 0;
    const start = performance.now();
    for (const value of events) {
      const decoded = decodeEvent(value, defaults);
      if (!decoded.ok) continue;
      const chain = chainFor(registry, decoded.value);
      if (chain.length === 0) sink.value = toDecision(++seq, decoded.value, aggregate([]));
    }
    const elapsed = performance.now() - start;
    if (seq !== events.length) throw new Error(`${seq} of ${events.length} events decided`);
    return events.length / (elapsed / 1000);
  };

/** Nanoseconds per event through a partial pipeline built by `build`, counting what comes out. */
const throughStages =
  (events: readonly unknown[], build: (input: Observable<unknown>) => Observable<unknown>): (() => number) =>
  () => {
    let out = 0;
    const start = performance.now();
    build(from(events)).subscribe(() => (out += 1));
    const elapsed = performance.now() - start;
    if (out !== events.length) throw new Error(`${out} of ${events.length} events came out`);
    return (elapsed * 1e6) / events.length;
  };

/** The probes of rows 3a, 3b, 3d and 3e, each built in its own worker (`interleaveIsolated`). */
type NoHookProbe =
  | 'pipeline'
  | 'stock'
  | 'decodeAggregate'
  | 'admitAggregate'
  | 'fullWork'
  | 'linesPipeline'
  | 'linesStock'
  | 'parseDecode';

export interface NoHookProbeOptions {
  readonly probe: NoHookProbe;
  /** The fixtures folder (the events' `cwd`). */
  readonly dir: string;
  readonly batch: number;
}

/** Builds one probe of measurement 3 with its own events: what `bench/probe-worker.ts` calls. */
export const probe = (options: NoHookProbeOptions): (() => number) => {
  const events: HookEvent[] = Array.from({ length: options.batch }, (_, n) => mixedEvent(options.dir, n));
  const registry = unmatchedRegistry();
  const defaults = defaultDeps(processExecutor());
  // The same events as `cosh-hooks run` hands them to the pipeline: numbered lines of JSON text.
  const lines = () => events.map((event, n) => new JsonLine(n + 1, JSON.stringify(event)));
  switch (options.probe) {
    case 'pipeline':
      return throughPipeline(registry, events);
    case 'stock':
      return throughStock(registry, events);
    case 'linesStock':
      return throughStock(registry, lines());
    case 'decodeAggregate':
      return decodeAggregateLoop(events, defaults);
    case 'admitAggregate':
      return admitAggregateLoop(events, defaults);
    case 'fullWork':
      return fullWorkLoop(registry, events, defaults);
    case 'linesPipeline':
      return throughPipeline(registry, lines());
    case 'parseDecode':
      return parseDecodeLoop(lines(), defaults);
  }
};

const rateCell = (summary: Summary) =>
  `${formatNumber(summary.median)} ev/s (p95 low ${formatNumber(summary.p95)})`;

/**
 * Measurement 3: events that match no hook, through `hookPipeline` with `defaultDeps`, against plain
 * loops. Each of them runs in a worker thread of its own (`interleaveIsolated`), so none is compiled
 * for what the others or the measurements before fed the shared functions. Rates are per round of
 * `batch` events; the "p95" of a rate is its 5th percentile (the slow tail), so it is reported as
 * "p95 low". The stage breakdown (3c, information) runs its prefixes side by side in this thread.
 */
export const measureNoHook = async (context: Context): Promise<Measured> => {
  const batch = context.quick ? 20_000 : 100_000;
  const counts = context.quick ? { warmup: 2, iterations: 5 } : { warmup: 3, iterations: 15 };
  const events: HookEvent[] = Array.from({ length: batch }, (_, n) => mixedEvent(context.fixtures.dir, n));
  const registry = unmatchedRegistry();
  const defaults = defaultDeps(processExecutor());
  context.log(
    `3 events without hooks: ${counts.iterations} rounds of ${batch} events, objects and lines, each probe in its own worker`,
  );
  const isolated = (name: NoHookProbe): IsolatedProbe => ({
    module: new URL(import.meta.url),
    options: { probe: name, dir: context.fixtures.dir, batch } satisfies NoHookProbeOptions,
  });
  const samples = await interleaveIsolated(counts, {
    pipeline: isolated('pipeline'),
    stock: isolated('stock'),
    decodeAggregate: isolated('decodeAggregate'),
    admitAggregate: isolated('admitAggregate'),
    fullWork: isolated('fullWork'),
    linesPipeline: isolated('linesPipeline'),
    linesStock: isolated('linesStock'),
    parseDecode: isolated('parseDecode'),
  });
  // Where the pipeline's time goes: the same events through growing prefixes of it.
  context.log(`3 stage breakdown: ${counts.iterations} rounds`);
  const stages = await interleave(counts, {
    admit: throughStages(events, (input) => input.pipe(parseLines(), admitEvents(defaults))),
    match: throughStages(events, (input) =>
      input.pipe(parseLines(), admitEvents(defaults), matchHooks(registry)),
    ),
    decide: throughStages(events, (input) =>
      input.pipe(
        parseLines(),
        admitEvents(defaults),
        matchHooks(registry),
        // What the pipeline does with an event whose chain is empty.
        concatMapInline((job) =>
          job.kind === 'event' ? [toDecision(job.seq, job.event, aggregate([]))] : [],
        ),
      ),
    ),
    pipeline: throughStages(
      events,
      (input) => hookPipeline(registry, defaults)(input as Observable<EventInput>).output$,
    ),
  });
  const ns = (list: readonly number[]) => median(list);
  const stageNs = {
    admit: ns(stages.admit),
    match: ns(stages.match) - ns(stages.admit),
    decide: ns(stages.decide) - ns(stages.match),
    share: ns(stages.pipeline) - ns(stages.decide),
  };
  const pipeline = summarizeRates(samples.pipeline);
  const stock = summarizeRates(samples.stock);
  const linesStock = summarizeRates(samples.linesStock);
  const decodeAggregate = summarizeRates(samples.decodeAggregate);
  const admitAggregate = summarizeRates(samples.admitAggregate);
  const fullWork = summarizeRates(samples.fullWork);
  const linesPipeline = summarizeRates(samples.linesPipeline);
  const parseDecode = summarizeRates(samples.parseDecode);
  // Ratios of costs (time per event), so "1.5×" reads "the pipeline takes 1.5 times as long". The
  // targets' ratios are the median of each round's ratio (subject and floor ran next to each
  // other), which a load that changes during the run moves less than a ratio of medians.
  const costRatio = median(pairedRatios(samples.stock, samples.pipeline));
  const admitRatio = median(pairedRatios(samples.admitAggregate, samples.pipeline));
  const decodeOnlyRatio = median(pairedRatios(samples.decodeAggregate, samples.pipeline));
  const rxRatio = ratio(fullWork.median, pipeline.median);
  const linesRatio = median(pairedRatios(samples.linesStock, samples.linesPipeline));
  const parseRatio = median(pairedRatios(samples.parseDecode, samples.linesPipeline));
  return {
    rows: [
      {
        id: '3a',
        what: 'events without a matching hook through `hookPipeline` vs the same shape from stock RxJS operators (`stockEngine`: parseLines, admitEvents, matchHooks, concatMap to runHooks, stopOnBlock, foldDecision)',
        subject: rateCell(pipeline),
        baseline: rateCell(stock),
        ratio: costRatio,
        target: { op: '<=', limit: 1.5, unit: '×' },
        checked: costRatio,
      },
      {
        id: '3f',
        what: "same, vs loop of `admit` (the plain-data copy of a host's object + `decodeEvent`) + `aggregate` (3a's floor before issue 37)",
        subject: rateCell(pipeline),
        baseline: rateCell(admitAggregate),
        ratio: admitRatio,
      },
      {
        id: '3e',
        what: "same, vs loop of `decodeEvent` + `aggregate` on the host's object as it is (3a's floor before events were copied at admission)",
        subject: rateCell(pipeline),
        baseline: rateCell(decodeAggregate),
        ratio: decodeOnlyRatio,
      },
      {
        id: '3b',
        what: 'same, vs loop doing all the per-event work (+ `chainFor`, `toDecision`): the cost of RxJS',
        subject: rateCell(pipeline),
        baseline: rateCell(fullWork),
        ratio: rxRatio,
      },
      {
        id: '3d',
        what: 'same on JSON lines as `cosh-hooks run` hands them in (`JsonLine`) vs `stockEngine` on the same lines',
        subject: rateCell(linesPipeline),
        baseline: rateCell(linesStock),
        ratio: linesRatio,
        target: { op: '<=', limit: 1.5, unit: '×' },
        checked: linesRatio,
      },
      {
        id: '3g',
        what: "same lines vs loop of `parseJson` + `decodeEvent` + `aggregate` (3d's floor before issue 37)",
        subject: rateCell(linesPipeline),
        baseline: rateCell(parseDecode),
        ratio: parseRatio,
      },
      {
        id: '3c',
        what: 'where the pipeline time goes, ns per event (prefixes of the pipeline, medians)',
        subject: `admitEvents (decode) ${stageNs.admit.toFixed(0)}, + matchHooks ${stageNs.match.toFixed(0)}, + concatMapInline to the decision ${stageNs.decide.toFixed(0)}, + share/output$ ${stageNs.share.toFixed(0)}`,
        baseline: `decode + aggregate loop ${(1e9 / decodeAggregate.median).toFixed(0)}; all work in a loop ${(1e9 / fullWork.median).toFixed(0)}`,
      },
    ],
    raw: {
      '3': {
        unit: 'events/s per round',
        batch,
        ratioIsCostPerEvent: 'subject time per event / baseline time per event',
        pipeline: rawSeries(samples.pipeline, pipeline),
        stockEngine: rawSeries(samples.stock, stock),
        linesStockEngine: rawSeries(samples.linesStock, linesStock),
        decodeAggregateLoop: rawSeries(samples.decodeAggregate, decodeAggregate),
        admitAggregateLoop: rawSeries(samples.admitAggregate, admitAggregate),
        fullWorkLoop: rawSeries(samples.fullWork, fullWork),
        linesPipeline: rawSeries(samples.linesPipeline, linesPipeline),
        parseDecodeLoop: rawSeries(samples.parseDecode, parseDecode),
        stagesNsPerEvent: {
          admit: rawSeries(stages.admit),
          match: rawSeries(stages.match),
          decide: rawSeries(stages.decide),
          pipeline: rawSeries(stages.pipeline),
        },
        nsPerEvent: {
          pipeline: 1e9 / pipeline.median,
          decodeAggregateLoop: 1e9 / decodeAggregate.median,
          fullWorkLoop: 1e9 / fullWork.median,
        },
      },
    },
  };
};
