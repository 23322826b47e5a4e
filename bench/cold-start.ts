import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { preToolUse, stdinLine } from './fixtures.js';
import type { Context, Measured } from './measurement.js';
import { formatNumber, type Row } from './report.js';
import { median, pairedRatios, summarize, type Summary } from './stats.js';

/**
 * 9 — cold start: the CPU time (user + sys) of a whole `cosh-hooks` process against `node -e 0`,
 * measured in the same rounds, interleaved, so the machine's load hits both alike. CPU time,
 * not wall time: a busy machine makes a process wait, but not work more.
 *
 * Each child reports its own `process.resourceUsage()` when it exits, through a preloaded probe
 * (`--require`, written to the fixtures folder) on file descriptor 3; the floor gets the same
 * probe, so its cost cancels in the ratio.
 */

const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LIBRARY = pathToFileURL(fileURLToPath(new URL('../src/index.js', import.meta.url))).href;
/** The RxJS a host importing it from here gets (the build Node picks for `import`), as the library does. */
const RXJS = import.meta.resolve('rxjs');

const PROBE = `'use strict';
process.on('exit', () => {
  const usage = process.resourceUsage();
  try { require('node:fs').writeSync(3, String(usage.userCPUTime + usage.systemCPUTime)); } catch {}
});
`;

interface Subject {
  readonly args: readonly string[];
  readonly input?: string;
}

/** The CPU milliseconds of one process, or an error naming what went wrong. */
const cpuOf = (probe: string, subject: Subject, env: NodeJS.ProcessEnv): number => {
  const result = spawnSync(process.execPath, ['--require', probe, ...subject.args], {
    input: subject.input ?? '',
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env,
    maxBuffer: 1 << 20,
  });
  const reported = result.output?.[3]?.toString('utf8') ?? '';
  const micros = Number(reported);
  if (result.status !== 0 || reported === '' || !Number.isFinite(micros)) {
    throw new Error(
      `cold start: ${subject.args.join(' ')} exited ${result.status ?? result.signal}: ${result.stderr?.toString('utf8') ?? ''}`,
    );
  }
  return micros / 1000;
};

const cell = (summary: Summary): string =>
  `${formatNumber(summary.median)} ms CPU (p95 ${formatNumber(summary.p95)})`;

export const measureColdStart = async (context: Context): Promise<Measured> => {
  const rounds = context.quick ? 7 : 25;
  const dir = join(context.fixtures.dir, 'cold-start');
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const probe = join(dir, 'cpu-probe.cjs');
  const config = join(dir, 'empty.toml');
  writeFileSync(probe, PROBE);
  writeFileSync(config, '');
  // No user config, extensions or state leak in from the real home folder.
  const env = { ...process.env, HOME: home, NO_COLOR: '1' };
  const subjects = {
    floor: { args: ['-e', '0'] },
    version: { args: [BIN, '--version'] },
    run: {
      args: [BIN, 'run', '--config', config, '--home', home, '--workspace', dir],
      input: stdinLine(preToolUse(dir)),
    },
    library: { args: ['--input-type=module', '-e', `await import(${JSON.stringify(LIBRARY)});`] },
    rxjs: { args: ['--input-type=module', '-e', `await import(${JSON.stringify(RXJS)});`] },
  } as const satisfies Record<string, Subject>;
  type Name = keyof typeof subjects;
  const names = Object.keys(subjects) as Name[];
  const samples: Record<Name, number[]> = { floor: [], version: [], run: [], library: [], rxjs: [] };
  // One warm-up round (the file system cache), then interleaved rounds.
  for (const name of names) cpuOf(probe, subjects[name], env);
  for (let round = 0; round < rounds; round++) {
    for (const name of names) samples[name].push(cpuOf(probe, subjects[name], env));
  }
  const summaries = Object.fromEntries(names.map((name) => [name, summarize(samples[name])])) as Record<
    Name,
    Summary
  >;
  /** The median of the per-round ratios: each round's subject against the floor measured next to it. */
  const ratioOf = (name: Name, floor: Name) => median(pairedRatios(samples[name], samples[floor]));
  const row = (id: string, what: string, name: Name, limit?: number, floor: Name = 'floor'): Row => {
    const value = ratioOf(name, floor);
    return {
      id,
      what,
      subject: cell(summaries[name]),
      baseline: `${floor === 'floor' ? 'node -e 0' : "import('rxjs')"}: ${cell(summaries[floor])}`,
      ratio: value,
      ...(limit !== undefined && { target: { op: '<=', limit, unit: '×' }, checked: value }),
    };
  };
  context.log(
    `cold start: floor ${formatNumber(summaries.floor.median)} ms, --version ${formatNumber(summaries.version.median)} ms, run ${formatNumber(summaries.run.median)} ms, import ${formatNumber(summaries.library.median)} ms, rxjs ${formatNumber(summaries.rxjs.median)} ms CPU`,
  );
  return {
    rows: [
      row('10a', '`cosh-hooks --version`: CPU of the whole process / `node -e 0`', 'version', 1.5),
      row('10b', '`cosh-hooks run`, one event, empty config: CPU / `node -e 0`', 'run', 1.8),
      row('10c', "`import('cosh-hooks')`: CPU of the process / `node -e 0`", 'library'),
      row(
        '10d',
        "`import('cosh-hooks')`: CPU of the process / importing the host's own `rxjs` alone",
        'library',
        1.5,
        'rxjs',
      ),
    ],
    raw: {
      coldStart: Object.fromEntries(
        names.map((name) => [name, { summary: summaries[name], samples: samples[name] }]),
      ),
    },
  };
};
