import * as t from 'io-ts';
import type { EventName } from './names.js';

/**
 * io-ts codecs for the events (docs/protocol.md), the five Claude Code ones with the fields Claude Code
 * sends. `t.type` keeps unknown fields, so whatever a newer
 * host sends is forwarded to hooks unchanged. Each event is one required and one optional part
 * (flat, because every event of a session goes through here).
 */

/** `codec` under a name that reads well in messages (`tool_input: expected an object, …`). */
export const named = <A, O>(codec: t.Type<A, O, unknown>, name: string): t.Type<A, O, unknown> =>
  new t.Type(name, codec.is, codec.validate, codec.encode);

const Text = named(t.string, 'a string');
const Flag = named(t.boolean, 'a boolean');
const JsonObject = named(t.UnknownRecord, 'an object');

/** Any JSON value, but present: `t.unknown` would accept a missing field. */
const AnyJson = new t.Type<unknown>(
  'any JSON value',
  (value): value is unknown => value !== undefined,
  (value, context) => (value === undefined ? t.failure(value, context) : t.success(value)),
  t.identity,
);

// Field ranges in the pattern itself: Date.parse would double the cost of decoding an event.
const RFC_3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** Days in `month` (1-12) of `year`, by the Gregorian rule. */
const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/** The pattern bounds the day to 31; days 29-31 are checked against the month and leap year. */
const isRfc3339 = (value: unknown): value is string => {
  if (typeof value !== 'string' || !RFC_3339.test(value)) return false;
  // Fixed positions: YYYY-MM-DD.
  const day = Number(value.slice(8, 10));
  if (day < 29) return true;
  return day <= daysIn(Number(value.slice(0, 4)), Number(value.slice(5, 7)));
};

/** A date-time as RFC 3339 writes it (`2026-07-01T10:00:00Z`, offsets and fractions allowed). */
export const Rfc3339 = new t.Type<string>(
  'an RFC 3339 timestamp',
  isRfc3339,
  (value, context) => (isRfc3339(value) ? t.success(value) : t.failure(value, context)),
  t.identity,
);

const common = { session_id: Text };
const commonOptional = {
  cwd: Text,
  timestamp: Rfc3339,
  transcript_path: Text,
  run_id: Text,
  tool_use_id: Text,
};
const toolCall = { tool_name: Text, tool_input: JsonObject };

const event = <N extends string, R extends t.Props, O extends t.Props>(name: N, required: R, optional: O) =>
  t.intersection(
    [
      t.type({ hook_event_name: t.literal(name), ...common, ...required }),
      t.partial({ ...commonOptional, ...optional }),
    ],
    name,
  );

export const PreToolUseEvent = event('PreToolUse', toolCall, {});
export const PostToolUseEvent = event('PostToolUse', { ...toolCall, tool_response: AnyJson }, {});
export const PostToolUseFailureEvent = event(
  'PostToolUseFailure',
  { ...toolCall, error: named(t.union([t.string, t.UnknownRecord]), 'a string or an object') },
  {},
);
export const UserPromptSubmitEvent = event('UserPromptSubmit', { prompt: Text }, {});
export const SessionStartEvent = event('SessionStart', {}, { source: Text });
export const StopEvent = event('Stop', {}, { last_assistant_message: Text, stop_hook_active: Flag });
export const BeforeModelEvent = event('BeforeModel', { llm_request: JsonObject }, {});
export const AfterModelEvent = event('AfterModel', { llm_response: JsonObject }, { llm_request: JsonObject });
export const SessionEndEvent = event('SessionEnd', {}, { reason: Text });
export const NotificationEvent = event(
  'Notification',
  { message: Text },
  { title: Text, notification_type: Text },
);
export const PreCompactEvent = event('PreCompact', { trigger: Text }, { custom_instructions: Text });
export const SubagentStartEvent = event('SubagentStart', { agent_id: Text, agent_type: Text }, {});
// Claude Code versions before the sub-agent ids sent SubagentStop without them: both optional.
export const SubagentStopEvent = event(
  'SubagentStop',
  {},
  {
    agent_id: Text,
    agent_type: Text,
    agent_transcript_path: Text,
    last_assistant_message: Text,
    stop_hook_active: Flag,
  },
);

export const EventCodecs = {
  PreToolUse: PreToolUseEvent,
  PostToolUse: PostToolUseEvent,
  PostToolUseFailure: PostToolUseFailureEvent,
  UserPromptSubmit: UserPromptSubmitEvent,
  SessionStart: SessionStartEvent,
  Stop: StopEvent,
  BeforeModel: BeforeModelEvent,
  AfterModel: AfterModelEvent,
  SessionEnd: SessionEndEvent,
  Notification: NotificationEvent,
  PreCompact: PreCompactEvent,
  SubagentStart: SubagentStartEvent,
  SubagentStop: SubagentStopEvent,
} as const;

export const HookEvent = t.union([
  PreToolUseEvent,
  PostToolUseEvent,
  PostToolUseFailureEvent,
  UserPromptSubmitEvent,
  SessionStartEvent,
  StopEvent,
  BeforeModelEvent,
  AfterModelEvent,
  SessionEndEvent,
  NotificationEvent,
  PreCompactEvent,
  SubagentStartEvent,
  SubagentStopEvent,
]);

/**
 * An event as a host sends it, by name (`EventInput<'PreToolUse'>`), or any of them (`EventInput`):
 * a union discriminated by `hook_event_name`. Derived from the codecs, so what the engine accepts
 * and what this type allows are one definition: what a host may leave out (`cwd`, `timestamp`,
 * each event's optional fields) is optional. The engine still checks every value at run time.
 */
export type EventInput<N extends EventName = EventName> = {
  [K in N]: t.TypeOf<(typeof EventCodecs)[K]>;
}[N];

/** A validated event: what hooks receive on stdin. `cwd` and `timestamp` are always filled. */
export type HookEvent = t.TypeOf<typeof HookEvent> & { cwd: string; timestamp: string };
export type PreToolUseEvent = t.TypeOf<typeof PreToolUseEvent>;
