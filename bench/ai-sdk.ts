import { generateText, isStepCount, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { aiSdkHooks } from '../src/adapters/ai-sdk.js';
import { createSession } from '../src/pipeline/session.js';
import { defaultDeps } from '../src/pipeline/pipeline.js';
import { defineHooks } from '../src/registry/define.js';
import type { Registry } from '../src/registry/hook.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { formatNumber, type Row } from './report.js';
import { median, pairedRatios, summarize } from './stats.js';
import { interleave } from './timing.js';

type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls the tool once per step, `calls` times, then answers. */
const modelOf = (calls: number) => {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async (): Promise<Generated> => {
      step += 1;
      return step <= calls
        ? {
            content: [
              { type: 'tool-call', toolCallId: `t${step}`, toolName: 'shell', input: '{"command":"ls"}' },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          };
    },
  });
};

/** Milliseconds of CPU (user and system) this process has used. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Milliseconds (of wall time, or with `cpu` of CPU) for one generateText loop of `calls` tool calls: bare, or through the adapter on a
 * session of `registry`. Checks the tool ran every time (the hooks allow it).
 */
const loopRound =
  (calls: number, registry?: Registry, cpu = false): (() => Promise<number>) =>
  async () => {
    let ran = 0;
    const tools: ToolSet = {
      shell: tool({ inputSchema: z.object({ command: z.string() }), execute: async () => ++ran }),
    };
    const model = modelOf(calls);
    const session =
      registry === undefined
        ? undefined
        : createSession(registry, defaultDeps(), { concurrency: 'per-session' });
    const settings =
      session === undefined
        ? { model, tools }
        : aiSdkHooks({ session, sessionId: 'bench' }).wrap({ model, tools });
    const start = cpu ? cpuMs() : performance.now();
    await generateText({ ...settings, prompt: 'go', stopWhen: isStepCount(calls + 1) });
    const elapsed = (cpu ? cpuMs() : performance.now()) - start;
    session?.close();
    if (ran !== calls) throw new Error(`${ran} of ${calls} tool calls ran`);
    return elapsed;
  };

const functionHook = defineHooks({ PreToolUse: [{ name: 'allow', run: () => ({ decision: 'allow' }) }] });
const spawnedHook = defineHooks({ PreToolUse: [{ name: 'pass', command: 'cat >/dev/null' }] });

/**
 * Measurement 11: what the AI SDK adapter adds to each tool call of a generateText loop, against
 * the same loop without it, in the same rounds: a loop of N tool calls (one per step) bare, with an
 * in-process hook on PreToolUse, and with a spawned one (`cat >/dev/null`, through /bin/sh). Each
 * step also sends BeforeModel, AfterModel and PostToolUse, with no hooks on them.
 */
export const measureAiSdk = async (context: Context): Promise<Measured> => {
  const calls = context.quick ? 10 : 20;
  const counts = context.quick ? { warmup: 1, iterations: 3 } : { warmup: 2, iterations: 9 };
  context.log(
    `11 AI SDK adapter: ${counts.iterations} rounds of a ${calls}-tool-call loop, bare / function / spawned hook`,
  );
  const samples = await interleave(counts, {
    bare: loopRound(calls),
    fn: loopRound(calls, functionHook),
    spawned: loopRound(calls, spawnedHook),
  });
  const perCall = (series: readonly number[]) => series.map((ms) => (ms * 1000) / calls);
  const bare = perCall(samples.bare);
  const fn = perCall(samples.fn);
  const spawned = perCall(samples.spawned);
  const added = (series: readonly number[]) => summarize(series.map((us, i) => us - bare[i]!));
  const row = (id: string, what: string, series: readonly number[], raw: readonly number[]) => {
    const cost = added(series);
    return {
      id,
      what,
      subject: `${formatNumber(median(series))} µs per tool call (+${formatNumber(cost.median)} µs, p95 +${formatNumber(cost.p95)})`,
      baseline: `${formatNumber(median(bare))} µs per tool call, no adapter`,
      ratio: median(pairedRatios(raw, samples.bare)),
    };
  };
  // 11c, 11d: the CPU the adapter adds per tool call with an in-process hook, in a short and a
  // long conversation: the same in the 40th step as in the first (target ≤ 0.3 ms, flat).
  const lengths = [5, 40] as const;
  const cpuRows: Row[] = [];
  const cpuRaw: Record<string, unknown> = {};
  for (const [index, length] of lengths.entries()) {
    const cpuSamples = await interleave(counts, {
      bare: loopRound(length, undefined, true),
      fn: loopRound(length, functionHook, true),
    });
    const addedUs = cpuSamples.fn.map((ms, i) => ((ms - cpuSamples.bare[i]!) * 1000) / length);
    const cost = summarize(addedUs);
    cpuRows.push({
      id: index === 0 ? '11c' : '11d',
      what: `AI SDK tool call through the adapter, in-process hook, ${length} calls per conversation: CPU added`,
      subject: `+${formatNumber(cost.median)} µs CPU per tool call (p95 +${formatNumber(cost.p95)})`,
      baseline: `${formatNumber((median(cpuSamples.bare) * 1000) / length)} µs CPU per tool call, no adapter`,
      ratio: median(pairedRatios(cpuSamples.fn, cpuSamples.bare)),
      target: { op: '<=', limit: 300, unit: 'µs' },
      checked: cost.median,
    });
    cpuRaw[String(length)] = { bare: rawSeries(cpuSamples.bare), fn: rawSeries(cpuSamples.fn) };
  }
  return {
    rows: [
      ...cpuRows,
      row(
        '11a',
        'AI SDK tool call through the adapter, one in-process PreToolUse hook, vs no adapter',
        fn,
        samples.fn,
      ),
      row(
        '11b',
        'AI SDK tool call through the adapter, one spawned PreToolUse hook, vs no adapter',
        spawned,
        samples.spawned,
      ),
    ],
    raw: {
      '11': {
        unit: 'ms per round of `calls` tool calls',
        calls,
        bare: rawSeries(samples.bare),
        fn: rawSeries(samples.fn),
        spawned: rawSeries(samples.spawned),
      },
      '11cd': { unit: 'ms of CPU per round', ...cpuRaw },
    },
  };
};
