// createSession with the real executor: cancelling a decide, or closing the session, kills the
// hook's process (the marble tests show the unsubscription; this shows what it does to a process).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSession, defaultDeps, defineHooks, SessionClosedError, type OutputLine } from 'cosh-hooks';
import { processExecutor } from 'cosh-hooks/executors';
import { isGone } from '../../bench/procfs.js';

const scratch = mkdtempSync(join(tmpdir(), 'cosh-session-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitFor = async (check: () => boolean, withinMs: number): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
};

const readPid = async (file: string): Promise<number> => {
  let pid = NaN;
  await waitFor(() => {
    try {
      pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    } catch {
      return false;
    }
    return Number.isInteger(pid);
  }, 5000);
  expect(Number.isInteger(pid)).toBe(true);
  leftovers.add(pid);
  return pid;
};

/** A session whose Stop hook writes its pid to `file` and hangs (its timeout is far away). */
const hangingSession = (file: string) =>
  createSession(
    defineHooks({ Stop: [{ name: 'hang', command: `echo $$ > '${file}'; exec sleep 60`, timeout: 600000 }] }),
    defaultDeps(processExecutor({ killGraceMs: 200 })),
  );

const stop = { hook_event_name: 'Stop' as const, session_id: 's1' };

describe('createSession with real processes', () => {
  it('unsubscribing from decide kills the running hook process; nothing is emitted', async () => {
    const file = join(scratch, 'cancel.pid');
    const session = hangingSession(file);
    const seen: OutputLine[] = [];
    const subscription = session.decide(stop).subscribe((line) => seen.push(line));
    const pid = await readPid(file);
    expect(isGone(pid)).toBe(false);
    subscription.unsubscribe();
    expect(await waitFor(() => isGone(pid), 3000)).toBe(true);
    expect(seen).toEqual([]);
    session.close();
  });

  it('close() kills the running hook process and errors its decide with SessionClosedError', async () => {
    const file = join(scratch, 'close.pid');
    const session = hangingSession(file);
    const errors: unknown[] = [];
    session.decide(stop).subscribe({ error: (error: unknown) => errors.push(error) });
    const pid = await readPid(file);
    session.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SessionClosedError);
    expect(await waitFor(() => isGone(pid), 3000)).toBe(true);
  });
});
