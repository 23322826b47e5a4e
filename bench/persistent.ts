import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processExecutor } from '../src/exec/process-executor.js';
import type { CommandHook } from '../src/registry/hook.js';
import { defineHooks } from '../src/registry/define.js';
import { preToolUse, stdinLine } from './fixtures.js';
import { medianCell, rawSeries, type Context, type Measured } from './measurement.js';
import { runThroughExecutor } from './per-hook.js';
import { formatNumber, type Row } from './report.js';
import { ratio, summarize } from './stats.js';
import { interleave, timed, type Counts } from './timing.js';

/**
 * The same hook in both modes: it answers every line it reads, so run per event it answers its one
 * line and exits at EOF, and run persistent it answers line after line. Each parses the event and
 * answers with the JSON library of its language, as real hooks do, echoing the request id a
 * persistent hook's answer must hold (absent per event, where it is not needed).
 */
const LOOP_HOOKS = {
  'allow-loop.py': `import json
import sys

for line in sys.stdin:
    event = json.loads(line)
    answer = {"decision": "allow", "reason": "checked " + event["tool_name"]}
    if "cosh_request_id" in event:
        answer["cosh_request_id"] = event["cosh_request_id"]
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
`,
  'allow-loop.mjs': `import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin })) {
  const event = JSON.parse(line);
  const answer = { decision: 'allow', reason: 'checked ' + event.tool_name, cosh_request_id: event.cosh_request_id };
  process.stdout.write(JSON.stringify(answer) + '\\n');
}
`,
} as const;

/** The interpreter behind `python3`, named directly (a pyenv shim would cost tens of ms by itself). */
const realPython = (): string =>
  execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

const hookOf = (name: string, command: string, persistent: boolean): CommandHook => {
  const hook = defineHooks({ PreToolUse: [{ name, command, persistent }] }, 'bench').PreToolUse[0];
  if (hook?.kind !== 'command') throw new Error(`could not define hook ${name}`);
  return hook;
};

/**
 * A bare co-process driven by a plain loop: the floor of a persistent hook. One child process with
 * piped stdio; each round trip writes one line and resolves with the next line it prints.
 */
const bareCoProcess = (file: string, args: readonly string[]) => {
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  let waiting: ((line: string) => void) | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const resolve = waiting;
      waiting = undefined;
      resolve?.(line);
    }
  });
  return {
    roundTrip: (line: string): Promise<void> =>
      new Promise<string>((resolve) => {
        waiting = resolve;
        child.stdin.write(line);
      }).then((answer) => {
        if ((JSON.parse(answer) as { decision?: unknown }).decision !== 'allow') {
          throw new Error(`co-process did not allow: ${answer}`);
        }
      }),
    close: () => {
      child.stdin.end();
      child.kill('SIGKILL');
    },
  };
};

interface Case {
  readonly id: string;
  readonly what: string;
  readonly file: string;
  readonly script: keyof typeof LOOP_HOOKS;
  readonly target: number;
  readonly counts: Counts;
}

/**
 * Measurement 8 (persistent hooks, spec §8):
 * - 8a/8b: the same Python / Node hook through `processExecutor()`, persistent against a process per
 *   event, interleaved one event each per round. The target is on the speed-up (per-event median /
 *   persistent median).
 * - 8c: a persistent Node hook through the executor against the same program as a bare co-process
 *   driven by a plain loop (write a line, await a line, parse it). The target is on the difference
 *   of the medians: what the engine adds per event.
 */
export const measurePersistent = async (context: Context): Promise<Measured> => {
  const { dir } = context.fixtures;
  for (const [name, text] of Object.entries(LOOP_HOOKS)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  const event = preToolUse(dir);
  const line = stdinLine(event);
  const executor = processExecutor();
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  const perEvent: Counts = context.quick ? { warmup: 1, iterations: 8 } : { warmup: 5, iterations: 60 };
  const cases: Case[] = [
    {
      id: '8a',
      what: 'Python hook',
      file: realPython(),
      script: 'allow-loop.py',
      target: 30,
      counts: perEvent,
    },
    {
      id: '8b',
      what: 'Node hook',
      file: process.execPath,
      script: 'allow-loop.mjs',
      target: 50,
      counts: perEvent,
    },
  ];
  for (const testCase of cases) {
    const command = `${testCase.file} ${join(dir, testCase.script)}`;
    const persistent = hookOf(`bench-${testCase.id}-persistent`, command, true);
    const spawned = hookOf(`bench-${testCase.id}-per-event`, command, false);
    context.log(
      `${testCase.id} ${testCase.what}, persistent vs a process per event: ${testCase.counts.iterations} pairs`,
    );
    const run = executor.openRun();
    try {
      const samples = await interleave(testCase.counts, {
        subject: () => timed(() => runThroughExecutor(run.executor, persistent, event)),
        baseline: () => timed(() => runThroughExecutor(run.executor, spawned, event)),
      });
      const subject = summarize(samples.subject);
      const baseline = summarize(samples.baseline);
      const speedUp = baseline.median / subject.median;
      rows.push({
        id: testCase.id,
        what: `${testCase.what} per event, persistent vs a process per event (same script, both through the executor)`,
        subject: `${medianCell(subject, 'ms')}: ${formatNumber(speedUp)}× faster`,
        baseline: medianCell(baseline, 'ms'),
        // subject / baseline would print 0.00×: the speed-up in the cosh-hooks cell says it instead.
        target: { op: '>=', limit: testCase.target, unit: '× faster' },
        checked: speedUp,
      });
      raw[testCase.id] = {
        what: rows.at(-1)?.what,
        command,
        unit: 'ms',
        subject: rawSeries(samples.subject),
        baseline: rawSeries(samples.baseline),
        speedUp,
      };
    } finally {
      run.unsubscribe();
    }
  }

  const counts: Counts = context.quick
    ? { warmup: 300, iterations: 2000 }
    : { warmup: 2000, iterations: 20_000 };
  context.log(`8c persistent Node hook vs a bare co-process loop: ${counts.iterations} pairs`);
  const script = join(dir, 'allow-loop.mjs');
  const hook = hookOf('bench-8c', `${process.execPath} ${script}`, true);
  const run = executor.openRun();
  const bare = bareCoProcess(process.execPath, [script]);
  try {
    const samples = await interleave(counts, {
      subject: () => timed(() => runThroughExecutor(run.executor, hook, event)),
      baseline: () => timed(() => bare.roundTrip(line)),
    });
    const subject = summarize(samples.subject);
    const baseline = summarize(samples.baseline);
    const overhead = subject.median - baseline.median;
    rows.push({
      id: '8c',
      what: 'persistent Node hook through the executor vs the same co-process driven by a plain loop (added ms per event)',
      subject: `${medianCell(subject, 'ms')}: +${formatNumber(overhead)} ms`,
      baseline: medianCell(baseline, 'ms'),
      ratio: ratio(subject.median, baseline.median),
      target: { op: '<=', limit: 0.3, unit: 'ms' },
      checked: overhead,
    });
    raw['8c'] = {
      what: rows.at(-1)?.what,
      unit: 'ms',
      subject: rawSeries(samples.subject),
      baseline: rawSeries(samples.baseline),
      overheadMs: overhead,
    };
  } finally {
    run.unsubscribe();
    bare.close();
  }
  return { rows, raw };
};
