import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { measureAiSdk } from './ai-sdk.js';
import { measureAudit } from './audit.js';
import { measureChain } from './chain.js';
import { measureColdStart } from './cold-start.js';
import { createFixtures } from './fixtures.js';
import { measureFunctionHooks } from './function-hooks.js';
import { describeMachine, loadAverage } from './machine.js';
import type { Context, Measurement } from './measurement.js';
import { measureMcpProxy } from './mcp-proxy.js';
import { measureNoHook } from './no-hook.js';
import { measurePacedAudit } from './paced-audit.js';
import { measurePerHook } from './per-hook.js';
import { measurePersistent } from './persistent.js';
import { measurePerSession } from './per-session.js';
import { measureHeap } from './heap.js';
import { measureTimeout } from './timeout.js';
import { markdownTable, verdictOf, type Row } from './report.js';

/**
 * Timing and ratios only. Number 6 (memory and leaks) is not a benchmark but a soak check: it
 * moved to test/soak/census.ts (`npm run soak`); the other numbers are kept so results compare.
 */
const MEASUREMENTS: Readonly<Record<string, Measurement>> = {
  '1': measurePerHook,
  '2': measureChain,
  '3': measureNoHook,
  '4': measureFunctionHooks,
  '5': measureTimeout,
  '7': measureHeap,
  '8': measurePersistent,
  '9': measureAudit,
  '10': measureColdStart,
  '11': measureAiSdk,
  '12': measureMcpProxy,
  '13': measurePacedAudit,
  '14': measurePerSession,
};

const USAGE = `usage: npm run bench [-- --quick] [-- --only 1,3]
  --quick      fewer iterations (under 30 s); results go to bench/results/latest-quick.json
  --only LIST  run only these measurements (1-5, 7-11, comma-separated; memory is in npm run soak);
               results go to bench/results/latest-partial.json
Only a full run (neither flag) writes bench/results/latest.json.`;

interface Flags {
  readonly quick: boolean;
  readonly only?: readonly string[];
}

const parseFlags = (args: readonly string[]): Flags | string => {
  let quick = false;
  let only: string[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only' && args[i + 1] !== undefined) only = args[++i]!.split(',');
    else if (arg.startsWith('--only=')) only = arg.slice('--only='.length).split(',');
    else return `unknown argument: ${arg}`;
  }
  const unknown = only?.find((id) => !(id in MEASUREMENTS));
  if (unknown !== undefined) return `unknown measurement: ${unknown}`;
  return { quick, ...(only !== undefined && { only }) };
};

/** A partial run (`--quick` or `--only`) never overwrites the full result file. */
const resultsPath = (flags: Flags): string => {
  const name = flags.quick ? 'latest-quick' : flags.only !== undefined ? 'latest-partial' : 'latest';
  return fileURLToPath(new URL(`../../bench/results/${name}.json`, import.meta.url));
};

/** Writes the file whole or not at all (a .tmp file renamed into place). */
const writeResults = (path: string, data: unknown): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
};

/**
 * A row is flagged when the machine was already this busy (1-minute load per core) as its
 * measurement started: its numbers, ratios included, carry other processes' noise.
 */
const LOADED_SHARE = 0.5;
const underLoad = (load: number, cores: number): boolean => load >= LOADED_SHARE * cores;

const main = async (): Promise<number> => {
  const flags = parseFlags(process.argv.slice(2));
  if (typeof flags === 'string') {
    process.stderr.write(`${flags}\n${USAGE}\n`);
    return 2;
  }
  const machine = describeMachine();
  const log = (line: string) => process.stderr.write(`  ${line}\n`);
  process.stderr.write(
    `cosh-hooks bench (${flags.quick ? 'quick' : 'full'}) on ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, load ${machine.load.join(' ')}\n`,
  );
  const fixtures = createFixtures();
  const context: Context = { quick: flags.quick, fixtures, log };
  const rows: Row[] = [];
  /** The 1-minute load average when each row's measurement started. */
  const loadOf = new Map<string, number>();
  const raw: Record<string, unknown> = {};
  const durations: Record<string, number> = {};
  const started = performance.now();
  try {
    for (const [id, measure] of Object.entries(MEASUREMENTS)) {
      if (flags.only !== undefined && !flags.only.includes(id)) continue;
      const start = performance.now();
      const loadBefore = loadAverage()[0] ?? 0;
      const measured = await measure(context);
      for (const row of measured.rows) loadOf.set(row.id, loadBefore);
      durations[id] = Math.round(performance.now() - start);
      rows.push(...measured.rows);
      Object.assign(raw, measured.raw);
      log(`measurement ${id} took ${(durations[id] / 1000).toFixed(1)} s`);
    }
  } finally {
    fixtures.remove();
  }
  const totalMs = Math.round(performance.now() - started);
  const table = markdownTable(rows);
  const loaded = rows.filter((row) => underLoad(loadOf.get(row.id) ?? 0, machine.cores)).map((row) => row.id);
  process.stdout.write(
    `\nload before/after: ${machine.load.join(' ')} / ${loadAverage().join(' ')} (${machine.cores} cores)\n`,
  );
  process.stdout.write(`\n${table}\n\n`);
  if (loaded.length > 0) {
    process.stdout.write(
      `measured under load (1-minute load ≥ ${LOADED_SHARE} × cores when the row started; re-run on a quiet machine): ${loaded.join(', ')}\n`,
    );
  }
  const misses = rows.filter((row) => verdictOf(row) === 'miss').map((row) => row.id);
  process.stdout.write(
    `${rows.filter((row) => verdictOf(row) === 'pass').length} pass, ${misses.length} miss${misses.length > 0 ? ` (${misses.join(', ')})` : ''}; ${(totalMs / 1000).toFixed(1)} s\n`,
  );
  const path = resultsPath(flags);
  writeResults(path, {
    date: new Date().toISOString(),
    mode: flags.quick ? 'quick' : flags.only !== undefined ? `only ${flags.only.join(',')}` : 'full',
    machine,
    loadAfter: loadAverage(),
    totalMs,
    durationsMs: durations,
    rows: rows.map((row) => ({
      ...row,
      verdict: verdictOf(row),
      loadAtStart: loadOf.get(row.id),
      underLoad: loaded.includes(row.id),
    })),
    table,
    raw,
  });
  process.stderr.write(`results written to ${path}\n`);
  return 0;
};

process.exitCode = await main();
