import type { Decision } from '../events/names.js';
import type { HookOutput } from './output.js';

/**
 * Why a hook failed (spec §4.4); `exception` is an in-process function hook that threw or errored;
 * `queue_timeout` is a hook that never got its turn: the wait for a process slot or for a
 * persistent hook's queue outlasted its bound (spec §4.2). It is not the hook's own `timeout`.
 */
export const FAILURE_KINDS = [
  'timeout',
  'queue_timeout',
  'exit',
  'signal',
  'spawn',
  'invalid_output',
  'output_too_large',
  'exception',
] as const;
/** Why a hook failed: `spawn`, `exit`, `timeout`, `invalid_output`, … (spec §4.5). */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** A hook that answered: its normalized output. */
export interface HookSuccess {
  readonly outcome: 'ok';
  readonly output: HookOutput;
  /** Why part of the output was refused (a BeforeModel tool rewrite); shown in the decision's report. */
  readonly note?: string;
  /** A `cosh` hook answered in another agent's words: which (docs/compat.md, `readCoshAnswer`). */
  readonly foreign?: string;
}

/** A hook that failed: the kind, a message, and the first stderr line when there was one. */
export interface HookFailure {
  readonly outcome: FailureKind;
  /** A sentence for people, e.g. `timed out after 5000 ms`. */
  readonly message: string;
  /** The tail of stderr (command hooks), used for the fail_closed reason. */
  readonly stderr?: string;
  readonly exitCode?: number;
  readonly signal?: string;
  /**
   * A `cosh` hook that exited 2 with a reason on stderr, as Claude Code and Gemini CLI hooks block:
   * which words (docs/compat.md). Such a failure blocks as if the hook were fail_closed.
   */
  readonly foreign?: string;
}

/** What running one hook produced: the executor port emits exactly one of these. */
export type HookResult = HookSuccess | HookFailure;

export const isFailure = (result: HookResult): result is HookFailure => result.outcome !== 'ok';

export const success = (output: HookOutput): HookSuccess => ({ outcome: 'ok', output });

export const failure = (
  outcome: FailureKind,
  message: string,
  extra: Omit<HookFailure, 'outcome' | 'message'> = {},
): HookFailure => ({ outcome, message, ...extra });

/** A hook that missed its deadline; `stderrFirstLine` is what it had said on stderr by then. */
export const timeoutFailure = (timeoutMs: number, stderrFirstLine?: string): HookFailure =>
  failure(
    'timeout',
    `timed out after ${timeoutMs} ms`,
    stderrFirstLine === undefined ? {} : { stderr: stderrFirstLine },
  );

/** A hook that never started: it waited `waitedMs` for `waitingFor` (docs/execution.md). */
export const queueTimeoutFailure = (waitedMs: number, waitingFor: string): HookFailure =>
  failure('queue_timeout', `waited ${waitedMs} ms for ${waitingFor}, never started`);

/** Outcome of one chain position in a decision report. */
export type HookOutcome = 'ok' | 'skipped' | FailureKind;

/** The decision the chain acts on for one hook, after interceptability and fail_closed. */
export interface EffectiveDecision {
  readonly decision: Decision;
  readonly reason?: string;
}
