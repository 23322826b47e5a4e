import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { processExecutor } from '../src/exec/process-executor.js';
import { defaultDeps } from '../src/pipeline/pipeline.js';
import { defineHooks } from '../src/registry/define.js';
import { groupAlive } from './procfs.js';
import { preToolUse, type ScriptName } from './fixtures.js';
import { comparisonRow, rawSeries, type Context, type Measured } from './measurement.js';
import { drivePipeline } from './pipeline-driver.js';
import type { Row } from './report.js';
import { summarize } from './stats.js';
import { interleave, sleep, type Counts } from './timing.js';

const TIMEOUT_MS = 200;
const KILL_GRACE_MS = 500;

/** Milliseconds from `start` until no process of the group is running (polled every millisecond). */
const untilGroupGone = async (pgid: number, start: number): Promise<number> => {
  while (groupAlive(pgid)) await sleep(1);
  return performance.now() - start;
};

/** The hook's process group id, which the script wrote first thing. */
const readPgid = (pidFile: string): number => {
  const pgid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  if (!Number.isSafeInteger(pgid) || pgid <= 1) throw new Error(`bad pid in ${pidFile}`);
  return pgid;
};

interface Overshoot {
  /** ms past the deadline until the decision (the pipeline) or the kill (the bare baseline). */
  readonly decision: number;
  /** ms past the deadline until every process of the group is gone. */
  readonly gone: number;
}

/**
 * The floor: spawn the same script bare, in its own group, and at the deadline (a plain timer)
 * SIGTERM the group, then SIGKILL it after the grace period, as the executor does.
 */
const bareTimeout = async (script: string, pidFile: string): Promise<Overshoot> => {
  const start = performance.now();
  const child = spawn(script, [], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PID_FILE: pidFile },
  });
  child.on('error', (error) => process.stderr.write(`bare ${script}: ${error.message}\n`));
  child.stdin.on('error', () => undefined);
  child.stdout.resume();
  child.stderr.resume();
  child.stdin.end('{}\n');
  await sleep(TIMEOUT_MS);
  const pgid = child.pid!;
  process.kill(-pgid, 'SIGTERM');
  const decision = performance.now() - start - TIMEOUT_MS;
  const grace = setTimeout(() => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  }, KILL_GRACE_MS);
  const gone = (await untilGroupGone(pgid, start)) - TIMEOUT_MS;
  clearTimeout(grace);
  return { decision, gone };
};

/** The pipeline: one event whose only hook is the script, under a 200 ms timeout. */
const pipelineTimeout = (script: string, pidFile: string, dir: string) => {
  const registry = defineHooks({
    PreToolUse: [{ name: 'sleeper', command: script, timeout: TIMEOUT_MS, env: { PID_FILE: pidFile } }],
  });
  const driver = drivePipeline(registry, defaultDeps(processExecutor({ killGraceMs: KILL_GRACE_MS })));
  const run = async (): Promise<Overshoot> => {
    const start = performance.now();
    const verdict = await driver.send(preToolUse(dir));
    const decision = performance.now() - start - TIMEOUT_MS;
    if (verdict.hooks[0]?.outcome !== 'timeout') throw new Error(`no timeout: ${JSON.stringify(verdict)}`);
    const gone = (await untilGroupGone(readPgid(pidFile), start)) - TIMEOUT_MS;
    return { decision, gone };
  };
  return { run, close: driver.close };
};

/** Interleaved pairs of the bare floor and the pipeline on one script. */
const measureScript = async (context: Context, script: ScriptName, counts: Counts) => {
  const pidFile = join(context.fixtures.dir, `${script}.pid`);
  const path = context.fixtures.path(script);
  const subject = pipelineTimeout(path, pidFile, context.fixtures.dir);
  try {
    return await interleave<'bare' | 'pipeline', Overshoot>(counts, {
      bare: () => bareTimeout(path, pidFile),
      pipeline: subject.run,
    });
  } finally {
    subject.close();
  }
};

/**
 * Measurement 5: a hook that sleeps 10 s with a background grandchild, under a 200 ms timeout,
 * through the pipeline: how long past the deadline until the decision, and until every process of
 * its group is gone. Zombies count as gone (see `groupAlive`). The baseline is the same script
 * spawned bare and killed by a plain timer.
 */
export const measureTimeout = async (context: Context): Promise<Measured> => {
  const counts = context.quick ? { warmup: 1, iterations: 3 } : { warmup: 1, iterations: 12 };
  const stubbornCounts = context.quick ? { warmup: 0, iterations: 1 } : { warmup: 0, iterations: 5 };
  context.log(
    `5 timeout precision: ${counts.iterations} pairs, then ${stubbornCounts.iterations} with a stubborn grandchild`,
  );
  const polite = await measureScript(context, 'sleeper.sh', counts);
  const stubborn = await measureScript(context, 'stubborn.sh', stubbornCounts);
  const target = { op: '<=', limit: 50, unit: 'ms' } as const;
  const row = (id: string, what: string, subject: number[], baseline: number[], checkP95: boolean): Row => {
    const s = summarize(subject);
    return {
      ...comparisonRow(id, what, s, summarize(baseline)),
      ...(checkP95 && { target, checked: s.p95 }),
    };
  };
  const decisions = polite.pipeline.map((run) => run.decision);
  const gone = polite.pipeline.map((run) => run.gone);
  const stubbornGone = stubborn.pipeline.map((run) => run.gone);
  return {
    rows: [
      row(
        '5a',
        `200 ms timeout: decision later than the deadline by (p95 checked)`,
        decisions,
        polite.bare.map((run) => run.decision),
        true,
      ),
      row(
        '5b',
        `200 ms timeout: whole process group gone, past the deadline (p95 checked)`,
        gone,
        polite.bare.map((run) => run.gone),
        true,
      ),
      row(
        '5c',
        `same, grandchild ignores SIGTERM: gone after the ${KILL_GRACE_MS} ms SIGKILL grace`,
        stubbornGone,
        stubborn.bare.map((run) => run.gone),
        false,
      ),
    ],
    raw: {
      '5': {
        unit: 'ms past the 200 ms deadline',
        timeoutMs: TIMEOUT_MS,
        killGraceMs: KILL_GRACE_MS,
        decision: { pipeline: rawSeries(decisions), bare: rawSeries(polite.bare.map((run) => run.decision)) },
        gone: { pipeline: rawSeries(gone), bare: rawSeries(polite.bare.map((run) => run.gone)) },
        stubbornGone: {
          pipeline: rawSeries(stubbornGone),
          bare: rawSeries(stubborn.bare.map((run) => run.gone)),
        },
      },
    },
  };
};
