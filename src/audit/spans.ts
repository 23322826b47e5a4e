import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type {
  AuditRecord,
  DecisionRecord,
  EventReceivedRecord,
  HookResultRecord,
  ObserverResultRecord,
} from './records.js';

/** The parts of `@opentelemetry/api` spans are made with, given by whoever loaded it. */
export interface SpanApi {
  readonly tracer: Tracer;
  /** `trace.setSpan(context.active(), span)`: the context that makes `span` a parent. */
  readonly parentContext: (span: Span) => Context;
}

/** What goes on spans besides ids, names, outcomes and decisions. */
export interface SpanOptions {
  /** Tool input and prompt (when the records carry them: `auditContent`), redacted. Default false. */
  readonly content?: boolean | undefined;
}

/** How many events' spans are kept for observers that report after the decision. */
const RECENT_EVENTS = 1024;
/** An event whose decision never comes (a cancelled run) is not kept forever. */
const OPEN_EVENTS = 10_000;

const SPAN_KIND_INTERNAL = 0;
const STATUS_ERROR = 2;

type EventIds = Pick<EventReceivedRecord, 'seq' | 'session_id' | 'tool_use_id' | 'hook_event_name'>;

/** The GenAI semantic conventions' names where they exist, `cosh.hook.*` for the rest. */
const idAttributes = (ids: EventIds, toolName: string | undefined): Attributes => ({
  'gen_ai.conversation.id': ids.session_id,
  'gen_ai.session.id': ids.session_id,
  ...(toolName !== undefined && { 'gen_ai.tool.name': toolName }),
  ...(ids.tool_use_id !== undefined && { 'gen_ai.tool.call.id': ids.tool_use_id }),
  'cosh.hook.event.name': ids.hook_event_name,
  'cosh.hook.event.seq': ids.seq,
});

const receivedAttributes = (record: EventReceivedRecord, content: boolean): Attributes => {
  const attributes: Attributes = {
    ...idAttributes(record, record.tool_name),
    'cosh.hook.chain': [...record.chain],
  };
  if (record.run_id !== undefined) attributes['cosh.hook.event.run_id'] = record.run_id;
  if (record.observers !== undefined) attributes['cosh.hook.observers'] = [...record.observers];
  if (content && record.content !== undefined) {
    const { tool_input: toolInput, prompt } = record.content;
    if (toolInput !== undefined) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(toolInput);
    if (typeof prompt === 'string') attributes['cosh.hook.event.prompt'] = prompt;
  }
  return attributes;
};

const decisionAttributes = (record: DecisionRecord): Attributes => ({
  'cosh.hook.decision': record.decision,
  ...(record.reason !== undefined && { 'cosh.hook.reason': record.reason }),
  ...(record.system_message !== undefined && { 'cosh.hook.system_message': record.system_message }),
  ...(record.decided_by !== undefined && { 'cosh.hook.decided_by': record.decided_by }),
  'cosh.hook.hooks_run': record.hooks_run,
  'cosh.hook.hooks_skipped': record.hooks_skipped,
});

const hookAttributes = (
  record: HookResultRecord | ObserverResultRecord,
  toolName: string | undefined,
): Attributes => ({
  ...idAttributes(record, toolName),
  'cosh.hook.name': record.hook,
  'cosh.hook.source': record.source,
  'cosh.hook.outcome': record.outcome,
  'cosh.hook.duration_ms': record.duration_ms,
  ...(record.decision !== undefined && { 'cosh.hook.decision': record.decision }),
  ...(record.failure_kind !== undefined && {
    'cosh.hook.failure_kind': record.failure_kind,
    'error.type': record.failure_kind,
  }),
  ...(record.reason !== undefined && { 'cosh.hook.reason': record.reason }),
  ...(record.message !== undefined && { 'cosh.hook.message': record.message }),
  ...(record.record === 'hook_result'
    ? { 'cosh.hook.position': record.position, 'cosh.hook.effective_decision': record.effective }
    : { 'cosh.hook.observer': true }),
});

interface EventSpan {
  readonly span: Span;
  readonly toolName: string | undefined;
}

/**
 * Turns audit records into spans (docs/audit.md): one span per event, from `event_received` to
 * `decision`, and a child span per hook that ran (its own start and end), per hook skipped (zero
 * length) and per observer run or drop. Times are the records' own, so spans are exact whatever
 * the delay between a record and this call. Returns the function to feed records to; it never
 * throws (a span the SDK refuses is lost, not the record).
 */
export const spanBuilder = (api: SpanApi, options: SpanOptions = {}): ((record: AuditRecord) => void) => {
  const open = new Map<number, EventSpan>();
  const recent = new Map<number, EventSpan>();
  const content = options.content === true;
  const child = (
    parent: EventSpan | undefined,
    name: string,
    startTime: number,
    attributes: Attributes,
  ): Span =>
    api.tracer.startSpan(
      name,
      { kind: SPAN_KIND_INTERNAL, startTime, attributes },
      parent === undefined ? undefined : api.parentContext(parent.span),
    );
  const remember = (map: Map<number, EventSpan>, seq: number, value: EventSpan, bound: number) => {
    map.set(seq, value);
    if (map.size > bound) {
      const oldest = map.keys().next().value as number;
      map.delete(oldest);
    }
  };
  const parentOf = (seq: number) => open.get(seq) ?? recent.get(seq);

  const feed = (record: AuditRecord): void => {
    switch (record.record) {
      case 'event_received': {
        const span = api.tracer.startSpan(`cosh_hooks ${record.hook_event_name}`, {
          kind: SPAN_KIND_INTERNAL,
          startTime: record.time_ms,
          attributes: receivedAttributes(record, content),
        });
        remember(open, record.seq, { span, toolName: record.tool_name }, OPEN_EVENTS);
        return;
      }
      case 'hook_result':
      case 'observer_result': {
        const parent = parentOf(record.seq);
        const kind = record.record === 'hook_result' ? 'hook' : 'observer';
        const span = child(
          parent,
          `cosh_hooks.${kind} ${record.hook}`,
          record.start_ms,
          hookAttributes(record, parent?.toolName),
        );
        if (record.failure_kind !== undefined)
          span.setStatus({ code: STATUS_ERROR, message: record.message ?? record.failure_kind });
        span.end(record.end_ms);
        return;
      }
      case 'hook_skipped': {
        const parent = parentOf(record.seq);
        child(parent, `cosh_hooks.hook ${record.hook}`, record.time_ms, {
          ...idAttributes(record, parent?.toolName),
          'cosh.hook.name': record.hook,
          'cosh.hook.source': record.source,
          'cosh.hook.position': record.position,
          'cosh.hook.outcome': 'skipped',
          ...(record.blocked_by !== undefined && { 'cosh.hook.blocked_by': record.blocked_by }),
        }).end(record.time_ms);
        return;
      }
      case 'decision': {
        const event = open.get(record.seq);
        if (event === undefined) return;
        open.delete(record.seq);
        event.span.setAttributes(decisionAttributes(record));
        event.span.end(record.time_ms);
        remember(recent, record.seq, event, RECENT_EVENTS);
        return;
      }
      case 'observer_dropped': {
        const parent = parentOf(record.seq);
        child(parent, `cosh_hooks.observer ${record.hook}`, record.time_ms, {
          ...idAttributes(record, parent?.toolName),
          'cosh.hook.name': record.hook,
          'cosh.hook.source': record.source,
          'cosh.hook.observer': true,
          'cosh.hook.outcome': 'dropped',
          'cosh.hook.observer.dropped': record.dropped,
          'cosh.hook.observer.dropped_total': record.dropped_total,
          'cosh.hook.observer.last_seq': record.last_seq,
          'cosh.hook.observer.queue': record.queue,
        }).end(record.time_ms);
        return;
      }
      case 'config': {
        api.tracer
          .startSpan(`cosh_hooks.config ${record.subject}`, {
            kind: SPAN_KIND_INTERNAL,
            startTime: record.time_ms,
            attributes: {
              'cosh.hook.config.subject': record.subject,
              'cosh.hook.message': record.message,
              ...(record.file !== undefined && { 'cosh.hook.config.file': record.file }),
              ...(record.hook !== undefined && { 'cosh.hook.name': record.hook }),
            },
          })
          .end(record.time_ms);
        return;
      }
      case 'telemetry':
        return;
    }
  };
  return (record) => {
    try {
      feed(record);
    } catch {
      // A tracer that throws loses its span; the audit stream and the decisions go on.
    }
  };
};
