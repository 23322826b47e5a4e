import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isGone, waitFor } from '../../bench/procfs.js';

/**
 * A Node host with a persistent hook exits by itself (docs/execution.md): an idle persistent
 * process does not hold the host's event loop, and is still ended as at a run's end (stdin closed,
 * the grace period, the group killed) when the host has nothing else to do. Uses the built library
 * (`npm test` builds first).
 */

const ENTRY = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));
if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "npm run build" first`);
const HOST = fileURLToPath(new URL('../fixtures/hosts/persistent-host.mjs', import.meta.url));
const KEEPER = fileURLToPath(new URL('../fixtures/hooks/persistent.mjs', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'cosh-host-exit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

/** A path as one sh word whatever it holds. */
const shWord = (path: string): string => `'${path.replaceAll("'", `'\\''`)}'`;

/** Runs the host to its end; a host that does not end by itself within `withinMs` is killed and reported. */
const runHost = (command: string, options: Record<string, unknown> = {}, withinMs = 30_000) =>
  new Promise<{ code: number | null; signal: string | null; stdout: string; hung: boolean }>((resolve) => {
    const child = spawn(process.execPath, [HOST, ENTRY, command, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    let hung = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, withinMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, hung });
    });
  });

const pidsIn = (file: string): number[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);

describe.each([
  ['spawned directly', {}],
  ['through the spawn helper', { spawnHelper: 'always' }],
])('a library host with a persistent hook exits by itself (issue 20), %s', (_how, options) => {
  it('after its last decision, with its run and dispatcher left open; the hook got EOF and is gone', async () => {
    const log = join(scratch, 'log-eof');
    const pids = join(scratch, 'pids-eof');
    writeFileSync(log, '');
    writeFileSync(pids, '');
    const command = `LOG=${shWord(log)} PIDFILE=${shWord(pids)} node ${shWord(KEEPER)}`;
    const result = await runHost(command, options);
    for (const pid of pidsIn(pids)) leftovers.add(pid);
    expect(result).toEqual({
      code: 0,
      signal: null,
      hung: false,
      stdout: 'reactive r1 allow\ndispatch d1 allow\ndispatch d2 allow\ndone\n',
    });
    // Two runs (the pipeline's and the dispatcher's): two processes, each ended by EOF on stdin.
    expect(pidsIn(pids)).toHaveLength(2);
    for (const pid of pidsIn(pids)) expect(await waitFor(() => isGone(pid), 5000)).toBe(true);
    expect(readFileSync(log, 'utf8').match(/^eof$/gm)).toEqual(['eof', 'eof']);
  });

  it('a hook that ignores EOF and SIGTERM is killed after the grace period, and the host still exits', async () => {
    const pids = join(scratch, 'pids-stubborn');
    writeFileSync(pids, '');
    const command = `IGNORE_EOF=1 PIDFILE=${shWord(pids)} node ${shWord(KEEPER)}`;
    const result = await runHost(command, options);
    for (const pid of pidsIn(pids)) leftovers.add(pid);
    expect(result).toMatchObject({ code: 0, hung: false });
    expect(result.stdout.endsWith('done\n')).toBe(true);
    expect(pidsIn(pids)).toHaveLength(2);
    for (const pid of pidsIn(pids)) expect(await waitFor(() => isGone(pid), 5000)).toBe(true);
  });
});
