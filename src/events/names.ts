/**
 * The lifecycle event points, and what a hook may decide at each (docs/protocol.md): cosh's eight,
 * then the five Claude Code adds that cosh hosts may send (`SessionEnd` … `SubagentStop`).
 */

export const EVENT_NAMES = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'Stop',
  'BeforeModel',
  'AfterModel',
  'SessionEnd',
  'Notification',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
] as const;

/** The name of one of the lifecycle events (docs/protocol.md). */
export type EventName = (typeof EVENT_NAMES)[number];

/** A hook's normalized decision; `none` is pass-through. */
export type Decision = 'allow' | 'block' | 'ask' | 'none';

/** Decisions the host obeys, per event. A decision not listed counts as pass-through. */
export const INTERCEPTABLE: Readonly<Record<EventName, readonly Decision[]>> = {
  PreToolUse: ['allow', 'block', 'ask'],
  PostToolUse: ['allow', 'block'],
  PostToolUseFailure: [],
  // `ask` as cosh-core handles it: the host asks the user whether the prompt may go on.
  UserPromptSubmit: ['allow', 'block', 'ask'],
  SessionStart: [],
  Stop: ['allow', 'block'],
  BeforeModel: [],
  AfterModel: [],
  SessionEnd: [],
  Notification: [],
  PreCompact: [],
  SubagentStart: [],
  // Like Stop: a block keeps the sub-agent working, its reason being the next instruction.
  SubagentStop: ['allow', 'block'],
};

/** Events that carry `tool_name` (docs/protocol.md). */
export const TOOL_EVENTS: readonly EventName[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];

/**
 * The field a hook's matcher is tested against, per event, as Claude Code matches them
 * (docs/protocol.md): the tool name on tool events, the notification type, the compaction trigger,
 * the sub-agent type, the session-end reason. On events not listed a matcher is ignored.
 */
export const MATCHED_FIELD: Readonly<Partial<Record<EventName, string>>> = {
  PreToolUse: 'tool_name',
  PostToolUse: 'tool_name',
  PostToolUseFailure: 'tool_name',
  SessionEnd: 'reason',
  Notification: 'notification_type',
  PreCompact: 'trigger',
  SubagentStart: 'agent_type',
  SubagentStop: 'agent_type',
};

/** Events where a matcher applies, in EVENT_NAMES order. */
export const MATCHED_EVENTS: readonly EventName[] = EVENT_NAMES.filter(
  (name) => MATCHED_FIELD[name] !== undefined,
);

/** The stop events: a block makes the agent (or a sub-agent) go on working. */
export const isStopEvent = (name: EventName): name is 'Stop' | 'SubagentStop' =>
  name === 'Stop' || name === 'SubagentStop';

const NAME_SET: ReadonlySet<string> = new Set(EVENT_NAMES);

/** A table with one entry per event, in EVENT_NAMES order. */
export const byEvent = <T>(valueOf: (name: EventName) => T): Record<EventName, T> =>
  Object.fromEntries(EVENT_NAMES.map((name) => [name, valueOf(name)])) as Record<EventName, T>;

export const isEventName = (value: unknown): value is EventName =>
  typeof value === 'string' && NAME_SET.has(value);

export const isInterceptable = (event: EventName, decision: Decision): boolean =>
  INTERCEPTABLE[event].includes(decision);
