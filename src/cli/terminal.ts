import { constants } from 'node:os';
import { killOwnedGroupsNow } from '../exec/groups/groups.js';

/**
 * Process plumbing shared by the commands: ending without losing output or leaving hooks behind,
 * and turning the signals that end a process into a clean stop.
 */

/** Longest an ending process waits for what is still holding it before it exits anyway. */
const FORCE_EXIT_MS = 3000;

/** Set once stdout refused a write: the process then ends with status 1, whatever else it says. */
let stdoutFailed = false;

/**
 * Watches stdout for a write that fails (the reader closed it: EPIPE; a full device: ENOSPC). What
 * was printed is then incomplete, so the process must not end with 0 (spec §6): the failure is
 * reported once on stderr and the exit status becomes 1. `onFailure` lets `run` stop its hooks,
 * since nobody can read their answers.
 */
export const watchStdout = (onFailure: () => void = () => undefined): void => {
  process.stdout.on('error', (error: Error) => {
    if (!stdoutFailed) {
      stdoutFailed = true;
      process.stderr.write(`cosh-hooks: cannot write to stdout: ${error.message}; output is incomplete\n`);
    }
    process.exitCode = 1;
    onFailure();
  });
};

/** Whether a write to stdout failed (see `watchStdout`). */
export const stdoutHasFailed = (): boolean => stdoutFailed;

/** 128 + n once a stop signal came (`onStopSignals`): the exit status, whatever the command returns. */
let stoppedWith: number | undefined;

/** Set once the end of a run gave up on a write (a stderr nobody reads, a disk that hangs). */
let writesAbandoned = false;

/**
 * Says a write will never finish (the audit's end gave up on it): such a write holds the process
 * for as long as it waits, so `exitWhenIdle` then exits at once instead of waiting for idle.
 */
export const abandonPendingWrites = (): void => {
  writesAbandoned = true;
};

/**
 * Ends the process with `status` once it is idle, rather than with `process.exit`: queued stdout
 * is written first, and a cancelled hook's group still gets its SIGKILL (the executor keeps a
 * referenced timer for it, a few hundred milliseconds). Should anything else hold the process,
 * it exits anyway after a short while (at once after `abandonPendingWrites`), killing first
 * whatever hook group is still owned.
 */
export const exitWhenIdle = (status: number): void => {
  const final = () => stoppedWith ?? (stdoutFailed ? 1 : status);
  process.exitCode = final();
  setTimeout(
    () => {
      killOwnedGroupsNow();
      process.exit(final());
    },
    writesAbandoned ? 0 : FORCE_EXIT_MS,
  ).unref();
};

/** The signals that stop `run` and `fire` (spec §6): a closing terminal, Ctrl-C, Ctrl-\, kill. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

/**
 * Every other signal whose default action would end the process on the spot and leave the hooks'
 * groups running ("no hook process outlives `cosh-hooks run`, whatever signal ends it"): a stray
 * `kill -USR2`, an expired timer, a CPU-time limit (`ulimit -t`), a power event, a seccomp
 * violation. They stop the run like the four above, but each only when nothing in the process
 * listens to it yet: a listener (a preloaded memory probe on SIGUSR2, as the soak's census uses)
 * already keeps the default action from ending the process, so the signal is that listener's.
 * Not here: SIGKILL and SIGSTOP (no process can catch them), SIGBUS, SIGFPE, SIGILL and SIGSEGV
 * (Node runs no JavaScript after a real fault), SIGABRT (Node's own abort), SIGUSR1 (Node's
 * inspector), SIGPROF (V8's CPU profiler samples with it: `node --cpu-prof` would stop the run),
 * SIGPIPE and SIGXFSZ (Node ignores them), and the real-time signals (Node has no name for them);
 * see docs/execution.md, known limits.
 */
export const OTHER_STOP_SIGNALS = [
  'SIGUSR2',
  'SIGALRM',
  'SIGVTALRM',
  'SIGXCPU',
  'SIGPWR',
  'SIGSYS',
  'SIGSTKFLT',
  'SIGIO',
  'SIGTRAP',
] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number] | (typeof OTHER_STOP_SIGNALS)[number];

/** The conventional exit status of a process stopped by `signal`: 128 + its number. */
export const signalStatus = (signal: StopSignal): number => 128 + constants.signals[signal];

/**
 * On the first of SIGINT, SIGTERM, SIGHUP, SIGQUIT or one of `OTHER_STOP_SIGNALS`, calls `stop`
 * with 128 + the signal number: running hooks are cancelled (their groups get SIGTERM, then SIGKILL after the grace period) and
 * the process ends once that is done. The handlers stay installed, so a later signal never falls
 * back to the default action (which would end the process and leave the groups alive): a second
 * one kills every hook group at once and exits with the status of the first.
 */
export const onStopSignals = (stop: (status: number) => void): void => {
  const handle = (signal: StopSignal) => {
    if (stoppedWith === undefined) {
      // The exit status whatever else ends the run at the same moment (the end of input included).
      stoppedWith = signalStatus(signal);
      process.exitCode = stoppedWith;
      stop(stoppedWith);
      return;
    }
    killOwnedGroupsNow();
    process.exit(stoppedWith);
  };
  for (const signal of OTHER_STOP_SIGNALS)
    if (process.listenerCount(signal) === 0) process.on(signal, handle);
  for (const signal of STOP_SIGNALS) process.on(signal, handle);
};
