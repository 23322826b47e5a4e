/**
 * Reading untrusted values (events from the host, hook output) safely. Nothing in the engine
 * recurses over such a value without going through this check first, so no value can overflow the
 * stack in decoding, merging or writing (SPEC §4.3).
 */

import { err, ok, type Result } from '../result.js';

/** A JSON object as untrusted data: keys to values not yet looked at. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether a value is a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deepest nesting accepted, counting the outer object as level 1 (SPEC §4.3). */
export const MAX_JSON_DEPTH = 512;

/** Why a value cannot be carried as JSON, and where (keys from the outer value down). */
export interface JsonProblem {
  readonly path: readonly string[];
  readonly problem: 'too_deep' | 'bigint';
}

type Found = JsonProblem['problem'] | undefined;

/** Depth-first; recursion is bounded by `levels`, so a cycle ends as `too_deep`. */
const walk = (node: unknown, levels: number, path: string[]): Found => {
  if (typeof node !== 'object' || node === null) return typeof node === 'bigint' ? 'bigint' : undefined;
  if (levels === 0) return 'too_deep';
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = walk(node[i], levels - 1, path);
      if (found !== undefined) {
        path.push(String(i));
        return found;
      }
    }
    return undefined;
  }
  for (const key in node) {
    const found = walk((node as Record<string, unknown>)[key], levels - 1, path);
    if (found !== undefined) {
      path.push(key);
      return found;
    }
  }
  return undefined;
};

/**
 * The first reason `value` cannot be written as a JSON line: objects and arrays nested more than
 * `maxDepth` levels (a cycle counts as too deep), or a BigInt (`JSON.stringify` throws on both).
 * May throw when `value` has a throwing getter or is a hostile Proxy: callers catch.
 */
export const jsonProblemOf = (value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | undefined => {
  // Filled only on the way back up from a problem, innermost key first.
  const path: string[] = [];
  const problem = walk(value, maxDepth, path);
  return problem === undefined ? undefined : { path: path.reverse(), problem };
};

/**
 * `field: nested deeper than 512 levels` (the top-level field under `root`), or
 * `tool_input.n: a BigInt, which JSON cannot carry` (the path, at most 8 keys).
 */
export const describeJsonProblem = (found: JsonProblem, root: string): string => {
  if (found.problem === 'too_deep')
    return `${found.path[0] ?? root}: nested deeper than ${MAX_JSON_DEPTH} levels`;
  const keys = found.path.slice(0, 8);
  const where = keys.length === 0 ? root : `${keys.join('.')}${found.path.length > keys.length ? '…' : ''}`;
  return `${where}: a BigInt, which JSON cannot carry`;
};

/** What a thrown value says, without trusting it (it may be anything, even a throwing Proxy). */
export const describeThrown = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an unprintable value was thrown';
  }
};

/**
 * `JSON.parse` as a value: the document, or the parser's message (`Unexpected token …`), never a
 * throw. The one place text becomes JSON in the engine. V8's parser does not recurse, so any depth
 * parses; the value is untrusted all the same: whatever recurses over it checks it first with
 * `jsonProblemOf` (`decodeEvent` and `decodeHookOutputValue` do, so events and hook answers stay
 * within 512 levels).
 */
export const parseJson = (text: string): Result<unknown> => {
  try {
    return ok(JSON.parse(text));
  } catch (error) {
    return err(describeThrown(error));
  }
};
