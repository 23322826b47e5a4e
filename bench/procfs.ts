import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * What /proc says about processes, for the tests, the soak and the benchmarks (the one place that
 * parses /proc): which processes are left of a hook's process group, and how much a host process
 * holds. Linux only, except `groupAlive`, which falls back to a signal probe.
 */

/** The fields of /proc/<pid>/stat these checks need. */
export interface ProcStat {
  readonly pid: number;
  /** R, S, D, Z (zombie: exited, waiting to be reaped), T, … */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly comm: string;
}

/** Parses one /proc/<pid>/stat; `comm` may contain spaces and parentheses, so split at the last `)`. */
export const parseStat = (text: string): ProcStat | undefined => {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const [state, ppid, pgrp] = text
    .slice(close + 2)
    .split(' ')
    .slice(0, 3);
  if (state === undefined || ppid === undefined || pgrp === undefined) return undefined;
  return {
    pid: Number(text.slice(0, open).trim()),
    state,
    ppid: Number(ppid),
    pgrp: Number(pgrp),
    comm: text.slice(open + 1, close),
  };
};

export const procStat = (pid: number): ProcStat | undefined => {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // gone between the directory listing and the read
  }
};

/** Every process visible in /proc (a snapshot: processes come and go while it is taken). */
export const allProcesses = (): ProcStat[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => procStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);

/** Processes of a group that still run (not zombies). */
export const liveGroupMembers = (pgid: number, snapshot = allProcesses()): ProcStat[] =>
  snapshot.filter((stat) => stat.pgrp === pgid && stat.state !== 'Z');

/**
 * Whether any process of group `pgid` still runs. Zombies do not count (see `isGone`). Without
 * /proc, a group that still accepts a signal counts as alive, zombies included.
 */
export const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false; // ESRCH: no member at all, zombies included
  }
  return !existsSync('/proc/self/stat') || liveGroupMembers(pgid).length > 0;
};

/**
 * Gone = no such process (ESRCH), or a zombie: it has exited and only waits to be reaped. A
 * grandchild is reparented to PID 1, and some container inits (this sandbox's included) reap only
 * every few seconds, so a zombie is as dead as the host can make it.
 */
export const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  const stat = procStat(pid);
  return stat === undefined || stat.state === 'Z';
};

export interface Memory {
  /** Resident set size now, in KiB. */
  readonly rssKb: number;
  /** Peak resident set size ("high water mark") so far, in KiB. */
  readonly hwmKb: number;
}

const kibField = (status: string, field: string): number | undefined => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** Resident memory now and at its peak (VmRSS, VmHWM), undefined once the process is gone. */
export const memoryOf = (pid: number | 'self'): Memory | undefined => {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const rssKb = kibField(status, 'VmRSS');
  const hwmKb = kibField(status, 'VmHWM');
  return rssKb === undefined || hwmKb === undefined ? undefined : { rssKb, hwmKb };
};

/** Resident memory of a process in KiB (VmRSS), undefined once it is gone. */
export const rssKib = (pid: number): number | undefined => memoryOf(pid)?.rssKb;

/**
 * Open file descriptors of a process, undefined once it is gone. For `'self'` the directory
 * handle used to count is included, every time.
 */
export const openFds = (pid: number | 'self'): number | undefined => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
};

/** Whether a process's environment holds `marker` (unreadable for zombies and foreign processes). */
export const environHas = (pid: number, marker: string): boolean => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker);
  } catch {
    return false;
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it holds or `withinMs` passed; returns its last answer. */
export const waitFor = async (check: () => boolean, withinMs: number): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
};

/**
 * CPU time a process has used so far, in nanoseconds: the sum over its threads (the main thread,
 * libuv's thread pool, V8's) of /proc/<pid>/task/<tid>/schedstat. Nanosecond resolution, where
 * /proc/<pid>/stat counts clock ticks; threads that already ended are not counted. Undefined once
 * the process is gone.
 */
export const cpuNs = (pid: number): number | undefined => {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that ended between the listing and the read
      }
    }
  } catch {
    return undefined;
  }
  return total;
};
