/**
 * Soak: tens of thousands of events through the built `cosh-hooks run` with real sh hooks, some
 * timing out (one ignoring SIGTERM, one fail_closed), some failing, some blocking, some events
 * without hooks and a few invalid lines. Output is read as it comes and checked line by line:
 * every input line gets exactly one answer, in order (decisions numbered 1..N). Meanwhile the
 * host's resident memory and open file descriptors are sampled from /proc; at the end no process
 * of any hook's group, and no process carrying the hooks' marker, may be left. Then the memory
 * census (census.ts): RSS growth of `cosh-hooks run` over 100,000 events against a bare Node
 * floor, and descriptors and processes left after 5,000 hooks through the executor.
 *
 *   npm run soak                 20,000 lines, then the full census
 *   npm run soak -- 5000         another count
 *   npm run soak -- --quick      the census with 20,000 events and 500 hooks
 *   SOAK_SAMPLES=file.csv        also write every sample (ms, answered, RSS KiB, fds)
 *
 * Prints the figures; exits 1 when a check fails. Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runCensus } from './census.js';
import { allProcesses, environHas, openFds, rssKib, sleep, type ProcStat } from '../../bench/procfs.js';

const BIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const ARGS = process.argv.slice(2);
const QUICK_CENSUS = ARGS.includes('--quick');
const LINES = Number(ARGS.find((arg) => arg !== '--quick') ?? 20_000);
const SAMPLE_MS = 250;
const PROGRESS_MS = 5_000;
const HOOK_TIMEOUT_MS = 100;
/** How long zombies reparented to PID 1 may take to be reaped (this sandbox's init is slow). */
const REAP_WAIT_MS = 15_000;

// ----- the hooks and the event mix

const dir = mkdtempSync(join(tmpdir(), 'cosh-soak-'));
const home = join(dir, 'home');
const systemExtensions = join(dir, 'system-extensions');
mkdirSync(home);
mkdirSync(systemExtensions);
const pgidLog = join(dir, 'pgids');
const marker = `cosh-soak-${randomUUID()}`;

/** Every hook notes its process group (its own pid: it leads the group) before anything else. */
const note = 'echo $$ >> "$SOAK_PGIDS"';
const HOOKS = [
  // `shell` is cosh's own tool name: a Claude Code name (`^Bash$`) would warn that it never matches.
  ['allow', '^shell$', `${note}; cat >/dev/null; echo '{"decision":"allow"}'`, {}],
  ['fails', '^Fail$', `${note}; cat >/dev/null; echo 'soak failure' >&2; exit 3`, {}],
  ['blocks', '^Rm$', `${note}; cat >/dev/null; echo '{"decision":"block","reason":"no rm"}'`, {}],
  // A child and a grandchild; dies on SIGTERM.
  ['hangs', '^Slow$', `${note}; sleep 30 & sleep 30`, { timeout: HOOK_TIMEOUT_MS }],
  // Ignores SIGTERM (so does its grandchild): only the SIGKILL after the grace ends it.
  [
    'hangs-closed',
    '^SlowClosed$',
    `${note}; trap '' TERM; sleep 30 & sleep 30`,
    { timeout: HOOK_TIMEOUT_MS, fail_closed: true },
  ],
] as const;

const configPath = join(dir, 'config.toml');
writeFileSync(
  configPath,
  HOOKS.map(([name, matcher, command, extra]) =>
    [
      '[[hooks.PreToolUse]]',
      `name = ${JSON.stringify(name)}`,
      `matcher = ${JSON.stringify(matcher)}`,
      `command = ${JSON.stringify(command)}`,
      ...Object.entries(extra).map(([key, value]) => `${key} = ${JSON.stringify(value)}`),
      `env = { SOAK_PGIDS = ${JSON.stringify(pgidLog)}, SOAK_MARKER = ${JSON.stringify(marker)} }`,
      '',
    ].join('\n'),
  ).join('\n'),
);

type Tool = 'shell' | 'Fail' | 'Rm' | 'Slow' | 'SlowClosed' | 'Read';

/** What line `i` (1-based) is; a fixed pattern, so a run is reproducible. */
const kindOf = (i: number): Tool | 'invalid' => {
  if (i % 1000 === 500) return 'invalid';
  if (i % 200 === 50) return 'Slow';
  if (i % 200 === 150) return 'SlowClosed';
  if (i % 20 === 7) return 'Fail';
  if (i % 20 === 13) return 'Rm';
  if (i % 5 === 4) return 'Read';
  return 'shell';
};

/** The decision and hook outcomes each kind of event must get. */
const EXPECTED: Record<Tool, { decision: string; reason?: string; hooks: string[] }> = {
  shell: { decision: 'allow', hooks: ['allow:ok'] },
  Fail: { decision: 'none', hooks: ['fails:exit'] },
  Rm: { decision: 'block', reason: 'no rm', hooks: ['blocks:ok'] },
  Slow: { decision: 'none', hooks: ['hangs:timeout'] },
  SlowClosed: {
    decision: 'block',
    reason: `hook "hangs-closed" failed closed: timed out after ${HOOK_TIMEOUT_MS} ms`,
    hooks: ['hangs-closed:timeout'],
  },
  Read: { decision: 'none', hooks: [] },
};

const inputLine = (i: number): string => {
  const kind = kindOf(i);
  if (kind === 'invalid') return `{"hook_event_name": "PreToolUse", "session_id": broken ${i}\n`;
  return `${JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'soak',
    tool_name: kind,
    tool_use_id: `t${i}`,
    tool_input: { command: `step ${i}` },
  })}\n`;
};

// ----- checking the answers as they come

type Answer = { readonly line: number; readonly kind: Tool | 'invalid'; readonly seq?: number };

const expectedAnswers: Answer[] = [];
{
  let seq = 0;
  for (let i = 1; i <= LINES; i += 1) {
    const kind = kindOf(i);
    expectedAnswers.push(kind === 'invalid' ? { line: i, kind } : { line: i, kind, seq: (seq += 1) });
  }
}

const problems: string[] = [];
const problem = (text: string) => {
  if (problems.length < 20) problems.push(text);
  else if (problems.length === 20) problems.push('… (more problems not shown)');
};
let answered = 0;
let notifications = 0;
const decisionCounts: Record<string, number> = {};

const check = (text: string) => {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(text) as Record<string, unknown>;
  } catch {
    problem(`output line is not JSON: ${text.slice(0, 120)}`);
    return;
  }
  if (line['type'] === 'stream_event') {
    notifications += 1;
    return;
  }
  const expected = expectedAnswers[answered];
  answered += 1;
  if (expected === undefined) {
    problem(`extra answer: ${text.slice(0, 160)}`);
    return;
  }
  if (expected.kind === 'invalid') {
    if (line['type'] !== 'hook_error' || line['line'] !== expected.line) {
      problem(`line ${expected.line}: expected a hook_error, got ${text.slice(0, 160)}`);
    }
    return;
  }
  const want = EXPECTED[expected.kind];
  const hooks = ((line['hooks'] ?? []) as { name: string; outcome: string }[]).map(
    (hook) => `${hook.name}:${hook.outcome}`,
  );
  const ok =
    line['type'] === 'hook_decision' &&
    line['seq'] === expected.seq &&
    line['tool_use_id'] === `t${expected.line}` &&
    line['decision'] === want.decision &&
    line['reason'] === want.reason &&
    JSON.stringify(hooks) === JSON.stringify(want.hooks);
  if (!ok)
    problem(`line ${expected.line} (${expected.kind}, seq ${expected.seq}): got ${text.slice(0, 200)}`);
  const decision = String(line['decision']);
  decisionCounts[decision] = (decisionCounts[decision] ?? 0) + 1;
};

// ----- the run

interface Sample {
  readonly at: number;
  readonly answered: number;
  readonly rssKib: number;
  readonly fds: number;
}

const main = async (): Promise<number> => {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [BIN, 'run', '--config', configPath, '--home', home, '--system-extensions-dir', systemExtensions],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('cosh-hooks did not start');
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  createInterface({ input: child.stdout }).on('line', check);

  const samples: Sample[] = [];
  let zombieChildrenPeak = 0;
  let liveChildrenPeak = 0;
  const sampler = setInterval(() => {
    const rss = rssKib(pid);
    const fds = openFds(pid);
    if (rss !== undefined && fds !== undefined)
      samples.push({ at: Date.now() - started, answered, rssKib: rss, fds });
    const children = allProcesses().filter((stat) => stat.ppid === pid);
    zombieChildrenPeak = Math.max(zombieChildrenPeak, children.filter((stat) => stat.state === 'Z').length);
    liveChildrenPeak = Math.max(liveChildrenPeak, children.filter((stat) => stat.state !== 'Z').length);
  }, SAMPLE_MS);
  // Progress on stderr, so a run of minutes is never silent.
  const progress = setInterval(() => {
    process.stderr.write(
      `soak: ${answered.toLocaleString('en-US')}/${LINES.toLocaleString('en-US')} answered, ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
  }, PROGRESS_MS);

  // Write with backpressure, as a host would; the engine paces reading itself.
  child.stdin.on('error', (error) => problem(`writing stdin: ${error.message}`));
  for (let i = 1; i <= LINES; i += 1) {
    if (!child.stdin.write(inputLine(i))) await once(child.stdin, 'drain');
    if (child.exitCode !== null) break;
  }
  child.stdin.end();
  const code = await exited;
  clearInterval(sampler);
  clearInterval(progress);
  const elapsedS = (Date.now() - started) / 1000;

  if (code !== 0) problem(`cosh-hooks exited with ${code}`);
  if (stderr !== '') problem(`cosh-hooks wrote to stderr: ${stderr.slice(0, 300)}`);
  if (answered !== expectedAnswers.length) problem(`${answered} answers for ${expectedAnswers.length} lines`);

  // Leftovers: any process of a hook's group, or carrying the hooks' marker (escaped its group).
  const pgids = new Set(readFileSync(pgidLog, 'utf8').split('\n').filter(Boolean).map(Number));
  const leftovers = (): ProcStat[] =>
    allProcesses().filter(
      (stat) => pgids.has(stat.pgrp) || (stat.state !== 'Z' && environHas(stat.pid, marker)),
    );
  const atExit = leftovers();
  const runningAtExit = atExit.filter((stat) => stat.state !== 'Z');
  const reapStarted = Date.now();
  let remaining = atExit;
  while (remaining.length > 0 && Date.now() - reapStarted < REAP_WAIT_MS) {
    await sleep(100);
    remaining = leftovers();
  }
  const reapMs = Date.now() - reapStarted;
  const live = remaining.filter((stat) => stat.state !== 'Z');
  const zombies = remaining.filter((stat) => stat.state === 'Z');
  if (live.length > 0) problem(`hook processes still running: ${JSON.stringify(live.slice(0, 5))}`);
  if (zombies.length > 0)
    problem(`zombies not reaped after ${REAP_WAIT_MS} ms: ${JSON.stringify(zombies.slice(0, 5))}`);

  // Flat: after a warm-up (the first 10% of answers), memory and descriptors must not trend up.
  const warm = samples.filter((sample) => sample.answered >= LINES * 0.1);
  const window = (from: number, to: number) =>
    warm.filter((sample) => sample.answered >= LINES * from && sample.answered < LINES * to);
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const early = median(window(0.1, 0.3).map((sample) => sample.rssKib));
  const late = median(window(0.8, 1.01).map((sample) => sample.rssKib));
  const rssPeak = Math.max(...samples.map((sample) => sample.rssKib));
  const fdMin = Math.min(...warm.map((sample) => sample.fds));
  const fdPeak = Math.max(...warm.map((sample) => sample.fds));
  const fdLast = warm.at(-1)?.fds ?? NaN;
  if (warm.length < 8) problem(`only ${warm.length} samples after warm-up`);
  // Below this many lines the windows hold too few samples to tell a trend from the GC's sawtooth.
  const judgeMemory = LINES >= 10_000;
  if (judgeMemory && !(late - early < 20 * 1024)) {
    problem(`RSS grew from ${mib(early)} to ${mib(late)} MiB after warm-up`);
  }
  if (judgeMemory && !(rssPeak < early + 60 * 1024)) {
    problem(`RSS peaked at ${mib(rssPeak)} MiB (warm median ${mib(early)})`);
  }
  if (!(fdPeak - fdMin <= 12)) problem(`open descriptors ranged ${fdMin}..${fdPeak}`);
  if (!(fdLast - fdMin <= 6)) problem(`open descriptors ended at ${fdLast} (min ${fdMin})`);

  if (process.env['SOAK_SAMPLES'] !== undefined) {
    const rows = samples.map((sample) => `${sample.at},${sample.answered},${sample.rssKib},${sample.fds}`);
    writeFileSync(process.env['SOAK_SAMPLES'], `ms,answered,rss_kib,fds\n${rows.join('\n')}\n`);
  }
  const first = samples[0];
  const last = samples.at(-1);
  const invalid = expectedAnswers.filter((answer) => answer.kind === 'invalid').length;
  const count = (tool: Tool) => expectedAnswers.filter((answer) => answer.kind === tool).length;
  const report = [
    `cosh-hooks soak: ${LINES} lines (${LINES - invalid} events, ${invalid} invalid) in ${elapsedS.toFixed(1)} s, ${((LINES - invalid) / elapsedS).toFixed(0)} events/s`,
    `mix: shell ${count('shell')}, Read (no hook) ${count('Read')}, Fail ${count('Fail')}, Rm ${count('Rm')}, ` +
      `Slow (timeout) ${count('Slow')}, SlowClosed (timeout, ignores SIGTERM, fail_closed) ${count('SlowClosed')}`,
    `answers: ${answered} (${answered - invalid} decisions, ${invalid} hook_errors), ${notifications} notifications; ` +
      `decisions ${JSON.stringify(decisionCounts)}`,
    `RSS MiB: first ${mib(first?.rssKib)}, last ${mib(last?.rssKib)}, peak ${mib(rssPeak)}; warm median 10-30% ${mib(early)}, 80-100% ${mib(late)}${judgeMemory ? '' : ' (not judged below 10,000 lines)'}`,
    `open fds: first ${first?.fds}, last ${last?.fds}, peak ${Math.max(...samples.map((sample) => sample.fds))}; after warm-up ${fdMin}..${fdPeak}`,
    `children of cosh-hooks during the run: at most ${liveChildrenPeak} running, ${zombieChildrenPeak} zombie at once (${samples.length} samples every ${SAMPLE_MS} ms)`,
    `hook processes at exit: ${runningAtExit.length} running ${JSON.stringify(runningAtExit.slice(0, 3))}, ${atExit.length - runningAtExit.length} zombie (${pgids.size} hook groups); ` +
      `after ${reapMs} ms: ${live.length} running, ${zombies.length} zombie`,
  ];
  process.stdout.write(`${report.join('\n')}\n\nmemory census (${QUICK_CENSUS ? 'quick' : 'full'}):\n`);
  process.stderr.write(`soak: ${LINES} lines checked; now the memory census\n`);
  const census = await runCensus(QUICK_CENSUS, (line) => process.stderr.write(`  ${line}\n`));
  for (const miss of census.problems) problem(`census ${miss}`);
  process.stdout.write(
    `${census.table}\n${problems.length === 0 ? 'checks: all passed' : `checks FAILED:\n  ${problems.join('\n  ')}`}\n`,
  );
  return problems.length === 0 ? 0 : 1;
};

const mib = (kib: number | undefined) => (kib === undefined ? '?' : (kib / 1024).toFixed(1));

main()
  .then((status) => {
    rmSync(dir, { recursive: true, force: true });
    process.exitCode = status;
  })
  .catch((error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
