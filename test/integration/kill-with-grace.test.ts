import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { killWithGrace } from '../../src/exec/groups/kill.js';
import { liveGroupMembers, waitFor } from '../../bench/procfs.js';

/** A shell in its own group, running a background child, ready once it printed `ready`. */
const group = async (script: string): Promise<ChildProcess & { pid: number }> => {
  const child = spawn('sh', ['-c', `${script}; sleep 30 & echo ready; wait`], {
    detached: true,
    stdio: 'pipe',
  });
  await once(child.stdout, 'data');
  return child as ChildProcess & { pid: number };
};

const ended = (child: ChildProcess): Promise<NodeJS.Signals | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once('exit', (_code, signal) => resolve(signal));
  });

describe('killWithGrace on real process groups', () => {
  it('a group that ignores SIGTERM (children included) dies of the SIGKILL after the grace', async () => {
    const child = await group(`trap '' TERM`);
    const done = new Promise<void>((resolve) => killWithGrace([child.pid], 50, resolve));
    expect(await ended(child)).toBe('SIGKILL');
    await done;
    // SIGKILL is delivered to each member on its own: the background sleep may take a moment to die.
    expect(await waitFor(() => liveGroupMembers(child.pid).length === 0, 5000)).toBe(true);
  });

  it('a group that obeys SIGTERM ends of it; done still follows the grace', async () => {
    const child = await group('true');
    const done = new Promise<void>((resolve) => killWithGrace([child.pid], 50, resolve));
    expect(await ended(child)).toBe('SIGTERM');
    await done;
    // SIGKILL is delivered to each member on its own: the background sleep may take a moment to die.
    expect(await waitFor(() => liveGroupMembers(child.pid).length === 0, 5000)).toBe(true);
  });
});
