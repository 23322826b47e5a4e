import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { comparisonRow, rawSeries, type Context, type Measured } from './measurement.js';
import type { Row } from './report.js';
import { ratio, summarize } from './stats.js';
import { interleave } from './timing.js';

const HEAP_CHILD = fileURLToPath(new URL('./heap-child.js', import.meta.url));
const SMALL_MB = 50;
const LARGE_MB = 1024;
/** Room for the 1 GB of ballast plus the collector's working space, the same for both sizes. */
const MAX_OLD_SPACE_MB = 3072;

interface ChildReport {
  readonly heapMb: number;
  readonly heapUsedMb: number;
  readonly arrayBuffersMb: number;
  readonly rssMb: number;
  readonly subject: number[];
  readonly baseline: number[];
  readonly helper: number[];
}

const runChild = async (heapMb: number, warmup: number, iterations: number): Promise<ChildReport> => {
  const args = [
    `--max-old-space-size=${MAX_OLD_SPACE_MB}`,
    HEAP_CHILD,
    '--heap-mb',
    String(heapMb),
    '--warmup',
    String(warmup),
    '--iterations',
    String(iterations),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0)
    throw new Error(`heap child (${heapMb} MB) exited with ${code}: ${Buffer.concat(err).toString()}`);
  return JSON.parse(Buffer.concat(out).toString('utf8')) as ChildReport;
};

/**
 * Measurement 7: the inline sh hook through the executor (and a bare spawn, the floor) in a host
 * process that holds ~50 MB vs ~1 GB of live heap. Each heap size runs in its own child Node process
 * so this bench process stays small; the children alternate (small, large, large, small) to cancel
 * drift. Node's spawn forks the host, and fork copies page tables in proportion to its memory.
 */
export const measureHeap = async (context: Context): Promise<Measured> => {
  const rounds = context.quick ? 1 : 2;
  const warmup = context.quick ? 3 : 10;
  const iterations = context.quick ? 10 : 100;
  context.log(
    `7 host heap ${SMALL_MB} MB vs ${LARGE_MB} MB: ${rounds} child process(es) each, ${iterations} pairs`,
  );
  const reports = await interleave<'small' | 'large', ChildReport>(
    { warmup: 0, iterations: rounds },
    {
      small: () => runChild(SMALL_MB, warmup, iterations),
      large: () => runChild(LARGE_MB, warmup, iterations),
    },
  );
  const pool = (list: readonly ChildReport[], pick: 'subject' | 'baseline' | 'helper') =>
    list.flatMap((report) => report[pick]);
  const side = (list: readonly ChildReport[]) => ({
    subject: pool(list, 'subject'),
    baseline: pool(list, 'baseline'),
    helper: pool(list, 'helper'),
  });
  const small = side(reports.small);
  const large = side(reports.large);
  const helperVsSmall = ratio(summarize(large.helper).median, summarize(small.subject).median);
  const rssOf = (list: readonly ChildReport[]) => Math.max(...list.map((report) => report.rssMb));
  const row = (id: string, what: string, subject: number[], baseline: number[]): Row =>
    comparisonRow(id, what, summarize(subject), summarize(baseline));
  return {
    rows: [
      row(
        '7a',
        `executor (direct spawn) per hook, host holding ~${SMALL_MB} MB live heap (RSS ${rssOf(reports.small)} MB) vs bare spawn`,
        small.subject,
        small.baseline,
      ),
      row(
        '7b',
        `executor (direct spawn) per hook, host holding ~${LARGE_MB} MB live heap (RSS ${rssOf(reports.large)} MB) vs bare spawn`,
        large.subject,
        large.baseline,
      ),
      row(
        '7c',
        `executor, direct spawn: ~${LARGE_MB} MB host vs ~${SMALL_MB} MB host`,
        large.subject,
        small.subject,
      ),
      row('7d', `bare spawn: ~${LARGE_MB} MB host vs ~${SMALL_MB} MB host`, large.baseline, small.baseline),
      {
        ...row(
          '7e',
          `executor through the spawn helper in a ~${LARGE_MB} MB host vs direct spawn in a ~${SMALL_MB} MB host`,
          large.helper,
          small.subject,
        ),
        target: { op: '<=', limit: 1.3, unit: '×' },
        checked: helperVsSmall,
      },
      row(
        '7f',
        `~${LARGE_MB} MB host: executor through the spawn helper vs direct spawn (what the helper saves)`,
        large.helper,
        large.subject,
      ),
      row(
        '7g',
        `~${SMALL_MB} MB host: executor through the spawn helper vs direct spawn (what the helper costs)`,
        small.helper,
        small.subject,
      ),
    ],
    raw: {
      '7': {
        unit: 'ms per hook',
        maxOldSpaceMb: MAX_OLD_SPACE_MB,
        small: {
          children: reports.small.map(({ subject: _s, baseline: _b, helper: _h, ...memory }) => memory),
          subject: rawSeries(small.subject),
          baseline: rawSeries(small.baseline),
          helper: rawSeries(small.helper),
        },
        large: {
          children: reports.large.map(({ subject: _s, baseline: _b, helper: _h, ...memory }) => memory),
          subject: rawSeries(large.subject),
          baseline: rawSeries(large.baseline),
          helper: rawSeries(large.helper),
        },
      },
    },
  };
};
