import { randomUUID } from 'node:crypto';
import { asyncScheduler, from, lastValueFrom, mergeMap, tap } from 'rxjs';
import { runHook } from '../../operators/runHooks.js';
import { processExecutor } from '../../src/exec/process-executor.js';
import { allProcesses, environHas, openFds } from '../../bench/procfs.js';
import { INLINE_SH_ALLOW, preToolUse } from '../../bench/fixtures.js';
import { commandHook, type Context, type Measured } from '../../bench/measurement.js';
import type { Row } from '../../bench/report.js';
import { sleep } from '../../bench/timing.js';

const KILL_GRACE_MS = 500;
const CONCURRENCY = 4;

interface Census {
  readonly fds: number;
  /** Our child processes, zombies included, plus any process still carrying this run's tag. */
  readonly processes: number;
  readonly zombies: number;
}

const census = (tag: string): Census => {
  const fds = openFds('self');
  if (fds === undefined) throw new Error('cannot count open file descriptors: /proc/self/fd is unreadable');
  const table = allProcesses();
  const children = table.filter((info) => info.ppid === process.pid);
  const tagged = table.filter((info) => info.ppid !== process.pid && environHas(info.pid, tag));
  return {
    fds,
    processes: children.length + tagged.length,
    zombies: children.filter((info) => info.state === 'Z').length,
  };
};

/**
 * Memory census, rows 6g–6h: 5,000 hooks through the executor in this process, four at a time,
 * with every way a hook ends mixed in (97% allow, then 1% each: exit 1, invalid output, timeout
 * → group kill). Open file descriptors and processes are counted before and after; every process a
 * hook starts carries a tag in its environment, so a stray grandchild would be found too.
 */
export const measureLeaks = async (context: Context): Promise<Measured> => {
  const total = context.quick ? 500 : 5_000;
  const tag = `COSH_SOAK_RUN=${randomUUID()}`;
  const env = { COSH_SOAK_RUN: tag.slice('COSH_SOAK_RUN='.length) };
  const hooks = {
    allow: commandHook('leak-allow', INLINE_SH_ALLOW, { env }),
    exit: commandHook('leak-exit', 'echo failing >&2; exit 1', { env }),
    invalid: commandHook('leak-invalid', 'echo not-json', { env }),
    timeout: commandHook('leak-timeout', 'sleep 5', { env, timeout: 50 }),
  };
  const hookFor = (n: number) =>
    n % 100 === 97
      ? hooks.exit
      : n % 100 === 98
        ? hooks.invalid
        : n % 100 === 99
          ? hooks.timeout
          : hooks.allow;
  const executor = processExecutor({ killGraceMs: KILL_GRACE_MS });
  const deps = { executor, scheduler: asyncScheduler };
  const event = preToolUse(context.fixtures.dir);
  const outcomes: Record<string, number> = {};
  const runAll = (count: number) =>
    lastValueFrom(
      from(Array.from({ length: count }, (_, n) => n)).pipe(
        mergeMap((n) => runHook(hookFor(n), event, deps), CONCURRENCY),
        tap((result) => (outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1)),
      ),
      { defaultValue: undefined },
    );
  // Warm-up, so handles Node opens once on first use (the SIGCHLD pipe…) are in "before" too.
  await runAll(100);
  await sleep(KILL_GRACE_MS + 100);
  const before = census(tag);
  for (const key of Object.keys(outcomes)) delete outcomes[key];
  context.log(`6g ${total} hooks through the executor, ${CONCURRENCY} at a time`);
  await runAll(total);
  // The last timed-out hooks get their SIGKILL after the grace period; wait for it.
  await sleep(KILL_GRACE_MS + 100);
  const after = census(tag);
  const expected = { ok: total * 0.97, exit: total / 100, invalid_output: total / 100, timeout: total / 100 };
  const keys = new Set([...Object.keys(outcomes), ...Object.keys(expected)]);
  if ([...keys].some((key) => outcomes[key] !== expected[key as keyof typeof expected])) {
    throw new Error(`unexpected outcomes ${JSON.stringify(outcomes)}, expected ${JSON.stringify(expected)}`);
  }
  const rows: Row[] = [
    {
      id: '6g',
      what: `open file descriptors after ${total.toLocaleString('en-US')} hooks (after − before)`,
      subject: `after: ${after.fds}`,
      baseline: `before: ${before.fds}`,
      target: { op: '=', limit: 0, unit: '' },
      checked: after.fds - before.fds,
    },
    {
      id: '6h',
      what: `processes after those hooks, zombies and tagged grandchildren included (after − before)`,
      subject: `after: ${after.processes} (${after.zombies} zombie)`,
      baseline: `before: ${before.processes} (${before.zombies} zombie)`,
      target: { op: '=', limit: 0, unit: '' },
      checked: after.processes - before.processes,
    },
  ];
  return { rows, raw: { '6g': { hooks: total, concurrency: CONCURRENCY, outcomes, before, after } } };
};
