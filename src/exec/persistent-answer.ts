import { decodeHookStdout } from '../protocol/output.js';
import { failure, success, type HookFailure, type HookResult } from '../protocol/result.js';
import { classifyProcess, formatBytes, type Termination } from './classify.js';

/*
 * The pure half of persistent hooks (SPEC §8): what an answer line, a death or a restart back-off
 * means. `persistent.ts` does the I/O and asks these functions what to report.
 */

/** How restarts of a persistent hook that keeps dying are spaced. */
export interface Backoff {
  /** Wait after the first failure in a row. Default 100 ms. */
  readonly initialMs: number;
  /** Longest wait; the wait doubles per failure in a row up to this. Default 10 s. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 100, maxMs: 10_000 };

/** The wait before the next start after `failures` failures in a row (1 → initialMs, doubling, capped). */
export const backoffDelay = (failures: number, backoff: Backoff = DEFAULT_BACKOFF): number => {
  if (failures <= 0) return 0;
  // 2 ** 40 is already past any sane cap; the bound keeps the power finite for absurd counts.
  const doubled = backoff.initialMs * 2 ** Math.min(failures - 1, 40);
  return Math.min(doubled, backoff.maxMs);
};

/**
 * The failure an event gets while a hook waits out its back-off: it is not started again for it,
 * and the message says why and when it will be (a `spawn` failure: the hook did not run).
 */
export const backoffFailure = (failures: number, waitMs: number, last: string | undefined): HookFailure =>
  failure(
    'spawn',
    `restarting after ${failures} ${failures === 1 ? 'failure' : 'failures'}: next start in ${Math.max(
      1,
      Math.ceil(waitMs),
    )} ms${last === undefined ? '' : ` (last: ${last})`}`,
  );

/**
 * One answer line (without its newline) as the hook's result: a JSON object as SPEC §4.3, or an
 * empty line for pass-through; anything else is `invalid_output`. `stderr` is what the hook wrote
 * to stderr since the request (kept on a failure, for fail_closed).
 */
export const classifyAnswer = (line: string, stderr: string): HookResult => {
  const decoded = decodeHookStdout(line);
  return decoded.ok
    ? success(decoded.value)
    : failure('invalid_output', `invalid output: ${decoded.error}`, stderr === '' ? {} : { stderr });
};

/** A line longer than the limit: the process was killed for it. */
export const tooLargeAnswer = (limit: number, stderr: string): HookFailure =>
  failure('output_too_large', `answer line exceeded ${formatBytes(limit)}`, stderr === '' ? {} : { stderr });

/**
 * A persistent process that ended (or never started) before answering: `spawn`, `exit` or
 * `signal` as for a process per event, except that a clean exit (status 0) without an answer is
 * an `exit` failure too, never a pass-through.
 */
export const classifyDeath = (termination: Termination, stderr: string): HookFailure => {
  const result = classifyProcess({ termination, stdout: '', stdoutOverflow: false, stdoutLimit: 0, stderr });
  if (result.outcome !== 'ok') return result;
  return failure('exit', 'exited with code 0 before answering', {
    ...(stderr !== '' && { stderr }),
    exitCode: 0,
  });
};

/** Whether a death counts toward the back-off: the process ended on its own, not by our hand. */
export const isCrash = (termination: Termination): boolean =>
  termination.kind !== 'exited' || termination.exitCode !== 0;
