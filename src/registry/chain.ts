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

/** Whether `hook` (enabled, its matcher fitting `text`) applies; `text` undefined = matchers ignored. */
const applies = (hook: Hook, text: string | undefined, onTool: boolean): boolean =>
  hook.enabled &&
  (text === undefined ||
    hook.matcher === undefined ||
    // Tool names have aliases (docs/configuration.md); notification types, triggers and agent types do not.
    (onTool ? hook.matcher.matches(text) : hook.matcher.matchesText(text)));

/** The hooks of `event` that apply to it, observers (`observe`) or chain hooks as `observers` says. */
const applying = (registry: Registry, event: HookEvent, observers: boolean): readonly Hook[] => {
  const hooks = registry[event.hook_event_name];
  if (hooks.length === 0) return hooks;
  const text = matchedTextOf(event);
  const onTool = TOOL_EVENTS.includes(event.hook_event_name);
  return hooks.filter((hook) => (hook.observe === true) === observers && applies(hook, text, onTool));
};

/**
 * The hooks that apply to one event, in chain order (docs/configuration.md): enabled ones whose matcher
 * matches the event's matched field (docs/protocol.md): `tool_name` or its alias on tool events,
 * `notification_type`, `trigger`, `agent_type` or `reason` on the events that carry them.
 * Matchers are ignored on other events. Observers (`observe`) are never in the chain: see `observersFor`.
 */
export const chainFor = (registry: Registry, event: HookEvent): readonly Hook[] =>
  applying(registry, event, false);

/**
 * The observers that apply to one event (docs/audit.md): enabled `observe` hooks whose matcher
 * fits, in registry order. They run after the decision, off the chain.
 */
export const observersFor = (registry: Registry, event: HookEvent): readonly Hook[] =>
  applying(registry, event, true);

/**
 * Whether an event `name` whose matched field (docs/protocol.md) is `text` can meet any enabled
 * hook or observer: when not, its decision is pass-through with no hooks whatever else it carries,
 * and a host need not build it (the adapters skip it, docs/hosts.md). `text` undefined: any enabled
 * hook of the event counts; on events without a matched field, `text` is ignored.
 */
export const mayApply = (registry: Registry, name: EventName, text?: string): boolean => {
  const hooks = registry[name];
  if (hooks.length === 0) return false;
  const matched = MATCHED_FIELD[name] === undefined ? undefined : text;
  const onTool = TOOL_EVENTS.includes(name);
  return hooks.some((hook) => applies(hook, matched, onTool));
};

/** Whether any hook of the registry is an observer (so the engine skips observer work when none is). */
export const hasObservers = (registry: Registry): boolean =>
  Object.values(registry).some((hooks: readonly Hook[]) => hooks.some((hook) => hook.observe === true));

/** A registry built event by event. */
export const registryOf = (chainOf: (name: EventName) => readonly Hook[]): Registry => byEvent(chainOf);

/** Chains of `first` followed by those of `second`, per event. */
export const concatRegistries = (first: Registry, second: Registry): Registry =>
  registryOf((name) => [...first[name], ...second[name]]);
