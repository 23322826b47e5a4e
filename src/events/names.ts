/** The eight lifecycle event points, and what a hook may decide at each (SPEC §1). */

export const EVENT_NAMES = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'Stop',
  'BeforeModel',
  'AfterModel',
] as const;

/** The name of one of the eight lifecycle events (SPEC §1). */
export type EventName = (typeof EVENT_NAMES)[number];

/** A hook's normalized decision; `none` is pass-through. */
export type Decision = 'allow' | 'block' | 'ask' | 'none';

/** Decisions the host obeys, per event. A decision not listed counts as pass-through. */
export const INTERCEPTABLE: Readonly<Record<EventName, readonly Decision[]>> = {
  PreToolUse: ['allow', 'block', 'ask'],
  PostToolUse: ['allow', 'block'],
  PostToolUseFailure: [],
  UserPromptSubmit: ['allow', 'block'],
  SessionStart: [],
  Stop: ['allow', 'block'],
  BeforeModel: [],
  AfterModel: [],
};

/** Events that carry `tool_name`; the only ones where a matcher applies (SPEC §4.1). */
export const TOOL_EVENTS: readonly EventName[] = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];

const NAME_SET: ReadonlySet<string> = new Set(EVENT_NAMES);

/** A table with one entry per event, in EVENT_NAMES order. */
export const byEvent = <T>(valueOf: (name: EventName) => T): Record<EventName, T> =>
  Object.fromEntries(EVENT_NAMES.map((name) => [name, valueOf(name)])) as Record<EventName, T>;

export const isEventName = (value: unknown): value is EventName =>
  typeof value === 'string' && NAME_SET.has(value);

export const isInterceptable = (event: EventName, decision: Decision): boolean =>
  INTERCEPTABLE[event].includes(decision);
