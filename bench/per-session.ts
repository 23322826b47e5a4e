import { from } from 'rxjs';
import type { EventInput } from '../src/events/codecs.js';
import { processExecutor } from '../src/exec/process-executor.js';
import { defaultDeps, hookPipeline } from '../src/pipeline/pipeline.js';
import { defineHooks } from '../src/registry/define.js';
import { preToolUse } from './fixtures.js';
import { interleaveIsolated, type IsolatedProbe } from './isolated.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { formatNumber, type Row } from './report.js';
import { median, pairedRatios } from './stats.js';

/** The two workloads: each event runs one in-process function hook, or matches no hook. */
type Workload = 'hook' | 'none';
type Concurrency = 'sequential' | 'per-session';

export interface PerSessionProbeOptions {
  readonly workload: Workload;
  readonly concurrency: Concurrency;
  /** Events go round-robin to this many sessions. */
  readonly sessions: number;
  readonly dir: string;
  readonly batch: number;
}

/**
 * One probe of measurement 11, built in its own worker (`interleaveIsolated`): CPU microseconds
 * per event for a batch of PreToolUse events through `hookPipeline` in one concurrency mode, each
 * decision checked. CPU time of the process, not wall time: one probe runs at a time, and a busy
 * machine makes a round wait, not work more.
 */
export const probe = (options: PerSessionProbeOptions): (() => number) => {
  const registry = defineHooks(
    options.workload === 'hook'
      ? { PreToolUse: [{ name: 'allow', run: () => ({ decision: 'allow' as const }) }] }
      : {},
  );
  const hooks = options.workload === 'hook' ? 1 : 0;
  const expected = hooks === 0 ? 'none' : 'allow';
  const events: EventInput[] = Array.from({ length: options.batch }, (_, n) => ({
    ...preToolUse(options.dir, n),
    session_id: `bench-session-${n % options.sessions}`,
  }));
  return () => {
    let decided = 0;
    const start = process.cpuUsage();
    hookPipeline(registry, defaultDeps(processExecutor()), { concurrency: options.concurrency })(
      from(events),
    ).decisions$.subscribe((decision) => {
      if (decision.decision === expected && decision.hooks.length === hooks) decided += 1;
    });
    const used = process.cpuUsage(start);
    if (decided !== events.length)
      throw new Error(`${decided} of ${events.length} events decided as expected`);
    return (used.user + used.system) / events.length;
  };
};

const CASES = [
  { id: '14a', workload: 'hook', sessions: 1, target: 1.2 },
  { id: '14b', workload: 'hook', sessions: 512, target: 1.2 },
  { id: '14c', workload: 'none', sessions: 1 },
  { id: '14d', workload: 'none', sessions: 512 },
] as const;

const WHAT: Readonly<Record<Workload, string>> = {
  hook: 'one in-process function hook',
  none: 'no matching hook',
};

/**
 * Measurement 11: `concurrency: 'per-session'` against `sequential`, per event, on the same events
 * (one session, then 512 sessions round-robin): what scheduling by session costs when nothing
 * overlaps. Every probe runs in a worker of its own; the ratio is the median of the per-round
 * ratios of the two modes measured next to each other.
 */
export const measurePerSession = async (context: Context): Promise<Measured> => {
  const batch = context.quick ? 4_000 : 20_000;
  const counts = context.quick ? { warmup: 2, iterations: 5 } : { warmup: 3, iterations: 15 };
  const module = new URL(import.meta.url);
  const probes: Record<string, IsolatedProbe> = {};
  for (const { id, workload, sessions } of CASES) {
    for (const concurrency of ['sequential', 'per-session'] as const) {
      const options: PerSessionProbeOptions = {
        workload,
        concurrency,
        sessions,
        dir: context.fixtures.dir,
        batch,
      };
      probes[`${id} ${concurrency}`] = { module, options };
    }
  }
  context.log(
    `11 per-session: ${counts.iterations} rounds of ${batch} events, ${Object.keys(probes).length} probes`,
  );
  const samples = await interleaveIsolated(counts, probes);
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  for (const testCase of CASES) {
    const perSession = samples[`${testCase.id} per-session`]!;
    const sequential = samples[`${testCase.id} sequential`]!;
    const value = median(pairedRatios(perSession, sequential));
    rows.push({
      id: testCase.id,
      what: `${WHAT[testCase.workload]}, ${testCase.sessions === 1 ? 'one session' : `${testCase.sessions} sessions round-robin`}: \`concurrency: 'per-session'\` vs \`sequential\`, CPU per event`,
      subject: `${formatNumber(median(perSession))} µs CPU per event`,
      baseline: `${formatNumber(median(sequential))} µs CPU per event`,
      ratio: value,
      ...('target' in testCase && {
        target: { op: '<=', limit: testCase.target, unit: '×' },
        checked: value,
      }),
    });
    raw[testCase.id] = {
      unit: 'CPU µs per event',
      batch,
      perSession: rawSeries(perSession),
      sequential: rawSeries(sequential),
    };
  }
  return { rows, raw: { '11': raw } };
};
