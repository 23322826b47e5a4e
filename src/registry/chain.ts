import type { HookEvent } from '../events/codecs.js';
import { byEvent, MATCHED_FIELD, TOOL_EVENTS, type EventName } from '../events/names.js';
import type { Hook, Registry } from './hook.js';

/** The text a matcher is tested against on `event` (absent field = `""`), or `undefined` when matchers are ignored there. */
const matchedTextOf = (event: HookEvent): string | undefined => {
  const field = MATCHED_FIELD[event.hook_event_name];
  if (field === undefined) return undefined;
  const value = (event as Readonly<Record<string, unknown>>)[field];
  return typeof value === 'string' ? value : '';
};

/**
 * The hooks that apply to one event, in chain order (docs/configuration.md): enabled ones whose matcher
 * matches the event's matched field (docs/protocol.md): `tool_name` or its alias on tool events,
 * `notification_type`, `trigger`, `agent_type` or `reason` on the events that carry them.
 * Matchers are ignored on other events.
 */
export const chainFor = (registry: Registry, event: HookEvent): readonly Hook[] => {
  const hooks = registry[event.hook_event_name];
  if (hooks.length === 0) return hooks;
  const text = matchedTextOf(event);
  if (text === undefined) return hooks.filter((hook) => hook.enabled);
  // Tool names have aliases (docs/configuration.md); notification types, triggers and agent types do not.
  const onTool = TOOL_EVENTS.includes(event.hook_event_name);
  return hooks.filter(
    (hook) =>
      hook.enabled &&
      (hook.matcher === undefined || (onTool ? hook.matcher.matches(text) : hook.matcher.matchesText(text))),
  );
};

/** A registry built event by event. */
export const registryOf = (chainOf: (name: EventName) => readonly Hook[]): Registry => byEvent(chainOf);

/** Chains of `first` followed by those of `second`, per event. */
export const concatRegistries = (first: Registry, second: Registry): Registry =>
  registryOf((name) => [...first[name], ...second[name]]);
