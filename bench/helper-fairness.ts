/*
 * One session's huge event and another session's small guard, through the spawn helper.
 *
 *   npm run build && node dist/bench/helper-fairness.js [event MB, default 30]
 *
 * Prints, as JSON:
 * - `reader16MbMs`: the host's frame reader cutting one 16 MB frame that arrives in 64 KiB chunks
 *   (what the host does with a hook's output, the helper with a hook's stdin);
 * - `bigHookMs`: a hook that reads an event of the given size whole, through the helper;
 * - `guard`: a small guard (`cat >/dev/null; echo {}`) of another session started every 20 ms while
 *   the big one runs: how many ran, the slowest and the median (ms from subscribe to result);
 *   `idleMedianMs` is the same guard's median with nothing else running.
 *
 * Not a test: it asserts nothing and its figures depend on the machine (docs/performance.md).
 */
import { performance } from 'node:perf_hooks';
import { firstValueFrom } from 'rxjs';
import { processExecutor } from '../src/exec/process-executor.js';
import { resultOnly } from '../src/exec/port.js';
import { frame, frameReader } from '../src/exec/helper/spawn-protocol.js';
import type { HookEvent } from '../src/events/codecs.js';
import { commandHook } from '../src/testing/index.js';

const megabytes = Number(process.argv[2] ?? '30');

const readerMs = (): number => {
  const bytes = frame(13, 1, Buffer.alloc(16 * 1024 * 1024, 0x61));
  let frames = 0;
  const push = frameReader(() => (frames += 1));
  const start = performance.now();
  for (let at = 0; at < bytes.length; at += 64 * 1024) push(bytes.subarray(at, at + 64 * 1024));
  const elapsed = performance.now() - start;
  if (frames !== 1) throw new Error(`expected one frame, got ${frames}`);
  return elapsed;
};

const event = (session: string, command: string): HookEvent => ({
  hook_event_name: 'PreToolUse',
  session_id: session,
  cwd: process.cwd(),
  timestamp: '2026-01-01T00:00:00Z',
  tool_name: 'shell',
  tool_input: { command },
});

const main = async (): Promise<void> => {
  const reader16MbMs = readerMs();
  const executor = processExecutor({ spawnHelper: 'always' });
  const guard = commandHook('guard', { command: `cat >/dev/null; echo '{"decision":"allow"}'` });
  const reader = commandHook('reader', { command: `wc -c | { read n; echo "{\\"reason\\":\\"$n\\"}"; }` });
  // Warm the helper up: its start is not what is measured.
  await firstValueFrom(executor(guard, event('warm', 'ls')).pipe(resultOnly()));
  const idle: number[] = [];
  for (let run = 0; run < 7; run += 1) {
    const start = performance.now();
    await firstValueFrom(executor(guard, event('idle', 'ls')).pipe(resultOnly()));
    idle.push(performance.now() - start);
  }
  idle.sort((a, b) => a - b);

  const big = event('big', 'x'.repeat(megabytes * 1024 * 1024));
  const bigStart = performance.now();
  let bigDone = false;
  const bigResult = firstValueFrom(executor(reader, big).pipe(resultOnly())).then((result) => {
    bigDone = true;
    return { result, ms: performance.now() - bigStart };
  });
  const latencies: number[] = [];
  const wrong: unknown[] = [];
  while (!bigDone) {
    const start = performance.now();
    const result = await firstValueFrom(executor(guard, event('small', 'ls')).pipe(resultOnly()));
    latencies.push(performance.now() - start);
    if (result.outcome !== 'ok' || result.output.decision !== 'allow') wrong.push(result);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { result, ms } = await bigResult;
  latencies.sort((a, b) => a - b);
  const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 10) / 10);
  process.stdout.write(
    `${JSON.stringify(
      {
        eventMb: megabytes,
        reader16MbMs: round(reader16MbMs),
        bigHookMs: round(ms),
        bigHookResult: result,
        guard: {
          runs: latencies.length,
          wrong,
          maxMs: round(latencies[latencies.length - 1]),
          medianMs: round(latencies[Math.floor(latencies.length / 2)]),
          idleMedianMs: round(idle[3]),
        },
      },
      null,
      2,
    )}\n`,
  );
};

await main();
