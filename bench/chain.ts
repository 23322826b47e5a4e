import { processExecutor } from '../src/exec/process-executor.js';
import { defaultDeps } from '../src/pipeline/pipeline.js';
import { defineHooks } from '../src/registry/define.js';
import { INLINE_SH_ALLOW, preToolUse, stdinLine } from './fixtures.js';
import { commandHook, medianCell, rawSeries, type Context, type Measured } from './measurement.js';
import { runBare, runThroughExecutor } from './per-hook.js';
import { drivePipeline } from './pipeline-driver.js';
import { ratio, summarize } from './stats.js';
import { interleave, timed } from './timing.js';

const CHAIN_LENGTH = 3;

/**
 * Measurement 2: one PreToolUse event whose chain has three command hooks, end to end through
 * `hookPipeline` with the real executor (event in, decision out), against three bare spawns of the
 * same command in a loop.
 */
export const measureChain = async (context: Context): Promise<Measured> => {
  const counts = context.quick ? { warmup: 3, iterations: 20 } : { warmup: 15, iterations: 150 };
  const names = Array.from({ length: CHAIN_LENGTH }, (_, i) => `chain-${i + 1}`);
  const registry = defineHooks({ PreToolUse: names.map((name) => ({ name, command: INLINE_SH_ALLOW })) });
  const executor = processExecutor();
  const driver = drivePipeline(registry, defaultDeps(executor));
  const hooks = names.map((name) => commandHook(name, INLINE_SH_ALLOW));
  let n = 0;
  context.log(`2 chain of ${CHAIN_LENGTH} hooks: ${counts.iterations} pairs`);
  try {
    const samples = await interleave(counts, {
      baseline: () =>
        timed(async () => {
          const input = stdinLine(preToolUse(context.fixtures.dir, ++n));
          for (let i = 0; i < CHAIN_LENGTH; i++) await runBare('/bin/sh', ['-c', INLINE_SH_ALLOW], input);
        }),
      // The same three hooks through the executor alone, to split the overhead into executor and pipeline.
      executorLoop: () =>
        timed(async () => {
          const event = preToolUse(context.fixtures.dir, ++n);
          for (const hook of hooks) await runThroughExecutor(executor, hook, event);
        }),
      subject: () =>
        timed(async () => {
          const decision = await driver.send(preToolUse(context.fixtures.dir, ++n));
          const ran = decision.hooks.filter((hook) => hook.outcome === 'ok').length;
          if (decision.decision !== 'allow' || ran !== CHAIN_LENGTH) {
            throw new Error(`unexpected decision: ${JSON.stringify(decision)}`);
          }
        }),
    });
    const subject = summarize(samples.subject);
    const baseline = summarize(samples.baseline);
    const executorLoop = summarize(samples.executorLoop);
    const medianRatio = ratio(subject.median, baseline.median);
    return {
      rows: [
        {
          id: '2',
          what: `chain of ${CHAIN_LENGTH} inline sh hooks per event, event in → decision out`,
          subject: medianCell(subject, 'ms'),
          baseline: medianCell(baseline, 'ms'),
          ratio: medianRatio,
          target: { op: '<=', limit: 1.2, unit: '×' },
          checked: medianRatio,
        },
        {
          id: '2b',
          what: `same ${CHAIN_LENGTH} hooks through the executor in a loop, no pipeline (splits the overhead of 2)`,
          subject: medianCell(executorLoop, 'ms'),
          baseline: medianCell(baseline, 'ms'),
          ratio: ratio(executorLoop.median, baseline.median),
        },
      ],
      raw: {
        '2': {
          unit: 'ms per event',
          command: INLINE_SH_ALLOW,
          subject: rawSeries(samples.subject),
          executorLoop: rawSeries(samples.executorLoop),
          baseline: rawSeries(samples.baseline),
          ratioOfMedians: medianRatio,
        },
      },
    };
  } finally {
    driver.close();
  }
};
