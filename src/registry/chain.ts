import type { HookEvent } from '../events/codecs.js';
import { byEvent, TOOL_EVENTS, type EventName } from '../events/names.js';
import type { Hook, Registry } from './hook.js';

const toolNameOf = (event: HookEvent): string | undefined =>
  'tool_name' in event && typeof event.tool_name === 'string' ? event.tool_name : undefined;

/**
 * The hooks that apply to one event, in chain order (SPEC §4, §4.1): enabled ones whose matcher,
 * on tool events, matches `tool_name` or its alias. Matchers are ignored on other events.
 */
export const chainFor = (registry: Registry, event: HookEvent): readonly Hook[] => {
  const hooks = registry[event.hook_event_name];
  if (hooks.length === 0) return hooks;
  const toolName = TOOL_EVENTS.includes(event.hook_event_name) ? (toolNameOf(event) ?? '') : undefined;
  return hooks.filter(
    (hook) =>
      hook.enabled &&
      (toolName === undefined || hook.matcher === undefined || hook.matcher.matches(toolName)),
  );
};

/** A registry built event by event. */
export const registryOf = (chainOf: (name: EventName) => readonly Hook[]): Registry => byEvent(chainOf);

/** Chains of `first` followed by those of `second`, per event. */
export const concatRegistries = (first: Registry, second: Registry): Registry =>
  registryOf((name) => [...first[name], ...second[name]]);
