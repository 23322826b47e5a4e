import type { HookEvent } from '../events/codecs.js';
import { describeThrown } from '../events/untrusted.js';
import type { Decision, EventName } from '../events/names.js';
import type { HookReport, HookRun, Verdict } from '../protocol/aggregate.js';
import type { StopLoopIntervention } from '../protocol/stop-loop.js';

/** A notification for the shell (spec §5.1). */
export interface HookNotification {
  readonly type: 'stream_event';
  readonly event: {
    readonly subtype: 'hook_notification';
    readonly hook_name: string;
    readonly message: string;
    readonly decision: Decision | 'error';
    readonly hook_event_name: EventName;
    readonly session_id: string;
    readonly tool_use_id?: string;
    /** On the engine's notification when the Stop-loop guard let a block through (docs/protocol.md). */
    readonly stop_loop_guard?: StopLoopIntervention;
  };
}

/** The decision for one valid event (spec §5.2). Optional keys are omitted when empty. */
export interface HookDecision {
  readonly type: 'hook_decision';
  readonly seq: number;
  readonly hook_event_name: EventName;
  readonly session_id: string;
  readonly tool_use_id?: string;
  readonly decision: Decision;
  readonly reason?: string;
  readonly systemMessage?: string;
  readonly additional_context?: string;
  readonly hook_specific_output?: Readonly<Record<string, unknown>>;
  readonly hooks: readonly HookReport[];
  /** Set when the Stop-loop guard let this decision's block through (docs/protocol.md). */
  readonly stop_loop_guard?: StopLoopIntervention;
}

/**
 * An input that was not a valid event (spec §6). `line` when the input came from a JSONL line;
 * `session_id` and `tool_use_id` when the input had them as strings.
 */
export interface HookError {
  readonly type: 'hook_error';
  readonly line?: number;
  readonly index?: number;
  readonly session_id?: string;
  readonly tool_use_id?: string;
  readonly message: string;
}

/** Every line the engine writes. */
export type OutputLine = HookNotification | HookDecision | HookError;

const nonEmpty = (text: string | undefined): text is string => text !== undefined && text !== '';

const toolUseIdOf = (event: HookEvent) =>
  event.tool_use_id !== undefined ? { tool_use_id: event.tool_use_id } : {};

/** The notification a hook run produces: its message (systemMessage wins), or its failure; else none. */
export const toNotification = (run: HookRun, event: HookEvent): HookNotification | undefined => {
  const { result } = run;
  // An empty systemMessage is no message: the reason is the fallback (spec §5.1).
  const message =
    result.outcome !== 'ok'
      ? result.message
      : nonEmpty(result.output.systemMessage)
        ? result.output.systemMessage
        : result.output.reason;
  if (!nonEmpty(message)) return undefined;
  return {
    type: 'stream_event',
    event: {
      subtype: 'hook_notification',
      hook_name: run.hook.name,
      message,
      decision: result.outcome === 'ok' ? result.output.decision : 'error',
      hook_event_name: event.hook_event_name,
      session_id: event.session_id,
      ...toolUseIdOf(event),
    },
  };
};

export const toDecision = (seq: number, event: HookEvent, verdict: Verdict): HookDecision => {
  // Key by key, not five conditional spreads: the spreads made row 3a (events without hooks) 1.16×
  // slower. Keys in wire order (spec §5.2); `decision` and `hooks` follow `tool_use_id`.
  const decision = {
    type: 'hook_decision',
    seq,
    hook_event_name: event.hook_event_name,
    session_id: event.session_id,
  } as Mutable<HookDecision>;
  if (event.tool_use_id !== undefined) decision.tool_use_id = event.tool_use_id;
  decision.decision = verdict.decision;
  if (nonEmpty(verdict.reason)) decision.reason = verdict.reason;
  if (nonEmpty(verdict.systemMessage)) decision.systemMessage = verdict.systemMessage;
  if (nonEmpty(verdict.additionalContext)) decision.additional_context = verdict.additionalContext;
  if (verdict.hookSpecificOutput !== undefined && Object.keys(verdict.hookSpecificOutput).length > 0) {
    decision.hook_specific_output = verdict.hookSpecificOutput;
  }
  decision.hooks = verdict.hooks;
  return decision;
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Whether an output line is a decision (for `filter` on `output$`). */
export const isDecision = (line: OutputLine): line is HookDecision => line.type === 'hook_decision';
/** Whether an output line is a notification. */
export const isNotification = (line: OutputLine): line is HookNotification => line.type === 'stream_event';
/** Whether an output line is a `hook_error` (an input that was not a valid event). */
export const isHookError = (line: OutputLine): line is HookError => line.type === 'hook_error';

const SEPARATORS = /[\u2028\u2029]/g;
const escapeSeparator = (char: string): string => (char === '\u2028' ? '\\u2028' : '\\u2029');

/**
 * Writes a line whose hook-controlled part cannot be written (only an in-process hook can make
 * that happen: a value that changes or throws when read a second time). A decision keeps every
 * field but `hook_specific_output`, so the host still gets its one answer for the event.
 */
const encodeFallback = (line: OutputLine, error: unknown): string => {
  if (line.type === 'hook_decision') {
    try {
      return JSON.stringify({ ...line, hook_specific_output: undefined });
    } catch {
      // fall through to the last resort
    }
  }
  const message = `cosh-hooks: an output line could not be written: ${describeThrown(error)}`;
  return JSON.stringify({ type: 'hook_error', message });
};

/**
 * One output line as JSONL text (no trailing newline). Never throws. U+2028 and U+2029 are written
 * as `\u2028` and `\u2029` (spec §6): JSON allows them raw, but some readers split lines there.
 */
export const encodeLine = (line: OutputLine): string => {
  let text: string;
  try {
    text = JSON.stringify(line);
  } catch (error) {
    text = encodeFallback(line, error);
  }
  return text.replace(SEPARATORS, escapeSeparator);
};
