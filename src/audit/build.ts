import type { HookEvent } from '../events/codecs.js';
import type { HookDecision } from '../output/lines.js';
import type { HookIdentity, HookRun } from '../protocol/aggregate.js';
import { redactJson, redactText } from '../protocol/redact/index.js';
import type { HookResult } from '../protocol/result.js';
import type {
  AuditConfigRecord,
  AuditEventIds,
  DecisionRecord,
  EventReceivedRecord,
  HookResultRecord,
  HookSkippedRecord,
  ObserverDroppedRecord,
  ObserverResultRecord,
} from './records.js';

/** How much of a message a record keeps (after redaction, so no fragment of a secret survives). */
export const AUDIT_TEXT_LIMIT = 300;

/** A text as records carry it: redacted first, then cut to `AUDIT_TEXT_LIMIT` characters. */
export const auditText = (text: string): string => {
  const redacted = redactText(text);
  return redacted.length <= AUDIT_TEXT_LIMIT ? redacted : `${redacted.slice(0, AUDIT_TEXT_LIMIT - 1)}…`;
};

const nonEmpty = (text: string | undefined): text is string => text !== undefined && text !== '';

/** The ids of one event as its records carry them (redacted: a host may put anything in an id). */
export const auditIds = (seq: number, event: HookEvent): AuditEventIds =>
  event.tool_use_id === undefined
    ? { seq, hook_event_name: event.hook_event_name, session_id: redactText(event.session_id) }
    : {
        seq,
        hook_event_name: event.hook_event_name,
        session_id: redactText(event.session_id),
        tool_use_id: redactText(event.tool_use_id),
      };

/** A record under construction: its fields set one by one, in wire order. */
type Building = Record<string, unknown>;

/**
 * A record's first fields, `type`, `record`, `time_ms`, then the event's ids, set key by key: a
 * `{ ...ids, key }` literal is V8's slow object path (docs/performance.md), once per record here.
 */
const recordHead = (record: string, timeMs: number, ids: AuditEventIds): Building => {
  const head: Building = {
    type: 'audit',
    record,
    time_ms: timeMs,
    seq: ids.seq,
    hook_event_name: ids.hook_event_name,
    session_id: ids.session_id,
  };
  if (ids.tool_use_id !== undefined) head['tool_use_id'] = ids.tool_use_id;
  return head;
};

const stringField = (event: HookEvent, key: string): string | undefined => {
  const value = (event as Readonly<Record<string, unknown>>)[key];
  return typeof value === 'string' ? value : undefined;
};

/** The content an auditor may ask for (`auditContent`): tool input and prompt, redacted. */
const contentOf = (event: HookEvent): Readonly<Record<string, unknown>> | undefined => {
  const fields = event as Readonly<Record<string, unknown>>;
  const content: Record<string, unknown> = {};
  if (fields['tool_input'] !== undefined) content['tool_input'] = redactJson(fields['tool_input']);
  if (typeof fields['prompt'] === 'string') content['prompt'] = redactText(fields['prompt']);
  return Object.keys(content).length === 0 ? undefined : content;
};

/**
 * `event_received`: the event's ids (`auditIds` of it, made once for all its records: each id is
 * redacted), its tool, and which hooks and observers it will meet.
 */
export const eventReceivedRecord = (
  ids: AuditEventIds,
  event: HookEvent,
  chain: readonly HookIdentity[],
  observers: readonly HookIdentity[],
  timeMs: number,
  withContent = false,
): EventReceivedRecord => {
  const record = recordHead('event_received', timeMs, ids);
  record['chain'] = chain.map((hook) => hook.name);
  const runId = stringField(event, 'run_id');
  if (runId !== undefined) record['run_id'] = redactText(runId);
  const toolName = stringField(event, 'tool_name');
  if (toolName !== undefined) record['tool_name'] = redactText(toolName);
  if (observers.length > 0) record['observers'] = observers.map((hook) => hook.name);
  if (withContent) {
    const content = contentOf(event);
    if (content !== undefined) record['content'] = content;
  }
  return record as unknown as EventReceivedRecord;
};

/** The parts of a result every hook record shares: outcome, own decision, failure, messages. */
const resultFields = (result: HookResult) => {
  if (result.outcome === 'ok') {
    const { decision, reason, systemMessage } = result.output;
    const message = nonEmpty(systemMessage) ? systemMessage : result.note;
    return {
      outcome: result.outcome,
      decision,
      ...(nonEmpty(reason) && { reason: auditText(reason) }),
      ...(nonEmpty(message) && { message: auditText(message) }),
    };
  }
  return { outcome: result.outcome, failure_kind: result.outcome, message: auditText(result.message) };
};

/** `hook_result`: one hook of the chain, ended at `endMs` after running `run.durationMs`. */
export const hookResultRecord = (
  ids: AuditEventIds,
  run: HookRun,
  position: number,
  endMs: number,
): HookResultRecord => {
  const fields = resultFields(run.result);
  const reason =
    fields.outcome !== 'ok' && nonEmpty(run.effective.reason) ? auditText(run.effective.reason) : undefined;
  const record = recordHead('hook_result', endMs, ids);
  record['hook'] = run.hook.name;
  record['source'] = run.hook.source;
  record['position'] = position;
  record['start_ms'] = endMs - run.durationMs;
  record['end_ms'] = endMs;
  record['duration_ms'] = run.durationMs;
  Object.assign(record, fields);
  record['effective'] = run.effective.decision;
  if (reason !== undefined) record['reason'] = reason;
  if (run.result.foreign !== undefined) record['foreign'] = auditText(run.result.foreign);
  return record as unknown as HookResultRecord;
};

/**
 * What follows an event's decision line: a `hook_skipped` per hook the block left unstarted, then
 * the `decision` record, both read from the decision as the host received it.
 */
const stopLoopGuardField = (
  guard: NonNullable<HookDecision['stop_loop_guard']>,
): NonNullable<DecisionRecord['stop_loop_guard']> => ({
  limit: guard.limit,
  blocked: guard.blocked,
  ...(guard.agent !== undefined && { agent: auditText(guard.agent) }),
  overridden: {
    decision: guard.overridden.decision,
    ...(nonEmpty(guard.overridden.reason) && { reason: auditText(guard.overridden.reason) }),
    ...(nonEmpty(guard.overridden.systemMessage) && {
      system_message: auditText(guard.overridden.systemMessage),
    }),
  },
});

export const decisionRecords = (
  ids: AuditEventIds,
  line: HookDecision,
  receivedMs: number,
  timeMs: number,
): readonly (HookSkippedRecord | DecisionRecord)[] => {
  const records: (HookSkippedRecord | DecisionRecord)[] = [];
  const blocker = line.hooks.find((report) => report.decision === 'block' && report.outcome !== 'skipped');
  let run = 0;
  line.hooks.forEach((report, position) => {
    if (report.outcome !== 'skipped') {
      run += 1;
      return;
    }
    records.push({
      type: 'audit',
      record: 'hook_skipped',
      time_ms: timeMs,
      ...ids,
      hook: report.name,
      source: report.source,
      position,
      ...(blocker !== undefined && { blocked_by: blocker.name }),
    });
  });
  const decider =
    line.decision === 'none' ? undefined : line.hooks.find((report) => report.decision === line.decision);
  const record = recordHead('decision', timeMs, ids);
  record['decision'] = line.decision;
  if (nonEmpty(line.reason)) record['reason'] = auditText(line.reason);
  if (nonEmpty(line.systemMessage)) record['system_message'] = auditText(line.systemMessage);
  if (decider !== undefined) record['decided_by'] = decider.name;
  record['hooks_run'] = run;
  record['hooks_skipped'] = line.hooks.length - run;
  record['duration_ms'] = Math.max(0, timeMs - receivedMs);
  if (line.stop_loop_guard !== undefined)
    record['stop_loop_guard'] = stopLoopGuardField(line.stop_loop_guard);
  records.push(record as unknown as DecisionRecord);
  return records;
};

/** `observer_result`: an observer ran from `startMs` to `endMs`. */
export const observerResultRecord = (
  ids: AuditEventIds,
  hook: HookIdentity,
  result: HookResult,
  startMs: number,
  endMs: number,
): ObserverResultRecord => {
  const fields = resultFields(result);
  return {
    type: 'audit',
    record: 'observer_result',
    time_ms: endMs,
    ...ids,
    hook: hook.name,
    source: hook.source,
    start_ms: startMs,
    end_ms: endMs,
    duration_ms: Math.max(0, Math.round(endMs - startMs)),
    ...fields,
  };
};

/**
 * `observer_dropped`: a burst of events the observer's full queue turned away. `ids` are the first
 * one's; `dropped` counts the burst, `total` every drop of this observer so far.
 */
export const observerDroppedRecord = (
  ids: AuditEventIds,
  hook: HookIdentity,
  dropped: number,
  total: number,
  lastSeq: number,
  queue: number,
  timeMs: number,
): ObserverDroppedRecord => ({
  type: 'audit',
  record: 'observer_dropped',
  time_ms: timeMs,
  ...ids,
  hook: hook.name,
  source: hook.source,
  dropped,
  dropped_total: total,
  last_seq: lastSeq,
  queue,
});

/** The fields of a `config` record a caller gives; the rest is filled in. */
export interface AuditConfigNote {
  readonly subject: string;
  readonly message: string;
  readonly file?: string;
  readonly hook?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * A `config` audit record (a hook not trusted, a reload refused, ...), redacted, stamped
 * `timeMs`. Feed such records to the engine as `auditNotes` (docs/audit.md) so they take their
 * place in the audit stream.
 */
export const auditConfigRecord = (note: AuditConfigNote, timeMs: number): AuditConfigRecord => ({
  type: 'audit',
  record: 'config',
  time_ms: timeMs,
  subject: redactText(note.subject),
  message: auditText(note.message),
  ...(note.file !== undefined && { file: redactText(note.file) }),
  ...(note.hook !== undefined && { hook: redactText(note.hook) }),
  ...(note.details !== undefined && { details: redactJson(note.details) }),
});
