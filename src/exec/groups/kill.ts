import { signalGroup } from './groups.js';

/** Sends a signal to a whole process group; false when no process of it is left. */
export type GroupSignaller = (pgid: number, signal: NodeJS.Signals) => boolean;

/**
 * The one way a hook's process group is stopped when it is given up on (a timeout, a cancellation,
 * a persistent process out of step, a host gone from under the spawn helper): SIGTERM to each group
 * now, then, after `graceMs`, SIGKILL to every group SIGTERM still reached, then `done`. A group
 * already gone gets no SIGKILL; when none of them is left, `done` runs at once, before this returns.
 *
 * The timer stays referenced on purpose: a grandchild that ignores SIGTERM must still die even if
 * the host is about to exit. The hook process itself may be gone by now; its group is not.
 * Imports nothing but `groups.ts` (the spawn helper runs it, and must stay small).
 */
export const killWithGrace = (
  groups: Iterable<number>,
  graceMs: number,
  done: () => void = () => undefined,
  signal: GroupSignaller = signalGroup,
): void => {
  const reached: number[] = [];
  for (const pgid of groups) if (signal(pgid, 'SIGTERM')) reached.push(pgid);
  if (reached.length === 0) {
    done();
    return;
  }
  setTimeout(() => {
    for (const pgid of reached) signal(pgid, 'SIGKILL');
    done();
  }, graceMs);
};
