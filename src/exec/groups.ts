/**
 * The process groups of command hooks this process still answers for: hooks that are running, and
 * hooks that were cancelled and wait for their SIGKILL after the grace period. A CLI that gets a
 * second signal while it stops kills them at once instead of waiting (SPEC §6). A hook that exited
 * by itself leaves the set: what it left running in the background is not ours to kill (SPEC §4.2).
 */
const owned = new Set<number>();

export const ownGroup = (pgid: number): void => {
  owned.add(pgid);
};

export const releaseGroup = (pgid: number): void => {
  owned.delete(pgid);
};

/** SIGKILL to every owned group now; returns how many groups were signalled. */
export const killOwnedGroupsNow = (): number => {
  let count = 0;
  for (const pgid of owned) {
    try {
      process.kill(-pgid, 'SIGKILL');
      count += 1;
    } catch {
      // ESRCH: that group is already gone.
    }
  }
  owned.clear();
  return count;
};
