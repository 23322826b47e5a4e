/**
 * The process groups of command hooks this process still answers for: hooks that are running, and
 * hooks that were cancelled and wait for their SIGKILL after the grace period, and persistent hook
 * processes. A CLI that gets a second signal while it stops kills them at once instead of waiting
 * (spec §6). A hook that exited by itself leaves the set: what it left running in the background
 * is not ours to kill (spec §4.2).
 *
 * `onRelease` runs when a group leaves the set: a process started through the spawn helper tells
 * the helper then that the group is no longer to be killed if this host dies.
 */
const owned = new Map<number, (() => void) | undefined>();

export const ownGroup = (pgid: number, onRelease?: () => void): void => {
  owned.set(pgid, onRelease);
};

export const releaseGroup = (pgid: number): void => {
  const onRelease = owned.get(pgid);
  if (!owned.delete(pgid)) return;
  onRelease?.();
};

/** Signals the whole process group; false when no process of it is left. */
export const signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: every process of the group is gone. EPERM cannot happen for our own children.
    return false;
  }
};

/** SIGKILL to every owned group now; returns how many groups were signalled. */
export const killOwnedGroupsNow = (): number => {
  let count = 0;
  for (const pgid of owned.keys()) if (signalGroup(pgid, 'SIGKILL')) count += 1;
  owned.clear();
  return count;
};
