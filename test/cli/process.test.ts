import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { groupAlive, waitFor } from '../../bench/procfs.js';
import { finished, hookTable, jsonl, prints, sandbox, start, withoutTimes } from './helpers.js';

const box = sandbox(
  [
    hookTable('PreToolUse', {
      name: 'guard',
      matcher: '^shell$',
      command: `grep -q 'rm -rf' && ${prints({ decision: 'block', reason: 'no rm -rf' })} || ${prints({ decision: 'allow' })}`,
    }),
    hookTable('PreToolUse', {
      name: 'notify',
      matcher: '^shell$',
      command: prints({ systemMessage: 'checked' }),
    }),
    // Tool "hang" records its process group and sleeps: for cancellation.
    hookTable('PreToolUse', {
      name: 'hang',
      matcher: '^hang$',
      command: 'echo $$ > "$PGID_FILE"; sleep 30',
      timeout: 60_000,
    }),
    // Sessions named "slow-*" take a while: for per-session concurrency.
    hookTable('Stop', {
      name: 'slow-session',
      command: 'case "$COSH_SESSION_ID" in slow-*) sleep 0.3 ;; esac',
    }),
  ].join('\n'),
);
afterAll(() => box.remove());

const children = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

let runs = 0;
/** Starts `run`; a "hang" hook of this process writes its process group id to `pgidFile`. */
const run = (...extra: string[]) => {
  runs += 1;
  const pgidFile = box.path(`pgid-${runs}`);
  const child = Object.assign(start(['run', ...box.flags, ...extra], { env: { PGID_FILE: pgidFile } }), {
    pgidFile,
  });
  children.add(child);
  return child;
};

/** Reads a child's stdout line by line, on demand. */
const lineReader = (child: ChildProcessWithoutNullStreams) => {
  const queued: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter !== undefined) waiter(line);
    else queued.push(line);
  });
  return {
    next: (): Promise<Record<string, unknown>> =>
      new Promise((resolve) => {
        const line = queued.shift();
        const parse = (text: string) => resolve(withoutTimes(JSON.parse(text) as Record<string, unknown>));
        if (line !== undefined) parse(line);
        else waiting.push(parse);
      }),
    pending: () => queued.length,
  };
};

const shell = (command: string, id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 'live',
  tool_name: 'shell',
  tool_use_id: id,
  tool_input: { command },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('cosh-hooks run as a long-lived process', () => {
  it('talks over a pipe: each decision is readable before the next event is written', async () => {
    const child = run();
    const lines = lineReader(child);

    child.stdin.write(jsonl(shell('ls -la', 't1')));
    expect(await lines.next()).toMatchObject({ type: 'stream_event', event: { hook_name: 'notify' } });
    expect(await lines.next()).toMatchObject({
      type: 'hook_decision',
      seq: 1,
      tool_use_id: 't1',
      decision: 'allow',
    });

    child.stdin.write(jsonl(shell('rm -rf /', 't2')));
    expect(await lines.next()).toMatchObject({ event: { hook_name: 'guard', message: 'no rm -rf' } });
    expect(await lines.next()).toEqual({
      type: 'hook_decision',
      seq: 2,
      hook_event_name: 'PreToolUse',
      session_id: 'live',
      tool_use_id: 't2',
      decision: 'block',
      reason: 'no rm -rf',
      hooks: [
        { name: 'guard', source: 'config', decision: 'block', outcome: 'ok' },
        { name: 'notify', source: 'config', outcome: 'skipped' },
      ],
    });

    child.stdin.write('oops\n');
    expect(await lines.next()).toMatchObject({ type: 'hook_error', line: 3 });
    expect(lines.pending()).toBe(0);

    child.stdin.end();
    expect(await finished(child)).toMatchObject({ code: 0, stderr: '' });
  });

  it('on SIGTERM kills running hook groups, keeps decided lines, and exits 143 promptly', async () => {
    const child = run();
    const lines = lineReader(child);
    child.stdin.write(jsonl(shell('ls', 'before'), { ...shell('x', 'hanging'), tool_name: 'hang' }));
    expect(await lines.next()).toMatchObject({ type: 'stream_event' });
    expect(await lines.next()).toMatchObject({ type: 'hook_decision', tool_use_id: 'before' });
    // `echo $$ > file` creates the file before it writes: wait for the whole line.
    const written = () => existsSync(child.pgidFile) && readFileSync(child.pgidFile, 'utf8').endsWith('\n');
    while (!written()) await sleep(20);
    const pgid = Number(readFileSync(child.pgidFile, 'utf8'));
    expect(pgid).toBeGreaterThan(1);
    expect(groupAlive(pgid)).toBe(true);

    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    const result = await finished(child);
    expect(result.code).toBe(143);
    expect(Date.now() - stoppedAt).toBeLessThan(2000);
    // The group was signalled before the exit; its processes may take a moment to be reaped.
    for (let tries = 0; tries < 50 && groupAlive(pgid); tries += 1) await sleep(20);
    expect(groupAlive(pgid)).toBe(false);
    expect(lines.pending()).toBe(0);
  });

  it('with --concurrency per-session, a slow session does not hold up another', async () => {
    const child = run('--concurrency', 'per-session');
    const lines = lineReader(child);
    child.stdin.end(
      jsonl(
        { hook_event_name: 'Stop', session_id: 'slow-a' },
        { hook_event_name: 'Stop', session_id: 'fast-b' },
        { hook_event_name: 'Stop', session_id: 'slow-a', stop_hook_active: true },
      ),
    );
    const order = [await lines.next(), await lines.next(), await lines.next()].map((line) => [
      line['session_id'],
      line['seq'],
    ]);
    expect(order).toEqual([
      ['fast-b', 2],
      ['slow-a', 1],
      ['slow-a', 3],
    ]);
    expect((await finished(child)).code).toBe(0);
  });

  it('stops reading stdin while too far behind (memory stays flat on an endless stream)', async () => {
    // Every event hangs in its hook: the backlog only grows. 20 000 events of ~250 bytes is 5 MB,
    // far more than the 256-event high-water mark plus what the pipe buffers hold.
    const child = run();
    const event = `${JSON.stringify({ ...shell('x', 'id'), tool_name: 'hang', padding: 'p'.repeat(150) })}\n`;
    for (let i = 0; i < 20_000; i += 1) child.stdin.write(event);
    const written = child.stdin.writableLength;
    // Once it has read anything, the run is serving and its signal handlers are installed.
    expect(await waitFor(() => child.stdin.writableLength < written, 10_000)).toBe(true);
    await sleep(800);
    // The child read a few hundred lines and then paused: most of what we wrote is still queued here.
    expect(child.stdin.writableLength).toBeGreaterThan(4_000_000);
    child.kill('SIGTERM');
    expect((await finished(child)).code).toBe(143);
  });
});
