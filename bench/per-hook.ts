import { execFileSync } from 'node:child_process';
import { firstValueFrom } from 'rxjs';
import { processExecutor } from '../src/exec/process-executor.js';
import type { HookEvent } from '../src/events/codecs.js';
import { resultOnly, type HookExecutor } from '../src/exec/port.js';
import type { CommandHook } from '../src/registry/hook.js';
import { INLINE_SH_ALLOW, preToolUse, stdinLine } from './fixtures.js';
import { commandHook, medianCell, rawSeries, type Context, type Measured } from './measurement.js';
import type { Row } from './report.js';
import { execaRoundTrip } from './execa-floor.js';
import { bareRoundTrip } from './spawn-floor.js';
import { median, ratio, summarize } from './stats.js';
import { costOf, interleave, type Cost, type Counts } from './timing.js';

/** One hook through the executor: subscribe, await its one result, insist it is the expected allow. */
export const runThroughExecutor = async (
  executor: HookExecutor,
  hook: CommandHook,
  event: HookEvent,
): Promise<void> => {
  const result = await firstValueFrom(executor(hook, event).pipe(resultOnly()));
  if (result.outcome !== 'ok' || result.output.decision !== 'allow') {
    throw new Error(`hook ${hook.name} did not allow: ${JSON.stringify(result)}`);
  }
};

/** Insists a round trip's answer is the allow the hook prints, or the floor measured something else. */
const expectAllow = (answer: unknown, file: string): void => {
  if ((answer as { decision?: unknown } | null)?.decision !== 'allow') {
    throw new Error(`${file} did not allow: ${JSON.stringify(answer)}`);
  }
};

/** One bare round trip, checked. */
export const runBare = async (
  file: string,
  args: readonly string[],
  input: string,
  detached = false,
): Promise<void> => expectAllow(await bareRoundTrip(file, args, input, detached), file);

interface Case {
  readonly id: string;
  readonly what: string;
  /** The hook's `command`, as a user would configure it. */
  readonly command: string;
  /** What a bare spawn of the same thing runs: the same program with the same arguments. */
  readonly file: string;
  readonly args: readonly string[];
  readonly counts: Counts;
  /** The id of the row against a floor in its own session and process group, when there is one. */
  readonly isolatedId?: string;
}

/**
 * The interpreter behind `python3`. On machines with pyenv, `python3` on PATH is a bash shim that
 * costs tens of milliseconds by itself; a hook author who cares names the interpreter, and the
 * comparison is about the engine, not the shim.
 */
const realPython = (): string =>
  execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

const casesOf = (context: Context): Case[] => {
  const { path } = context.fixtures;
  const python3 = realPython();
  const sh: Counts = context.quick ? { warmup: 5, iterations: 40 } : { warmup: 30, iterations: 300 };
  const python: Counts = context.quick ? { warmup: 2, iterations: 12 } : { warmup: 10, iterations: 100 };
  return [
    {
      id: '1a',
      what: 'per-hook latency, inline sh command (both via `/bin/sh -c`)',
      command: INLINE_SH_ALLOW,
      file: '/bin/sh',
      args: ['-c', INLINE_SH_ALLOW],
      counts: sh,
      isolatedId: '1f',
    },
    {
      id: '1b',
      what: 'per-hook latency, `allow.sh` script (both exec the script directly)',
      command: path('allow.sh'),
      file: path('allow.sh'),
      args: [],
      counts: sh,
      isolatedId: '1g',
    },
    {
      id: '1c',
      what: 'per-hook latency, `python3 allow.py` (both exec python3 directly)',
      command: `${python3} ${path('allow.py')}`,
      file: python3,
      args: [path('allow.py')],
      counts: python,
    },
  ];
};

/**
 * Measurement 1: one command hook through `processExecutor()` against a bare `child_process.spawn`
 * of the same program with the same stdin/stdout round trip, interleaved.
 */
export const measurePerHook = async (context: Context): Promise<Measured> => {
  // Always a direct spawn: this measures the executor's own work, not the spawn helper (7e–7g).
  const executor = processExecutor({ spawnHelper: 'never' });
  const event = preToolUse(context.fixtures.dir);
  const input = stdinLine(event);
  const rows: Row[] = [];
  const cpuRows: Row[] = [];
  const isolatedRows: Row[] = [];
  const raw: Record<string, unknown> = {};
  for (const testCase of casesOf(context)) {
    context.log(`${testCase.id} ${testCase.what}: ${testCase.counts.iterations} pairs`);
    const hook = commandHook(`bench-${testCase.id}`, testCase.command);
    const isolated = testCase.isolatedId !== undefined;
    const costs = await interleave<'baseline' | 'isolated' | 'execa' | 'subject', Cost>(testCase.counts, {
      baseline: () => costOf(() => runBare(testCase.file, testCase.args, input)),
      // Skipped (a constant) where there is no isolated row, so the other probes keep their pace.
      isolated: () =>
        isolated ? costOf(() => runBare(testCase.file, testCase.args, input, true)) : { wallMs: 0, cpuMs: 0 },
      execa: () =>
        costOf(async () =>
          expectAllow(await execaRoundTrip(testCase.file, testCase.args, input), testCase.file),
        ),
      subject: () => costOf(() => runThroughExecutor(executor, hook, event)),
    });
    const samples = {
      baseline: costs.baseline.map((cost) => cost.wallMs),
      subject: costs.subject.map((cost) => cost.wallMs),
    };
    const cpu = {
      baseline: costs.baseline.map((cost) => cost.cpuMs),
      subject: costs.subject.map((cost) => cost.cpuMs),
    };
    const execaWall = costs.execa.map((cost) => cost.wallMs);
    const subject = summarize(samples.subject);
    const baseline = summarize(samples.baseline);
    const medianRatio = ratio(subject.median, baseline.median);
    rows.push({
      id: testCase.id,
      what: testCase.what,
      subject: medianCell(subject, 'ms'),
      baseline: medianCell(baseline, 'ms'),
      ratio: medianRatio,
      target: { op: '<=', limit: 1.2, unit: '×' },
      checked: medianRatio,
    });
    const cpuSubject = summarize(cpu.subject);
    const cpuBaseline = summarize(cpu.baseline);
    if (testCase.id === '1a') {
      const execaOnly = summarize(execaWall);
      cpuRows.push({
        id: '1e',
        what: "1a through execa alone with the executor's options (no Observable, no classification)",
        subject: medianCell(execaOnly, 'ms'),
        baseline: medianCell(baseline, 'ms'),
        ratio: ratio(execaOnly.median, baseline.median),
      });
      cpuRows.unshift({
        id: '1d',
        what: 'host CPU (user + system) per hook of 1a: what the extra latency is made of',
        subject: medianCell(cpuSubject, 'ms'),
        baseline: medianCell(cpuBaseline, 'ms'),
        ratio: ratio(cpuSubject.median, cpuBaseline.median),
      });
    }
    if (testCase.isolatedId !== undefined) {
      const floor = summarize(costs.isolated.map((cost) => cost.wallMs));
      const isolatedRatio = ratio(subject.median, floor.median);
      isolatedRows.push({
        id: testCase.isolatedId,
        what: `per-hook overhead of ${testCase.id}: executor vs a bare spawn in its own session and process group (\`detached\`, as spec §4.2 requires)`,
        subject: medianCell(subject, 'ms'),
        baseline: medianCell(floor, 'ms'),
        ratio: isolatedRatio,
        target: { op: '<=', limit: 1.1, unit: '×' },
        checked: isolatedRatio,
      });
      if (testCase.id === '1b') {
        isolatedRows.push({
          id: '1h',
          what: 'what a new session costs: bare spawn of 1b `detached` vs not (kernel autogroup placement, see docs)',
          subject: medianCell(floor, 'ms'),
          baseline: medianCell(baseline, 'ms'),
          ratio: ratio(floor.median, baseline.median),
        });
      }
      raw[`${testCase.isolatedId}`] = {
        unit: 'ms',
        subject: rawSeries(samples.subject),
        baseline: rawSeries(costs.isolated.map((cost) => cost.wallMs)),
        ratioOfMedians: isolatedRatio,
      };
    }
    raw[testCase.id] = {
      what: testCase.what,
      command: testCase.command,
      baselineSpawn: [testCase.file, ...testCase.args],
      unit: 'ms',
      subject: rawSeries(samples.subject),
      baseline: rawSeries(samples.baseline),
      ratioOfMedians: medianRatio,
      extraMs: subject.median - baseline.median,
      medianExtraPerPair: median(samples.subject.map((value, i) => value - samples.baseline[i]!)),
      execaAlone: rawSeries(execaWall),
      hostCpuMs: {
        subject: rawSeries(cpu.subject),
        execaAlone: rawSeries(costs.execa.map((cost) => cost.cpuMs)),
        baseline: rawSeries(cpu.baseline),
      },
    };
  }
  return { rows: [...rows, ...cpuRows, ...isolatedRows], raw };
};
