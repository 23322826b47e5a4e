import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { memoryOf } from '../../bench/procfs.js';
import { mixedEvent, preToolUse } from '../../bench/fixtures.js';
import type { Context, Measured } from '../../bench/measurement.js';
import { GC_REPORT_PREFIX, type GcReport } from './gc-report.js';
import { formatNumber, type Row } from '../../bench/report.js';
import { median } from '../../bench/stats.js';
import { interleave } from '../../bench/timing.js';

/** The built command line, next to this file's compiled twin: dist/test/soak → dist/src/cli. */
export const CLI_BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const FLOOR_BIN = fileURLToPath(new URL('./memory-floor-child.js', import.meta.url));

/** One event in this many is a `deploy` tool call, the one the configured hook matches. */
const MATCH_EVERY = 1000;
const SAMPLE_EVERY_MS = 20;
const CHUNK_EVENTS = 500;

const CONFIG = `# Written by the memory census: one cheap hook on a tool that only 1 event in ${MATCH_EVERY} uses.
[hooks]
[[hooks.PreToolUse]]
name = "deploy-guard"
command = "true"
matcher = "^deploy$"
`;

/** Event n of the stream: the usual mix, with a matching \`deploy\` call every MATCH_EVERY events. */
const eventLine = (cwd: string, n: number): string =>
  JSON.stringify(n % MATCH_EVERY === MATCH_EVERY - 1 ? preToolUse(cwd, n, 'deploy') : mixedEvent(cwd, n));

/**
 * V8's young generation starts small and grows (up to 16 MiB per semi-space on 64-bit Node 20) while
 * a program allocates fast. The same run with it capped at 1 MiB shows how much of the RSS growth
 * is that growth, and how much is other memory V8 and malloc keep after use.
 */
const SMALL_YOUNG_GENERATION = '--max-semi-space-size=1';

/** Node flags for both measured programs: the GC probe, so memory can be compared after a full GC. */
const NODE_FLAGS = ['--expose-gc', '--import', fileURLToPath(new URL('./gc-probe.js', import.meta.url))];
const PROBE_TIMEOUT_MS = 10_000;

export interface MemoryPoint {
  readonly answered: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
}

export interface StreamRun {
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** RSS once the first answer came back (the process is up, nothing warm yet). */
  readonly firstAnswerRssMb: number;
  /** RSS sampled after the last answer, before the final forced GC. */
  readonly endRssMb: number;
  /** VmHWM at the end: the peak resident size over the whole run. */
  readonly peakRssMb: number;
  /** Memory after a forced full GC once 10% of the events were answered (warm: JIT compiled). */
  readonly warm: MemoryPoint;
  /** The same at half the events. */
  readonly half: MemoryPoint;
  /** The same once every event was answered, input still open. */
  readonly end: MemoryPoint;
  /** end.rssMb − warm.rssMb: what the run left resident. */
  readonly growthMb: number;
  /** end.rssMb − half.rssMb: the same over the second half only. */
  readonly secondHalfGrowthMb: number;
  /** end.heapUsedMb − warm.heapUsedMb: live JS objects the run left behind. */
  readonly heapGrowthMb: number;
  /** Up to 200 samples [answered, VmRSS MB] over the run, for the JSON file. */
  readonly trace: readonly (readonly [number, number])[];
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const mbOfKb = (kb: number) => mb(kb * 1024);
const round = (value: number) => Math.round(value * 10) / 10;

const thin = <T>(list: readonly T[], most: number): T[] =>
  list.filter((_, i) => i % Math.max(1, Math.ceil(list.length / most)) === 0);

/**
 * Streams `count` events through a JSONL Node program as a host would, sampling its memory from
 * /proc. `nodeFlags` go to node before the program (e.g. a V8 heap setting).
 */
export const streamThrough = async (
  args: readonly string[],
  count: number,
  cwd: string,
  nodeFlags: readonly string[] = [],
): Promise<StreamRun> => {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeFlags, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  const name = args[0]?.split('/').pop() ?? 'child';
  let stderr = '';
  const reports: GcReport[] = [];
  const waiting = new Map<number, (report: GcReport) => void>();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
    let newline: number;
    while ((newline = stderr.indexOf('\n')) >= 0) {
      const line = stderr.slice(0, newline);
      stderr = stderr.slice(newline + 1);
      if (line.startsWith(GC_REPORT_PREFIX)) {
        reports.push(JSON.parse(line.slice(GC_REPORT_PREFIX.length)) as GcReport);
        waiting.get(reports.length - 1)?.(reports[reports.length - 1]!);
      } else process.stderr.write(`${name}: ${line}\n`);
    }
  });
  /**
   * Asks the process for a full GC and its memory right after. Probes are far apart (thousands of
   * events), so each signal gets its own report: signals of one kind do not queue.
   */
  let requested = 0;
  const probe = (): Promise<GcReport> =>
    new Promise((resolve, reject) => {
      const index = requested++;
      const timer = setTimeout(
        () => reject(new Error(`${name} did not answer the GC probe`)),
        PROBE_TIMEOUT_MS,
      );
      waiting.set(index, (report) => {
        clearTimeout(timer);
        resolve(report);
      });
      child.kill('SIGUSR2');
    });
  child.stdin.on('error', () => undefined);

  let answered = 0;
  let lastLine = '';
  let carry = '';
  // Full-GC probes at 10% and 50% of the answers, sent from the reader so the writer never waits.
  const probes: { answered: number; report: Promise<GcReport> }[] = [];
  const PROBE_AT = [0.1, 0.5];
  let allAnswered: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      carry += text;
      return;
    }
    const complete = carry + text.slice(0, end);
    carry = text.slice(end + 1);
    for (let i = complete.indexOf('\n'); i >= 0; i = complete.indexOf('\n', i + 1)) answered += 1;
    answered += 1;
    lastLine = complete.slice(complete.lastIndexOf('\n') + 1);
    const next = PROBE_AT[probes.length];
    if (next !== undefined && answered >= count * next) probes.push({ answered, report: probe() });
    if (answered >= count) allAnswered();
  });
  const exited = once(child, 'close');

  const samples: { answered: number; rssKb: number }[] = [];
  let firstAnswerKb: number | undefined;
  const sample = () => {
    const memory = memoryOf(pid);
    if (memory === undefined) return;
    samples.push({ answered, rssKb: memory.rssKb });
    if (firstAnswerKb === undefined && answered > 0) firstAnswerKb = memory.rssKb;
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);

  const start = performance.now();
  for (let n = 0; n < count; n += CHUNK_EVENTS) {
    const lines: string[] = [];
    for (let i = n; i < Math.min(count, n + CHUNK_EVENTS); i++) lines.push(eventLine(cwd, i));
    if (!child.stdin.write(`${lines.join('\n')}\n`)) await once(child.stdin, 'drain');
  }
  await Promise.race([
    done,
    exited.then(() => {
      throw new Error(`${name} exited early: ${stderr}`);
    }),
  ]);
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  sample();
  const endMemory = memoryOf(pid)!;
  const point = async (answeredThen: number, report: Promise<GcReport>): Promise<MemoryPoint> => {
    const { rss, heapUsed } = await report;
    return { answered: answeredThen, rssMb: mb(rss), heapUsedMb: mb(heapUsed) };
  };
  const [warm, half] = await Promise.all(probes.map((p) => point(p.answered, p.report)));
  const end = await point(answered, probe());
  child.stdin.end();
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`${name} exited with ${code}: ${stderr}`);
  const last = JSON.parse(lastLine) as { type?: string; seq?: number };
  if (last.type !== 'hook_decision' || last.seq !== count)
    throw new Error(`unexpected last answer ${lastLine}`);
  return {
    events: count,
    seconds,
    eventsPerSecond: count / seconds,
    firstAnswerRssMb: mbOfKb(firstAnswerKb ?? endMemory.rssKb),
    endRssMb: mbOfKb(endMemory.rssKb),
    peakRssMb: mbOfKb(endMemory.hwmKb),
    warm: warm!,
    half: half!,
    end,
    growthMb: round(end.rssMb - warm!.rssMb),
    secondHalfGrowthMb: round(end.rssMb - half!.rssMb),
    heapGrowthMb: round(end.heapUsedMb - warm!.heapUsedMb),
    trace: thin(samples, 200).map((s) => [s.answered, mbOfKb(s.rssKb)] as const),
  };
};

/** A folder with the config file and empty extension/state folders, so nothing of $HOME is read. */
export const configFolder = (context: Context) => {
  const root = join(context.fixtures.dir, 'cli');
  for (const folder of ['home', 'system-extensions', 'states'])
    mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, 'config.toml'), CONFIG);
  return [
    'run',
    '--config',
    join(root, 'config.toml'),
    '--home',
    join(root, 'home'),
    '--system-extensions-dir',
    join(root, 'system-extensions'),
    '--state-dir',
    join(root, 'states'),
  ];
};

/**
 * Memory census, rows 6a–6f: 100,000 events through the built `cosh-hooks run` (a child process fed JSONL on
 * stdin, answers read from stdout), against a bare Node JSONL echo: peak RSS and RSS growth.
 */
export const measureCliMemory = async (context: Context): Promise<Measured> => {
  const count = context.quick ? 20_000 : 100_000;
  const counts = context.quick ? { warmup: 0, iterations: 1 } : { warmup: 0, iterations: 2 };
  const cliArgs = [CLI_BIN, ...configFolder(context)];
  context.log(
    `6a ${count} events through cosh-hooks run (also with a capped young generation) and a bare JSONL echo: ${counts.iterations} each`,
  );
  const runs = await interleave<'floor' | 'cli' | 'smallYoung', StreamRun>(counts, {
    floor: () => streamThrough([FLOOR_BIN], count, context.fixtures.dir),
    cli: () => streamThrough(cliArgs, count, context.fixtures.dir),
    smallYoung: () => streamThrough(cliArgs, count, context.fixtures.dir, [SMALL_YOUNG_GENERATION]),
  });
  const worst = (list: readonly StreamRun[], pick: (run: StreamRun) => number) => Math.max(...list.map(pick));
  const growth = worst(runs.cli, (run) => run.growthMb);
  const peak = worst(runs.cli, (run) => run.peakRssMb);
  const floorPeak = worst(runs.floor, (run) => run.peakRssMb);
  const rate = median(runs.cli.map((run) => run.eventsPerSecond));
  const floorRate = median(runs.floor.map((run) => run.eventsPerSecond));
  const rssCell = (list: readonly StreamRun[]) =>
    `${formatNumber(worst(list, (run) => run.growthMb))} MB (${list.map((run) => `${formatNumber(run.warm.rssMb)} → ${formatNumber(run.end.rssMb)}`).join(', ')})`;
  const halfCell = (list: readonly StreamRun[]) =>
    `${formatNumber(worst(list, (run) => run.secondHalfGrowthMb))} MB (${list.map((run) => `${formatNumber(run.half.rssMb)} → ${formatNumber(run.end.rssMb)}`).join(', ')})`;
  const heapCell = (list: readonly StreamRun[]) =>
    `${formatNumber(worst(list, (run) => run.heapGrowthMb))} MB (${list.map((run) => `${formatNumber(run.warm.heapUsedMb)} → ${formatNumber(run.end.heapUsedMb)}`).join(', ')})`;
  const rows: Row[] = [
    {
      id: '6a',
      what: `RSS growth over ${formatNumber(count)} events through \`cosh-hooks run\`, after a full GC at 10% and at the end (worst run)`,
      subject: rssCell(runs.cli),
      baseline: rssCell(runs.floor),
      target: { op: '<', limit: 20, unit: 'MB' },
      checked: growth,
    },
    {
      id: '6b',
      what: 'same, second half only (full GC at 50% and at the end)',
      subject: halfCell(runs.cli),
      baseline: halfCell(runs.floor),
    },
    {
      id: '6c',
      what: 'live JS heap growth (10% → end), after those full GCs',
      subject: heapCell(runs.cli),
      baseline: heapCell(runs.floor),
    },
    {
      id: '6d',
      what: `same as 6a with \`node ${SMALL_YOUNG_GENERATION}\`: the share of V8's young generation`,
      subject: rssCell(runs.smallYoung),
      baseline: `peak ${formatNumber(worst(runs.smallYoung, (run) => run.peakRssMb))} MB, ${formatNumber(median(runs.smallYoung.map((run) => run.eventsPerSecond)))} ev/s`,
    },
    {
      id: '6e',
      what: 'peak RSS (VmHWM) of the run',
      subject: `${formatNumber(peak)} MB`,
      baseline: `${formatNumber(floorPeak)} MB`,
      ratio: peak / floorPeak,
    },
    {
      id: '6f',
      what: 'throughput of the run (JSONL in → answers out, soak process feeding it)',
      subject: `${formatNumber(rate)} ev/s`,
      baseline: `${formatNumber(floorRate)} ev/s`,
      ratio: floorRate / rate,
    },
  ];
  return {
    rows,
    raw: {
      '6a': {
        events: count,
        matchEvery: MATCH_EVERY,
        config: CONFIG,
        cli: runs.cli,
        floor: runs.floor,
        smallYoungGeneration: runs.smallYoung,
      },
    },
  };
};
