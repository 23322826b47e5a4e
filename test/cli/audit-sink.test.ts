import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fdTarget, streamTarget } from '../../src/cli/audit-file.js';
import { lineSink, type ChunkTarget } from '../../src/cli/audit-sink.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A target that records each write and holds it until `release` (or answers at once when `instant`). */
const heldTarget = (instant = false) => {
  const chunks: string[] = [];
  const waiting: ((error?: unknown) => void)[] = [];
  let ended = false;
  const target: ChunkTarget = {
    write: (chunk, done) => {
      chunks.push(chunk);
      if (instant) setImmediate(done);
      else waiting.push(done);
    },
    end: (done) => {
      ended = true;
      done();
    },
  };
  return {
    target,
    chunks,
    inFlight: () => waiting.length,
    ended: () => ended,
    release: (error?: unknown) => waiting.shift()?.(error),
  };
};

const line = (n: number, width = 10) => `${String(n).padStart(width - 1, '0')}\n`;

describe('lineSink', () => {
  it('writes the lines of one turn as one write, in order', async () => {
    const held = heldTarget(true);
    const sink = lineSink(held.target, { bound: 1000 });
    sink.write(line(1));
    sink.write(line(2));
    sink.write(line(3));
    expect(held.chunks).toEqual([]); // nothing before the turn ends
    await turn();
    expect(held.chunks).toEqual([line(1) + line(2) + line(3)]);
    expect(await sink.close(1000)).toEqual({ dropped: 0 });
    expect(held.ended()).toBe(true);
  });

  it('writes at most once per turn, however many turns have lines', async () => {
    const held = heldTarget(true);
    const sink = lineSink(held.target, { bound: 100_000 });
    let turns = 0;
    for (let n = 0; n < 200; n++) {
      sink.write(line(n));
      if (n % 3 === 2) {
        await turn();
        turns += 1;
      }
    }
    expect(await sink.close(1000)).toEqual({ dropped: 0 });
    expect(held.chunks.length).toBeLessThanOrEqual(turns + 1);
    expect(held.chunks.join('')).toBe(Array.from({ length: 200 }, (_, n) => line(n)).join(''));
  });

  it('keeps one write in flight: lines of later turns wait and go out together, in order', async () => {
    const held = heldTarget();
    const sink = lineSink(held.target, { bound: 1000 });
    sink.write(line(1));
    await turn();
    sink.write(line(2));
    await turn();
    sink.write(line(3));
    await turn();
    expect(held.chunks).toEqual([line(1)]);
    expect(held.inFlight()).toBe(1);
    held.release();
    await turn();
    expect(held.chunks).toEqual([line(1), line(2) + line(3)]);
    held.release();
    expect(await sink.close(1000)).toEqual({ dropped: 0 });
  });

  it('writes start at least the interval apart: lines that come sooner share the next write; the end does not wait', async () => {
    const held = heldTarget(true);
    let clock = 0;
    const due: { at: number; run: () => void }[] = [];
    const sink = lineSink(held.target, {
      bound: 1000,
      minIntervalMs: 10,
      now: () => clock,
      setTimer: (run, ms) => {
        const timer = { at: clock + ms, run };
        due.push(timer);
        return () => due.splice(due.indexOf(timer), 1);
      },
    });
    sink.write(line(1));
    await turn();
    expect(held.chunks).toEqual([line(1)]); // the first write goes out at the end of its turn
    await turn(); // its completion
    clock = 4;
    sink.write(line(2));
    await turn();
    clock = 7;
    sink.write(line(3));
    await turn();
    expect(held.chunks).toEqual([line(1)]);
    expect(due.map((timer) => timer.at)).toEqual([10]);
    clock = 10;
    due.shift()!.run();
    expect(held.chunks).toEqual([line(1), line(2) + line(3)]);
    await turn();
    clock = 12;
    sink.write(line(4));
    await turn();
    expect(due.map((timer) => timer.at)).toEqual([20]);
    const closed = sink.close(1000); // the queued line goes out now, and its timer is cancelled
    expect(due.map((timer) => timer.at)).toEqual([1012]); // only the end's own bound
    expect(await closed).toEqual({ dropped: 0 });
    expect(due).toEqual([]);
    expect(held.chunks).toEqual([line(1), line(2) + line(3), line(4)]);
  });

  it('loses nothing up to the bound while the target is blocked', async () => {
    const held = heldTarget();
    const sink = lineSink(held.target, { bound: 100 });
    for (let n = 0; n < 10; n++) sink.write(line(n)); // 10 × 10 = exactly the bound
    await turn();
    const closed = sink.close(1000);
    held.release();
    expect(await closed).toEqual({ dropped: 0 });
    expect(held.chunks.join('')).toBe(Array.from({ length: 10 }, (_, n) => line(n)).join(''));
  });

  it('drops and counts the lines past the bound (in flight and queued count), and keeps those that fit', async () => {
    const held = heldTarget();
    const sink = lineSink(held.target, { bound: 100 });
    for (let n = 0; n < 6; n++) sink.write(line(n)); // 60 in flight after the turn
    await turn();
    for (let n = 6; n < 10; n++) sink.write(line(n)); // 100: fits
    sink.write(line(10)); // 110: dropped
    sink.write('x'.repeat(200)); // dropped
    held.release();
    await turn();
    sink.write(line(11)); // the queue went out: room again
    const closed = sink.close(1000);
    held.release();
    await turn();
    held.release();
    expect(await closed).toEqual({ dropped: 2 });
    expect(held.chunks.join('')).toBe([...Array.from({ length: 10 }, (_, n) => line(n)), line(11)].join(''));
  });

  it('a blocked target: the end waits its bound, then counts what is still waiting as not written', async () => {
    const held = heldTarget();
    const sink = lineSink(held.target, { bound: 1000 });
    sink.write(line(1));
    await turn();
    sink.write(line(2));
    sink.write(line(3));
    const started = Date.now();
    const tally = await sink.close(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(tally).toEqual({ dropped: 3, gaveUpAfterMs: 100 });
    expect(held.ended()).toBe(false);
    held.release(); // the write finishing later changes nothing
    sink.write(line(4));
    expect((await sink.close(100)).dropped).toBe(3);
  });

  it('a failed write: its lines, the queued ones and every later one are counted, with the error', async () => {
    const held = heldTarget();
    const sink = lineSink(held.target, { bound: 1000 });
    sink.write(line(1));
    await turn();
    sink.write(line(2));
    held.release(new Error('EIO: i/o error'));
    sink.write(line(3));
    await turn();
    expect(held.chunks).toEqual([line(1)]);
    expect(await sink.close(1000)).toEqual({ dropped: 3, error: 'EIO: i/o error' });
  });
});

describe('audit targets over real files and pipes', () => {
  it('a file gets every line, in order, across many turns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cosh-sink-'));
    try {
      const file = join(dir, 'audit.jsonl');
      const sink = lineSink(fdTarget(openSync(file, 'a', 0o600)), { bound: 1 << 20 });
      const lines = Array.from({ length: 5000 }, (_, n) => line(n, 40));
      for (const [n, text] of lines.entries()) {
        sink.write(text);
        if (n % 97 === 0) await turn();
      }
      expect(await sink.close(5000)).toEqual({ dropped: 0 });
      expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('EPIPE (the reader is gone): the lines are counted as not written, with the error, and nothing throws', async () => {
    // The reader closes its end and stays alive: the next write gets EPIPE.
    const reader = "require('fs').closeSync(0); process.stdout.write('closed'); setTimeout(() => {}, 30000)";
    const child = spawn(process.execPath, ['-e', reader], { stdio: ['pipe', 'pipe', 'ignore'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const sink = lineSink(streamTarget(child.stdin), { bound: 1 << 20 });
    for (let n = 0; n < 50; n++) sink.write(line(n));
    await turn();
    sink.write(line(50));
    const tally = await sink.close(5000);
    expect(tally.dropped).toBe(51);
    expect(tally.error).toMatch(/EPIPE/);
    expect(tally.gaveUpAfterMs).toBeUndefined();
    child.kill('SIGKILL');
  });

  it('a pipe nobody reads: lines past the pipe and the bound are dropped, and the end gives up on time', async () => {
    const child = spawn('sleep', ['30'], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      const sink = lineSink(streamTarget(child.stdin), { bound: 256 * 1024 });
      const big = 'y'.repeat(1023) + '\n';
      for (let n = 0; n < 1024; n++) {
        sink.write(big); // 1 MiB in all: the kernel's pipe and the bound hold a fraction of it
        if (n % 64 === 0) await turn();
      }
      const started = Date.now();
      const tally = await sink.close(300);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(tally.gaveUpAfterMs).toBe(300);
      expect(tally.dropped).toBeGreaterThan(512);
      expect(tally.dropped).toBeLessThanOrEqual(1024);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
