/**
 * Reading untrusted values (events from the host, hook output) safely. Nothing in the engine
 * recurses over such a value without going through this check first, so no value can overflow the
 * stack in decoding, merging or writing (spec §4.3).
 */

import { err, ok, type Result } from '../result.js';

/** A JSON object as untrusted data: keys to values not yet looked at. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether a value is a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deepest nesting accepted, counting the outer object as level 1 (spec §4.3). */
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

/** Most values (objects, arrays and leaves) copied out of one in-process value. */
export const MAX_PLAIN_VALUES = 1_000_000;

/** Why an in-process value has no plain JSON copy, and where (keys from the outer value down). */
export interface PlainProblem {
  readonly path: readonly string[];
  readonly problem: JsonProblem['problem'] | 'too_large';
}

/** Thrown inside the copy to unwind it; `path` is the keys down to the problem. */
class PlainCopyError {
  constructor(
    readonly problem: PlainProblem['problem'],
    readonly path: readonly string[],
  ) {}
}

/** The walk's state: values still allowed, and the keys from the outer value to the current one. */
interface CopyState {
  budget: number;
  readonly path: string[];
}

/** One value as JSON would write it; module-level and closure-free, as it runs per function hook. */
const copyPlain = (node: unknown, key: string, levels: number, state: CopyState): unknown => {
  if ((state.budget -= 1) < 0) throw new PlainCopyError('too_large', [...state.path]);
  let current: unknown = node;
  if (typeof current === 'object' && current !== null) {
    const toJSON = (current as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') current = (toJSON as (key: string) => unknown).call(current, key);
    // Boxed primitives (`new String('a')`) are their primitive, as JSON.stringify writes them.
    if (current instanceof Number || current instanceof String || current instanceof Boolean)
      current = current.valueOf();
  }
  switch (typeof current) {
    case 'string':
    case 'boolean':
      return current;
    case 'number':
      // -0 is written as 0, and NaN and the infinities as null.
      return Number.isFinite(current) ? (current === 0 ? 0 : current) : null;
    case 'bigint':
      throw new PlainCopyError('bigint', [...state.path]);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (current === null) return null;
  if (levels === 0) throw new PlainCopyError('too_deep', [...state.path]);
  const { path } = state;
  if (Array.isArray(current)) {
    const length = current.length;
    if (length > state.budget) throw new PlainCopyError('too_large', [...path]);
    const items: unknown[] = [];
    for (let i = 0; i < length; i++) {
      const name = String(i);
      path.push(name);
      items.push(copyPlain((current as unknown[])[i], name, levels - 1, state) ?? null);
      path.pop();
    }
    return items;
  }
  const object: Record<string, unknown> = {};
  const names = Object.keys(current);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    path.push(name);
    const item = copyPlain((current as Record<string, unknown>)[name], name, levels - 1, state);
    path.pop();
    if (item === undefined) continue;
    // A key named `__proto__` stays data, as JSON.parse makes it, never a prototype.
    if (name === '__proto__')
      Object.defineProperty(object, name, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else object[name] = item;
  }
  return object;
};

/**
 * A plain JSON copy of an in-process value (a function hook's answer): what `JSON.parse` would
 * give for `JSON.stringify(value)`, made by a walk with two bounds: `maxDepth` levels (a cycle ends
 * there) and `MAX_PLAIN_VALUES` values (a sparse array of length 2^32 - 1 or a DAG of 2^100 paths
 * ends there, instead of freezing the engine). Every getter, `toJSON` and Proxy trap runs once,
 * here: what the engine and its host keep afterwards is data that cannot throw, change or recurse
 * again when read or written. `undefined` for a value JSON leaves out (a function, a symbol).
 * May throw what the value throws when read: callers catch.
 */
export const plainJsonCopy = (
  value: unknown,
  maxDepth: number = MAX_JSON_DEPTH,
): Result<unknown, PlainProblem> => {
  try {
    return ok(copyPlain(value, '', maxDepth, { budget: MAX_PLAIN_VALUES, path: [] }));
  } catch (error) {
    if (!(error instanceof PlainCopyError)) throw error;
    return err({ path: error.path, problem: error.problem });
  }
};

/**
 * `field: nested deeper than 512 levels` (the top-level field under `root`), or
 * `tool_input.n: a BigInt, which JSON cannot carry` (the path, at most 8 keys).
 */
export const describeJsonProblem = (found: JsonProblem | PlainProblem, root: string): string => {
  if (found.problem === 'too_large')
    return `${found.path[0] ?? root}: more than ${MAX_PLAIN_VALUES.toLocaleString('en-US')} values`;
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
