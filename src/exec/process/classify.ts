import { firstNonBlankLine } from '../../protocol/first-line.js';
import { decodeHookStdout } from '../../protocol/decode-output.js';
import { withPrinted } from '../../protocol/printed.js';
import { redactText } from '../../protocol/redact/index.js';
import { failure, success, type HookFailure, type HookResult } from '../../protocol/result.js';

/** How a hook process ended, as the operating system reported it. */
export type Termination =
  | { readonly kind: 'exited'; readonly exitCode: number }
  | { readonly kind: 'signaled'; readonly signal: string }
  /** The process never ran: `file` is what we tried to execute, `code` the errno name when known. */
  | { readonly kind: 'not_started'; readonly file: string; readonly code?: string; readonly message: string }
  /** Started, then no longer watched: the spawn helper that ran it died (its group was killed). */
  | { readonly kind: 'lost'; readonly message: string };

/** Everything the executor collected from one finished (or never started) hook process. */
export interface ProcessOutcome {
  readonly termination: Termination;
  /** stdout decoded as UTF-8 (invalid sequences already replaced), at most `stdoutLimit` bytes of it. */
  readonly stdout: string;
  /** True when the hook printed more than `stdoutLimit` bytes (and was killed for it). */
  readonly stdoutOverflow: boolean;
  readonly stdoutLimit: number;
  /** The tail of stderr, decoded as UTF-8. */
  readonly stderr: string;
  /**
   * The first non-blank line of stderr (from its first 4 KiB), when the tail no longer holds the
   * start of the stream: the hook wrote more than the tail keeps after it.
   */
  readonly stderrFirstLine?: string;
}

const MESSAGE_LINE_MAX = 200;

/**
 * The first non-blank stderr line, shortened so a notification stays one readable line; secrets
 * are redacted before the cut, so none is left half visible (spec §4.7).
 */
const firstLine = (text: string): string | undefined => {
  const found = firstNonBlankLine(text);
  const line = found === undefined ? undefined : redactText(found);
  return line === undefined || line.length <= MESSAGE_LINE_MAX ? line : `${line.slice(0, MESSAGE_LINE_MAX)}…`;
};

const withDetail = (sentence: string, detail: string | undefined): string =>
  detail === undefined ? sentence : `${sentence}: ${detail}`;

/** `1 MiB`, `64 KiB` or `1000 bytes`: limits are shown the way they are configured. */
export const formatBytes = (bytes: number): string => {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
};

/** Sentences for the errno codes `spawn` reports when the command itself cannot be executed. */
const SPAWN_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'not found',
  EACCES: 'Permission denied',
  ENOEXEC: 'Exec format error',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
};

/**
 * With `/bin/sh -c`, a command that cannot be started does not fail the spawn: sh itself runs and
 * exits 127 ("not found") or 126 ("Permission denied", "cannot execute") after printing a line
 * prefixed with its own name. That is the same situation as a failed direct exec, so both are
 * reported as `spawn`. The prefix check keeps a hook *script* whose own last command was missing
 * (its lines start with the script's path) an ordinary `exit`.
 */
const SHELL_START_FAILURE =
  /^(?:\/(?:usr\/)?bin\/)?(?:sh|dash|bash): (?:line )?(?:\d+: )?.*(?:not found|Permission denied|No such file or directory|cannot execute|Is a directory)/;

const shellStartFailure = (exitCode: number, stderr: string): string | undefined =>
  exitCode === 126 || exitCode === 127
    ? stderr
        .split('\n')
        .map((line) => line.trim())
        .find((line) => SHELL_START_FAILURE.test(line))
    : undefined;

/**
 * The stderr a failure keeps: the tail, led by the stream's first non-blank line when the tail no
 * longer starts with it. So the failure's detail and a fail_closed reason (spec §4.5) are always
 * the first line the hook wrote, however much it wrote after it.
 */
export const keptStderr = ({
  stderr,
  stderrFirstLine,
}: Pick<ProcessOutcome, 'stderr' | 'stderrFirstLine'>): string => {
  if (stderrFirstLine === undefined || firstNonBlankLine(stderr) === stderrFirstLine) return stderr;
  return `${stderrFirstLine}\n${stderr}`;
};

/** What a failure keeps besides its message: stderr for fail_closed, and how it ended. */
const extras = (termination: Termination, stderr: string): Omit<HookFailure, 'outcome' | 'message'> => {
  return {
    ...(stderr !== '' && { stderr }),
    ...(termination.kind === 'exited' && { exitCode: termination.exitCode }),
    ...(termination.kind === 'signaled' && { signal: termination.signal }),
  };
};

/**
 * Turns what a hook process produced into its `HookResult` (spec §4.3, §4.4). Pure. Checked in
 * this order, first match wins:
 *
 * 1. never started, or lost with the spawn helper → `spawn`;
 * 2. stdout over the limit → `output_too_large` (whatever the exit status: the executor killed it);
 * 3. died by a signal → `signal`;
 * 4. sh exited 126/127 with its own "not found"/"Permission denied" line → `spawn`;
 * 5. non-zero exit → `exit`;
 * 6. exit 0 → stdout decoded: a decision, or `invalid_output`.
 *
 * `timeout` never comes from here: the deadline lives in the stream (`operators/runHooks`).
 */
export const classifyProcess = (outcome: ProcessOutcome): HookResult => {
  const { termination } = outcome;
  const stderr = keptStderr(outcome);
  const detail = firstLine(stderr);
  if (termination.kind === 'not_started') {
    const reason = termination.code !== undefined ? SPAWN_ERRORS[termination.code] : undefined;
    const message = reason !== undefined ? `${termination.file}: ${reason}` : termination.message;
    return failure('spawn', `could not start: ${message}`, extras(termination, stderr));
  }
  if (termination.kind === 'lost') {
    return failure('spawn', `hook process lost: ${termination.message}`, extras(termination, stderr));
  }
  if (outcome.stdoutOverflow) {
    return failure(
      'output_too_large',
      `output exceeded ${formatBytes(outcome.stdoutLimit)}`,
      extras(termination, stderr),
    );
  }
  if (termination.kind === 'signaled') {
    return failure(
      'signal',
      withDetail(`killed by signal ${termination.signal}`, detail),
      extras(termination, stderr),
    );
  }
  const shellLine = shellStartFailure(termination.exitCode, stderr);
  if (shellLine !== undefined) {
    return failure('spawn', `could not start: ${shellLine}`, extras(termination, stderr));
  }
  if (termination.exitCode !== 0) {
    return failure(
      'exit',
      withDetail(`exited with code ${termination.exitCode}`, detail),
      extras(termination, stderr),
    );
  }
  const decoded = decodeHookStdout(outcome.stdout);
  // The text stays readable beside the result, for hooks of another dialect (docs/compat.md).
  return withPrinted(
    decoded.ok
      ? success(decoded.value)
      : failure('invalid_output', `invalid output: ${decoded.error}`, extras(termination, stderr)),
    outcome.stdout,
  );
};
