import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, finished, jsonl, sandbox, start } from './helpers.js';

// Issue 38, class 5: the audit file on a full disk, and a signal that comes with the end of input.
// A full disk is made real with RLIMIT_FSIZE (`ulimit -f`): a write past the limit is cut short,
// then fails with EFBIG, exactly as one on a full device is cut short and fails with ENOSPC.

const box = sandbox('');
afterAll(() => box.remove());

const events = (count: number, from = 0) =>
  jsonl(
    ...Array.from({ length: count }, (_, i) => ({
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_use_id: `call-${from + i}`,
      tool_name: 'shell',
      tool_input: { command: 'x'.repeat(40) },
    })),
  );

/** `run --audit file` with the file size limited to `blocks` × 512 bytes (sh's `ulimit -f`). */
const limitedRun = (file: string, blocks: number, input: string) => {
  const argv = [process.execPath, BIN, 'run', ...box.flags, '--audit', file].map((word) => `'${word}'`);
  const child = spawn('/bin/sh', ['-c', `ulimit -f ${blocks}; exec ${argv.join(' ')}`]);
  child.stdin.on('error', () => undefined);
  const done = finished(child);
  child.stdin.end(input);
  return done;
};

/** Every line of the file parses as JSON, and the file ends with a line break. */
const expectJsonLines = (file: string): Record<string, unknown>[] => {
  const text = readFileSync(file, 'utf8');
  if (text !== '') expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
};

describe('run --audit on a full disk', () => {
  it('keeps whole records only, says how many were lost, exits 3, and the next run appends valid lines', async () => {
    const file = box.path('full.jsonl');
    const first = await cli(['run', ...box.flags, '--audit', file], { input: events(2) });
    expect(first.code).toBe(0);
    const before = expectJsonLines(file).length;
    const size = readFileSync(file).length;
    // Room for a few more records, not for 300 events' worth: the write is cut short mid-record.
    const run = await limitedRun(file, Math.ceil(size / 512) + 2, events(300, 100));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /cosh-hooks: --audit: [1-9][0-9]* record\(s\) not written \(.*(EFBIG|too large)/,
    );
    const lost = Number(/--audit: ([0-9]+) record/.exec(run.stderr)?.[1]);
    const kept = expectJsonLines(file).length - before;
    // 300 events, two records each (received, decision): every one written whole or counted lost.
    expect(kept + lost).toBe(600);
    const again = await cli(['run', ...box.flags, '--audit', file], { input: events(1, 900) });
    expect(again.code).toBe(0);
    const records = expectJsonLines(file);
    expect(records.at(-1)).toMatchObject({ record: 'decision', tool_use_id: 'call-900' });
  });

  it('a file that ends in the middle of a line (a run killed mid-write) gets the next record on a new line', async () => {
    const file = box.path('half.jsonl');
    writeFileSync(file, '{"type":"audit","record":"event_received"\n');
    appendFileSync(file, '{"type":"audit","rec');
    const run = await cli(['run', ...box.flags, '--audit', file], { input: events(1) });
    expect(run.code).toBe(0);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[1]).toBe('{"type":"audit","rec');
    expect(JSON.parse(lines[2] ?? '')).toMatchObject({ record: 'event_received', tool_use_id: 'call-0' });
  });
});

describe('a signal at the end of input', () => {
  let server: Server | undefined;
  afterAll(
    () => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))),
  );

  it('SIGINT after every answer is written, while the run ends, exits 130', async () => {
    // The run's end waits for the collector: the signal comes once the input has ended and every
    // answer is out, when the run already counts as done.
    const running: { child?: ReturnType<typeof start> } = {};
    server = createServer((request, response) => {
      request.resume();
      running.child?.kill('SIGINT');
      request.on('end', () => setTimeout(() => response.writeHead(200).end('{}'), 200));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const child = start(['run', ...box.flags, '--otlp-endpoint', endpoint]);
    running.child = child;
    const done = finished(child);
    child.stdin.end(events(1));
    const run = await done;
    expect(run.stdout).toContain('"decision"');
    expect(run.code).toBe(130);
  });
});
