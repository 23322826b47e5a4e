import type { Hook, Registry } from '../registry/index.js';

/**
 * What guards the gateway's tools (docs/mcp.md, "Never unguarded without a word"): pure, over the
 * registry. A guard is an enabled PreToolUse hook of the chain: an observer sees a call after its
 * decision and stops nothing.
 */

const isGuard = (hook: Hook): boolean => hook.enabled && hook.observe !== true;

/** Whether any PreToolUse hook could stop a call at all. */
export const hasGuard = (registry: Registry): boolean => registry.PreToolUse.some(isGuard);

/** Of `toolNames` (`mcp__<name>__<tool>`), those no guard's matcher selects, in the order given. */
export const unguardedTools = (registry: Registry, toolNames: readonly string[]): string[] => {
  const guards = registry.PreToolUse.filter(isGuard);
  return toolNames.filter(
    (name) => !guards.some((hook) => hook.matcher === undefined || hook.matcher.matches(name)),
  );
};
