import type { HookEvent } from '../events/codecs.js';
import { byEvent, TOOL_EVENTS, type EventName } from '../events/names.js';
import type { Hook, Registry } from './hook.js';

const toolNameOf = (event: HookEvent): string | undefined =>
  'tool_name' in event && typeof event.tool_name === 'string' ? event.tool_name : undefined;

const applies = (hook: Hook, toolName: string | undefined): boolean =>
  hook.enabled && (toolName === undefined || hook.matcher === undefined || hook.matcher.matches(toolName));

const toolNameFor = (event: HookEvent): string | undefined =>
  TOOL_EVENTS.includes(event.hook_event_name) ? (toolNameOf(event) ?? '') : undefined;

/**
 * The hooks that apply to one event, in chain order (SPEC §4, §4.1): enabled ones whose matcher,
 * on tool events, matches `tool_name` or its alias. Matchers are ignored on other events.
 * Observers (`observe`) are never in the chain: see `observersFor`.
 */
export const chainFor = (registry: Registry, event: HookEvent): readonly Hook[] => {
  const hooks = registry[event.hook_event_name];
  if (hooks.length === 0) return hooks;
  const toolName = toolNameFor(event);
  return hooks.filter((hook) => hook.observe !== true && applies(hook, toolName));
};

/**
 * The observers that apply to one event (docs/audit.md): enabled `observe` hooks whose matcher
 * fits, in registry order. They run after the decision, off the chain.
 */
export const observersFor = (registry: Registry, event: HookEvent): readonly Hook[] => {
  const hooks = registry[event.hook_event_name];
  if (hooks.length === 0) return hooks;
  const toolName = toolNameFor(event);
  return hooks.filter((hook) => hook.observe === true && applies(hook, toolName));
};

/** Whether any hook of the registry is an observer (so the engine skips observer work when none is). */
export const hasObservers = (registry: Registry): boolean =>
  Object.values(registry).some((hooks: readonly Hook[]) => hooks.some((hook) => hook.observe === true));

/** A registry built event by event. */
export const registryOf = (chainOf: (name: EventName) => readonly Hook[]): Registry => byEvent(chainOf);

/** Chains of `first` followed by those of `second`, per event. */
export const concatRegistries = (first: Registry, second: Registry): Registry =>
  registryOf((name) => [...first[name], ...second[name]]);
