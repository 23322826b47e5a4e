import type { Decision, EventName } from '../events/names.js';
import type { HookOutcome, FailureKind } from '../protocol/result.js';

/**
 * The audit stream's records (docs/audit.md). Output, not input: plain types, no codec. Every
 * record is one JSON object with `type: "audit"` and its kind in `record`; times are milliseconds
 * on the engine's scheduler clock (Unix epoch milliseconds in production, frames under a
 * `TestScheduler`). Every text that comes from an event or a hook is redacted and cut short.
 */
export type AuditRecord =
  | EventReceivedRecord
  | HookResultRecord
  | HookSkippedRecord
  | DecisionRecord
  | ObserverResultRecord
  | ObserverDroppedRecord
  | AuditConfigRecord
  | TelemetryRecord;

/** What names one event in its records: `seq` as in the decision, and the event's ids. */
export interface AuditEventIds {
  readonly seq: number;
  readonly hook_event_name: EventName;
  readonly session_id: string;
  readonly tool_use_id?: string;
}

/** An event was admitted; its chain starts now. */
export interface EventReceivedRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'event_received';
  readonly time_ms: number;
  readonly run_id?: string;
  readonly tool_name?: string;
  /** The names of the chain's hooks, in order. */
  readonly chain: readonly string[];
  /** The names of the observers that will get the event after its decision. */
  readonly observers?: readonly string[];
  /** Only with `auditContent`: `tool_input` and `prompt`, redacted. */
  readonly content?: Readonly<Record<string, unknown>>;
}

/** One hook of the chain ran: when, how long, and what it answered. */
export interface HookResultRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'hook_result';
  readonly time_ms: number;
  readonly hook: string;
  readonly source: string;
  /** The hook's place in the chain, from 0. */
  readonly position: number;
  readonly start_ms: number;
  readonly end_ms: number;
  readonly duration_ms: number;
  /** `ok`, or the failure kind. */
  readonly outcome: HookOutcome;
  /** The hook's own decision, as it answered it (`ok` only). */
  readonly decision?: Decision;
  /** What the hook counts as for the event (interceptability, fail_closed applied). */
  readonly effective: Decision;
  readonly failure_kind?: FailureKind;
  /** The hook's reason (or the fail_closed reason), short and redacted. */
  readonly reason?: string;
  /** Its systemMessage, or the failure's message, short and redacted. */
  readonly message?: string;
  /**
   * A `cosh` hook answered in another agent's words (a Claude Code `permissionDecision`, exit 2
   * with a reason on stderr, …): which, and the dialect that reads them (docs/compat.md).
   */
  readonly foreign?: string;
}

/** A hook of the chain that never started because an earlier hook blocked. */
export interface HookSkippedRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'hook_skipped';
  readonly time_ms: number;
  readonly hook: string;
  readonly source: string;
  readonly position: number;
  /** The hook whose block ended the chain. */
  readonly blocked_by?: string;
}

/** The event's final decision, as the host received it. */
export interface DecisionRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'decision';
  readonly time_ms: number;
  readonly decision: Decision;
  readonly reason?: string;
  readonly system_message?: string;
  /** The hook whose answer decided (the blocking hook, the first ask, the first allow). */
  readonly decided_by?: string;
  readonly hooks_run: number;
  readonly hooks_skipped: number;
  /** From `event_received` to this record. */
  readonly duration_ms: number;
  /**
   * The Stop-loop guard let this Stop (or SubagentStop) through although its hooks blocked it
   * (docs/protocol.md, "Stop loops"): the cap, the blocks in a row before it, the sub-agent, and the
   * decision it overrode (reason and message redacted).
   */
  readonly stop_loop_guard?: {
    readonly limit: number;
    readonly blocked: number;
    readonly agent?: string;
    readonly overridden: {
      readonly decision: Decision;
      readonly reason?: string;
      readonly system_message?: string;
    };
  };
}

/** An observer ran (after the decision). Its failures are reported here and nowhere else. */
export interface ObserverResultRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'observer_result';
  readonly time_ms: number;
  readonly hook: string;
  readonly source: string;
  readonly start_ms: number;
  readonly end_ms: number;
  readonly duration_ms: number;
  readonly outcome: HookOutcome;
  /** What it answered; recorded, never acted on. */
  readonly decision?: Decision;
  readonly failure_kind?: FailureKind;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * An observer's queue was full: a burst of events was not given to it. The ids are the burst's
 * first event's; reported when the observer next takes an event, or when the run ends.
 */
export interface ObserverDroppedRecord extends AuditEventIds {
  readonly type: 'audit';
  readonly record: 'observer_dropped';
  readonly time_ms: number;
  readonly hook: string;
  readonly source: string;
  /** Events of this burst, from `seq` to `last_seq`, not given to the observer. */
  readonly dropped: number;
  /** Every event this observer has missed since the run started. */
  readonly dropped_total: number;
  readonly last_seq: number;
  /** The queue bound that was reached. */
  readonly queue: number;
}

/**
 * A record about the configuration rather than an event: a hook not run because it is not
 * trusted, a reload applied or refused, ... Made with `auditConfigRecord` and given to the engine
 * as `auditNotes` (docs/audit.md). `subject` says what it is about (e.g. `trust`, `reload`).
 */
export interface AuditConfigRecord {
  readonly type: 'audit';
  readonly record: 'config';
  readonly time_ms: number;
  readonly subject: string;
  readonly message: string;
  readonly file?: string;
  readonly hook?: string;
  /** Anything else worth keeping, as plain JSON. Redacted like the rest. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The OTLP export's tally, written once when a `cosh-hooks run` with `--otlp-endpoint` ends. */
export interface TelemetryRecord {
  readonly type: 'audit';
  readonly record: 'telemetry';
  readonly time_ms: number;
  readonly exported: number;
  readonly dropped: number;
  readonly message?: string;
}

/** The kind names, in the order an event's records come. */
export const AUDIT_RECORD_KINDS = [
  'event_received',
  'hook_result',
  'hook_skipped',
  'decision',
  'observer_result',
  'observer_dropped',
  'config',
  'telemetry',
] as const;

/** Whether a value from the engine's mixed internal stream is an audit record. */
export const isAuditRecord = (item: { readonly type: string }): item is AuditRecord => item.type === 'audit';
