/**
 * An event is plain JSON data (docs/protocol.md, "Events are data"). A host's object is copied
 * once, when the event is admitted, by a walk that reads each property exactly once and refuses,
 * with its path, anything JSON cannot carry as data: what every hook sees is then what the host
 * meant, and nothing the host does to its object later, nor a getter or Proxy answering
 * differently on a second read, changes it. A JSON line needs no copy: `JSON.parse` made it, and
 * nobody else holds it. Each in-process hook gets its own deep copy of the admitted event, so no
 * hook can change what a later hook or the host sees.
 */

import { err, ok, type Result } from '../result.js';
import { describeThrown, MAX_JSON_DEPTH, MAX_PLAIN_VALUES } from './untrusted.js';

/**
 * The value `JSON.parse` last produced for the engine (a line of JSONL text), until it is admitted:
 * nobody else holds it, so it needs no copy. One slot, not a set: the edge parses a line and
 * admission takes its value in the same frame, and any other order (a host's own loop that
 * buffers between the two) only costs a copy. A `WeakSet` of every parsed value measured ~0.75 µs
 * per event in collection work (docs/performance.md, row 3d).
 */
let justParsed: object | undefined;

/** Marks a value the engine just parsed from text: admitted next, it is taken without a copy. */
export const markFreshJson = (value: unknown): void => {
  justParsed = typeof value === 'object' && value !== null ? value : undefined;
};

/**
 * Whether `value` is the one the engine just parsed (see `markFreshJson`), and if so forgets it:
 * a value is taken as fresh once.
 */
export const takeFreshJson = (value: unknown): boolean => {
  if (justParsed === undefined || value !== justParsed) return false;
  justParsed = undefined;
  return true;
};

/** Why a value is not plain JSON data; the copy stops at the first one. */
type Problem =
  | 'too_deep'
  | 'too_large'
  | 'bigint'
  | 'cycle'
  | 'to_json'
  | 'accessor'
  | 'function'
  | 'symbol'
  | 'symbol_key'
  | 'non_enumerable'
  | 'array_property'
  | 'hole'
  | 'undefined_item'
  | 'non_finite'
  | 'prototype'
  | 'unreadable';

/** Thrown inside the walk to unwind it, with the keys down to the problem. */
class NotData {
  constructor(
    readonly problem: Problem,
    readonly path: readonly PropertyKey[],
    readonly detail = '',
  ) {}
}

/** The walk's state: values still allowed, the keys from the top, the objects being copied. */
interface Walk {
  budget: number;
  readonly path: PropertyKey[];
  /** The objects from the top down to the current one: a cycle is told from depth by them. */
  readonly ancestors: object[];
}

const stop = (walk: Walk, problem: Problem, detail = ''): never => {
  throw new NotData(problem, [...walk.path], detail);
};

/** A property's own name, read from descriptors only: no getter of a hostile object runs. */
const dataName = (holder: unknown, key: string): string | undefined => {
  if ((typeof holder !== 'object' && typeof holder !== 'function') || holder === null) return undefined;
  const descriptor = Reflect.getOwnPropertyDescriptor(holder, key);
  return descriptor !== undefined && 'value' in descriptor && typeof descriptor.value === 'string'
    ? descriptor.value
    : undefined;
};

/** `Date`, `Map`, a class's name: read from the prototype's `constructor`, as data only. */
const prototypeName = (prototype: object): string => {
  const constructor = Reflect.getOwnPropertyDescriptor(prototype, 'constructor');
  const name =
    constructor !== undefined && 'value' in constructor ? dataName(constructor.value, 'name') : undefined;
  return name === undefined || name === '' ? 'an object with a custom prototype' : `a ${name} object`;
};

const leaf = (node: unknown, walk: Walk, inArray: boolean): unknown => {
  switch (typeof node) {
    case 'string':
    case 'boolean':
      return node;
    case 'number':
      if (!Number.isFinite(node)) return stop(walk, 'non_finite', String(node));
      return node === 0 ? 0 : node;
    case 'bigint':
      return stop(walk, 'bigint');
    case 'symbol':
      return stop(walk, 'symbol');
    case 'function':
      return stop(walk, walk.path[walk.path.length - 1] === 'toJSON' ? 'to_json' : 'function');
    case 'undefined':
      return inArray ? stop(walk, 'undefined_item') : undefined;
    default:
      return node;
  }
};

const copyArray = (node: readonly unknown[], levels: number, walk: Walk): unknown[] => {
  const length: unknown = node.length;
  // Only a Proxy can say anything else; its items could not be read as an array.
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 0)
    stop(walk, 'unreadable', 'an array whose length is not a count');
  if ((length as number) > walk.budget) stop(walk, 'too_large');
  const { path } = walk;
  const count = length as number;
  const items: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    path.push(i);
    const descriptor = Reflect.getOwnPropertyDescriptor(node, i);
    if (descriptor === undefined) stop(walk, 'hole');
    else if (!('value' in descriptor)) stop(walk, 'accessor');
    items[i] = copyNode(descriptor!.value, levels, walk, true);
    path.pop();
  }
  if (
    Object.getOwnPropertyNames(node).length !== count + 1 ||
    Object.getOwnPropertySymbols(node).length !== 0
  ) {
    for (const key of Reflect.ownKeys(node)) {
      if (typeof key === 'symbol') {
        path.push(key);
        stop(walk, 'symbol_key');
      }
      if (key !== 'length' && !(String(Number(key)) === key && Number(key) < count)) {
        path.push(key);
        stop(walk, 'array_property');
      }
    }
  }
  return items;
};

/** The first own key of `node` that is a symbol or not enumerable: JSON would leave it out. */
const hiddenKey = (node: object, walk: Walk): never => {
  for (const key of Reflect.ownKeys(node)) {
    walk.path.push(key);
    if (typeof key === 'symbol') stop(walk, 'symbol_key');
    if (Reflect.getOwnPropertyDescriptor(node, key)?.enumerable === false) stop(walk, 'non_enumerable');
    walk.path.pop();
  }
  // The keys changed between two reads (a Proxy): nothing this engine can copy as data.
  return stop(walk, 'unreadable', 'its keys changed while it was read');
};

const copyObject = (node: object, levels: number, walk: Walk): Record<string, unknown> => {
  const { path } = walk;
  const out: Record<string, unknown> = {};
  // Enumerable string keys, then one descriptor each: the cheapest reads that still tell a getter
  // from a value without running it (docs/performance.md).
  const keys = Object.keys(node);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    path.push(key);
    const descriptor = Object.getOwnPropertyDescriptor(node, key);
    if (descriptor !== undefined) {
      if (descriptor.get !== undefined || descriptor.set !== undefined) stop(walk, 'accessor');
      const item = copyNode(descriptor.value, levels, walk, false);
      if (item !== undefined) {
        // A key named `__proto__` stays data, as JSON.parse makes it, never a prototype.
        if (key === '__proto__')
          Object.defineProperty(out, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else out[key] = item;
      }
    }
    path.pop();
  }
  // Symbol keys and non-enumerable properties are rare: two counts find them (measured ~1 µs per
  // event cheaper than one `Reflect.ownKeys`, which V8 does not cache; docs/performance.md).
  if (
    Object.getOwnPropertyNames(node).length !== keys.length ||
    Object.getOwnPropertySymbols(node).length !== 0
  )
    hiddenKey(node, walk);
  return out;
};

/**
 * At the depth bound: a cycle if an object repeats on the way down (reported where it first
 * repeats), else too deep. Checked only here, so the walk keeps no set of ancestors: a cycle
 * simply runs into the bound, like any deep value.
 */
const tooDeep = (walk: Walk): never => {
  const { ancestors, path } = walk;
  for (let later = 1; later < ancestors.length; later++) {
    const repeated = ancestors.indexOf(ancestors[later]!);
    // ancestors[i] is the value at path[0..i): the repeat sits at path[0..later).
    if (repeated < later) throw new NotData('cycle', path.slice(0, later));
  }
  return stop(walk, 'too_deep');
};

/** One value, copied as JSON would carry it, or a `NotData` thrown with its path. */
const copyNode = (node: unknown, levels: number, walk: Walk, inArray: boolean): unknown => {
  if ((walk.budget -= 1) < 0) stop(walk, 'too_large');
  if (typeof node !== 'object' || node === null) return leaf(node, walk, inArray);
  if (levels === 0) tooDeep(walk);
  const isArray = Array.isArray(node);
  const prototype = Reflect.getPrototypeOf(node);
  if (isArray ? prototype !== Array.prototype : prototype !== Object.prototype && prototype !== null)
    stop(walk, 'prototype', prototype === null ? 'an object' : prototypeName(prototype));
  walk.ancestors.push(node);
  const copied = isArray ? copyArray(node, levels - 1, walk) : copyObject(node, levels - 1, walk);
  walk.ancestors.pop();
  return copied;
};

const WHY: Readonly<Record<Problem, (detail: string) => string>> = {
  too_deep: () => `nested deeper than ${MAX_JSON_DEPTH} levels`,
  too_large: () => `more than ${MAX_PLAIN_VALUES.toLocaleString('en-US')} values`,
  bigint: () => 'a BigInt, which JSON cannot carry',
  cycle: () => 'a cycle (refers to an object that contains it), which JSON cannot carry',
  to_json: () => 'a toJSON method, which changes what JSON shows: an event must be plain data',
  accessor: () => 'a getter or setter, not a data value: an event must be plain data',
  function: () => 'a function, which JSON cannot carry',
  symbol: () => 'a symbol, which JSON cannot carry',
  symbol_key: () => 'a symbol key, which JSON cannot carry',
  non_enumerable: () => 'a non-enumerable property, which JSON would leave out: an event must be plain data',
  array_property: () => 'a named property on an array, which JSON would leave out',
  hole: () => 'a hole in an array, which JSON cannot carry (it would become null)',
  undefined_item: () => 'undefined, which JSON cannot carry (it would become null)',
  non_finite: (detail) => `${detail}, which JSON cannot carry (it would become null)`,
  prototype: (detail) => `${detail}, not a plain object or array: an event must be plain data`,
  unreadable: (detail) => `cannot be read: ${detail}`,
};

const PLAIN_KEY = /^[\w$-]+$/;

/** `tool_input.argv.1`, `tool_input."a.b"`, `tool_input[Symbol(x)]`; `event` for the whole value. */
const formatPath = (path: readonly PropertyKey[], problem: Problem): string => {
  // Size and depth are about the whole field, whatever branch the walk was in.
  const keys = problem === 'too_deep' || problem === 'too_large' ? path.slice(0, 1) : path.slice(0, 8);
  if (keys.length === 0) return 'event';
  const text = keys
    .map((key, i) => {
      if (typeof key === 'symbol') return `[${String(key)}]`;
      const name = typeof key === 'number' || PLAIN_KEY.test(key) ? String(key) : JSON.stringify(key);
      return i === 0 ? name : `.${name}`;
    })
    .join('');
  return keys.length < path.length && problem !== 'too_deep' && problem !== 'too_large' ? `${text}…` : text;
};

/**
 * The engine's own copy of an event a host handed over as an object: a deep copy holding only
 * JSON data (plain objects, arrays, strings, finite numbers, booleans, null), made by one bounded
 * walk (512 levels, 1,000,000 values) that reads each property once through its descriptor, so no
 * getter, `toJSON` or Proxy `get` trap runs. Refused with the path and the reason, as
 * `tool_input.command: a getter or setter, …`: a `toJSON` method, a getter or setter, a function, a
 * symbol key or value, a non-enumerable property, a BigInt, NaN or an infinity, a cycle, an object
 * whose prototype is not `Object.prototype` or null (a Date, a Map, a class instance, a boxed
 * string), an array with a hole, an `undefined` item or a named property, and anything whose
 * reading throws (a Proxy trap). An object field that is `undefined` is left out, as JSON leaves it
 * out (an absent optional field). Never throws.
 */
export const eventDataCopy = (value: unknown): Result<unknown> => {
  const walk: Walk = { budget: MAX_PLAIN_VALUES, path: [], ancestors: [] };
  try {
    return ok(copyNode(value, MAX_JSON_DEPTH, walk, false));
  } catch (error) {
    const found =
      error instanceof NotData ? error : new NotData('unreadable', walk.path, describeThrown(error));
    return err(`${formatPath(found.path, found.problem)}: ${WHY[found.problem](found.detail)}`);
  }
};

/** Deepest structure `eventClone` copies: an admitted event is within 512 levels. */
const MAX_CLONE_DEPTH = MAX_JSON_DEPTH + 8;

const cloneNode = (node: unknown, levels: number): unknown => {
  if (typeof node !== 'object' || node === null) return node;
  if (levels === 0) throw new Error(`an event nested deeper than ${MAX_CLONE_DEPTH} levels cannot be copied`);
  if (Array.isArray(node)) {
    const items: unknown[] = new Array<unknown>(node.length);
    for (let i = 0; i < node.length; i++) items[i] = cloneNode(node[i], levels - 1);
    return items;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(node);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = cloneNode((node as Record<string, unknown>)[key], levels - 1);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
};

/**
 * A fresh deep copy of engine-made event data (an admitted event, its dialect or redacted form:
 * plain JSON, bounded, no getters), for one in-process hook: what the hook writes into it stays
 * in its copy. Plain reads only, since the data is already checked; throws past the depth bound
 * rather than recurse further.
 */
export const eventClone = <A>(event: A): A => cloneNode(event, MAX_CLONE_DEPTH) as A;
