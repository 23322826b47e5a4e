import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_END_MS } from '../../src/cli/audit-file.js';
import { BIN, jsonl, sandbox, type Sandbox } from './helpers.js';

/**
 * `run --audit -` when nobody reads stderr: a pipe (a FIFO here, so that nothing reads it at all,
 * not even a parent's stream buffer) whose reading starts late or never.
 */
const unreadPipe = (box: Sandbox) => {
  const path = box.path('stderr.fifo');
  execFileSync('mkfifo', [path]);
  // The reading end is opened (not read) first, so opening the writing end does not block.
  const readEnd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeEnd = openSync(path, constants.O_WRONLY);
  return {
    writeEnd,
    /** Reads from now on, until every writer has closed it. */
    readAll: () =>
      new Promise<string>((resolve, reject) => {
        const socket = new Socket({ fd: readEnd, readable: true, writable: false });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      }),
  };
};

interface Started {
  readonly child: ChildProcess;
  readonly decisions: () => number;
  readonly allDecided: Promise<void>;
  readonly exited: Promise<number | null>;
}

/** Starts `run --audit -` with stderr on `stderrFd`, sends `events`, resolves once each is decided. */
const startRun = (box: Sandbox, stderrFd: number, args: readonly string[], events: string): Started => {
  const child = spawn(process.execPath, [BIN, 'run', ...box.flags, '--audit', '-', ...args], {
    stdio: ['pipe', 'pipe', stderrFd],
  });
  const expected = events.split('\n').filter((line) => line !== '').length;
  let decisions = 0;
  let buffered = '';
  let allDecided: () => void = () => undefined;
  const decided = new Promise<void>((resolve) => (allDecided = resolve));
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    decisions += lines.filter((line) => line.startsWith('{"type":"hook_decision"')).length;
    if (decisions === expected) allDecided();
  });
  running = child;
  child.stdin!.on('error', () => undefined);
  child.stdin!.write(events);
  return {
    child,
    decisions: () => decisions,
    allDecided: decided,
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
};

const event = (n: number, input: unknown) =>
  JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'unread-stderr',
    cwd: '/tmp',
    tool_name: 'shell',
    tool_use_id: `toolu_${n}`,
    tool_input: input,
  });

let box: Sandbox | undefined;
let running: ChildProcess | undefined;
afterEach(() => {
  if (running?.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
  box?.remove();
});

describe('cosh-hooks run --audit - with a stderr nobody reads', () => {
  it('ends within its bound after the input ends, every decision written, and stderr holds whole records in order', async () => {
    box = sandbox('');
    const pipe = unreadPipe(box);
    const count = 2000; // about 600 KiB of records: ten times what the kernel's pipe holds
    const run = startRun(
      box,
      pipe.writeEnd,
      [],
      jsonl(...Array.from({ length: count }, (_, n) => event(n, { n }))),
    );
    closeSync(pipe.writeEnd);
    await run.allDecided;
    const ended = Date.now();
    run.child.stdin!.end();
    const code = await run.exited;
    const took = Date.now() - ended;
    // Records were lost (the pipe filled): `run` exits 3 once every answer is out (docs/audit.md).
    expect(code).toBe(3);
    expect(run.decisions()).toBe(count);
    // It gave up after its bound: it did not end early, and it did not wait longer.
    expect(took).toBeGreaterThanOrEqual(AUDIT_END_MS - 100);
    expect(took).toBeLessThan(AUDIT_END_MS + 3000);
    // What reached the pipe: the first records, whole and in order, up to where the pipe filled
    // (the last one may be cut there). The count of what was lost is written after them, to a
    // pipe that is full: this reader cannot see it (the next test reads, late, and does).
    const lines = (await pipe.readAll()).split('\n');
    lines.pop();
    expect(lines.length).toBeGreaterThan(10);
    const records = lines.map((line) => JSON.parse(line) as { record: string; seq: number });
    expect(records.map((r) => `${r.record} ${r.seq}`)).toEqual(
      records.map((_, i) => `${i % 2 === 0 ? 'event_received' : 'decision'} ${Math.floor(i / 2) + 1}`),
    );
  }, 30_000);

  it('read late: every record is written or counted, past the 16 MiB bound too, and stderr says how many were dropped', async () => {
    box = sandbox('');
    const pipe = unreadPipe(box);
    // `--otlp-content` puts the tool input in event_received: 100 KiB a record, 20 MiB in all.
    const input = { command: 'x'.repeat(100 * 1024) };
    const count = 200;
    const run = startRun(
      box,
      pipe.writeEnd,
      ['--otlp-content'],
      jsonl(...Array.from({ length: count }, (_, n) => event(n, input))),
    );
    closeSync(pipe.writeEnd);
    await run.allDecided;
    run.child.stdin!.end();
    // The run is now waiting for stderr: reading starts, and everything it kept comes out.
    const text = await pipe.readAll();
    // Past the bound some records were dropped: exit status 3 (docs/audit.md).
    expect(await run.exited).toBe(3);
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const report = lines.pop()!;
    const dropped = Number(/^cosh-hooks: --audit: (\d+) record\(s\) not written$/.exec(report)?.[1]);
    expect(dropped).toBeGreaterThan(0);
    const records = lines.map((line) => JSON.parse(line) as { record: string; seq: number });
    // Nothing lost without being counted: 2 records per event, written or dropped.
    expect(records.length + dropped).toBe(2 * count);
    // Order kept: by event, and event_received before decision within one.
    const keys = records.map((r) => r.seq * 2 + (r.record === 'decision' ? 1 : 0));
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(new Set(records.map((r) => r.record))).toEqual(new Set(['event_received', 'decision']));
  }, 60_000);
});
