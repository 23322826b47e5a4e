import { MAX_JSON_DEPTH, isJsonObject, type JsonObject } from '../events/untrusted.js';

/**
 * Deep merge for `hookSpecificOutput` (spec §4.6): objects merge key by key, any other value
 * (arrays included) replaces; the later argument wins. Inputs are never mutated, and keys such as
 * `__proto__` are copied as data, never as a prototype. Recursion stops at `maxDepth` levels (the
 * outer objects are level 1): objects at that level still merge key by key, but their own object
 * values replace whole. Hook output deeper than 512 levels is already invalid, so the bound only
 * guards callers that skip that check: nothing can overflow the stack here.
 */
export const deepMerge = (
  base: JsonObject,
  patch: JsonObject,
  maxDepth: number = MAX_JSON_DEPTH,
): JsonObject => {
  const merged: Record<string, unknown> = {};
  const put = (key: string, value: unknown) =>
    Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  for (const [key, value] of Object.entries(base)) put(key, value);
  for (const [key, value] of Object.entries(patch)) {
    const previous = Object.prototype.hasOwnProperty.call(merged, key) ? merged[key] : undefined;
    put(
      key,
      maxDepth > 1 && isJsonObject(previous) && isJsonObject(value)
        ? deepMerge(previous, value, maxDepth - 1)
        : value,
    );
  }
  return merged;
};
