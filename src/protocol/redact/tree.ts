import type { HookOutput } from '../output.js';
import type { HookResult } from '../result.js';
import { isSecretKey } from './keys.js';
import { isOneToken, REDACTED, redactText, type TextTarget } from './text.js';

/*
 * Redaction of JSON values (events, hook outputs), pure: a walk that applies the text rules to
 * every string and key, and replaces the value of every secret-named key. Bounded in depth,
 * copy on write.
 */

/** Values nested deeper than this are replaced whole: events and outputs are at most 512 deep. */
export const MAX_REDACTION_DEPTH = 512;

/** `keys`: secret-named keys' values are secrets; `text` (tool schemas): only the text rules apply. */
type Mode = 'keys' | 'text';

interface Walk {
  readonly target: TextTarget;
}

/** A fresh object with `entries`; `__proto__` and friends stay ordinary keys. */
const objectOf = (entries: readonly (readonly [string, unknown])[]): Record<string, unknown> => {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
};

/**
 * The value of a secret-named key. What leaves the engine loses it whole. A hook's input loses it
 * only when it is one token (a number, a boolean, a string without white space or shell syntax):
 * a value that could be code stays for the hook to judge, and an object or array is walked.
 */
const secretValue = (value: unknown, walk: Walk, depth: number): unknown => {
  if (walk.target === 'output') return REDACTED;
  if (typeof value === 'string') return isOneToken(value) ? REDACTED : redactText(value, walk.target);
  if (typeof value === 'number' || typeof value === 'boolean') return REDACTED;
  return redactTree(value, 'keys', walk, depth);
};

/**
 * A key as it may be shown: a secret used as a key (`{"ghp_…": true}`) is redacted like any text.
 * Two keys that redact alike stay two keys (`<redacted>`, `<redacted> 2`), so no value is lost.
 */
const keyOf = (
  key: string,
  walk: Walk,
  taken: Set<string>,
  object: Readonly<Record<string, unknown>>,
): string => {
  const redacted = redactText(key, walk.target);
  if (redacted === key) return key;
  let unique = redacted;
  for (let n = 2; taken.has(unique) || (unique !== key && Object.hasOwn(object, unique)); n += 1) {
    unique = `${redacted} ${n}`;
  }
  return unique;
};

/**
 * `value` redacted: in `keys` mode a secret-named key's value is a secret, and strings get the text
 * rules; in `text` mode (tool schemas) only the text rules apply, so a property named `token`
 * survives. Copy on write: an unchanged subtree is returned as is.
 */
const redactTree = (
  value: unknown,
  mode: Mode,
  walk: Walk,
  depth: number,
  special?: SpecialKeys,
): unknown => {
  if (typeof value === 'string') return redactText(value, walk.target);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTION_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const redacted = redactTree(item, mode, walk, depth + 1);
      if (redacted !== item) changed = true;
      return redacted;
    });
    return changed ? items : value;
  }
  const object = value as Readonly<Record<string, unknown>>;
  let entries: [string, unknown][] | undefined;
  const taken = new Set<string>();
  let index = 0;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const item = object[key];
    const redacted =
      special !== undefined && Object.hasOwn(special, key)
        ? (special[key] as SpecialHandler)(item, walk, depth + 1)
        : mode === 'keys' && isSecretKey(key)
          ? secretValue(item, walk, depth + 1)
          : redactTree(item, mode, walk, depth + 1);
    const shownKey = keyOf(key, walk, taken, object);
    if ((redacted !== item || shownKey !== key) && entries === undefined) {
      // First change: copy the keys before this one, then collect the rest.
      entries = Object.keys(object)
        .slice(0, index)
        .map((earlier): [string, unknown] => [earlier, object[earlier]]);
    }
    taken.add(shownKey);
    entries?.push([shownKey, redacted]);
    index += 1;
  }
  return entries === undefined ? value : objectOf(entries);
};

type SpecialHandler = (value: unknown, walk: Walk, depth: number) => unknown;
type SpecialKeys = Readonly<Record<string, SpecialHandler>>;

const textOnly: SpecialHandler = (value, walk, depth) => redactTree(value, 'text', walk, depth);

/** `llm_request.tools` and `llm_request.config.tools` hold JSON Schema: text rules only (cosh-core). */
const LLM_REQUEST: SpecialKeys = {
  tools: textOnly,
  config: (value, walk, depth) => redactTree(value, 'keys', walk, depth, { tools: textOnly }),
};
const TOP_LEVEL: SpecialKeys = {
  llm_request: (value, walk, depth) => redactTree(value, 'keys', walk, depth, LLM_REQUEST),
};

const OUTPUT: Walk = { target: 'output' };
const HOOK_INPUT: Walk = { target: 'hook-input' };

/**
 * A JSON value as it may leave the engine (a hook's `hookSpecificOutput`, a host's log line):
 * secret-named keys' values, secret-shaped text and keys, except in tool schemas, which get the
 * text rules only. Never mutates; returns `value` itself when nothing was redacted.
 */
export const redactJson = <A>(value: A): A => redactTree(value, 'keys', OUTPUT, 0, TOP_LEVEL) as A;

/**
 * The event as a `redact = true` hook receives it: as `redactJson`, except that only single tokens
 * are replaced (no PEM blocks, no value holding white space or shell syntax), so the copy never
 * hides code from the hook (docs/protocol.md).
 */
export const redactHookInput = <A>(value: A): A => redactTree(value, 'keys', HOOK_INPUT, 0, TOP_LEVEL) as A;

const redactedEvents = new WeakMap<object, object>();

/**
 * The event as a `redact = true` hook receives it, redacted once: the copy is kept (weakly, by
 * identity) for every later hook of the same event's chain. The event must not be mutated
 * afterwards; the engine never does.
 */
export const redactedEvent = <A extends object>(event: A): A => {
  const cached = redactedEvents.get(event);
  if (cached !== undefined) return cached as A;
  const redacted = redactHookInput(event);
  redactedEvents.set(event, redacted);
  return redacted;
};

/** A hook's parsed output with its secrets redacted (reason, systemMessage, hookSpecificOutput). */
export const redactOutput = (output: HookOutput): HookOutput => {
  const reason = output.reason === undefined ? undefined : redactText(output.reason);
  const systemMessage = output.systemMessage === undefined ? undefined : redactText(output.systemMessage);
  const specific =
    output.hookSpecificOutput === undefined ? undefined : redactJson(output.hookSpecificOutput);
  if (
    reason === output.reason &&
    systemMessage === output.systemMessage &&
    specific === output.hookSpecificOutput
  ) {
    return output;
  }
  return {
    ...output,
    ...(reason !== undefined && { reason }),
    ...(systemMessage !== undefined && { systemMessage }),
    ...(specific !== undefined && { hookSpecificOutput: specific }),
  };
};

/**
 * A hook's result as it may leave the engine: its output redacted, or, for a failure, its message
 * (which may quote stdout or stderr) and its stderr (the fail_closed reason) redacted.
 */
export const redactResult = (result: HookResult): HookResult => {
  if (result.outcome === 'ok') {
    const output = redactOutput(result.output);
    return output === result.output ? result : { ...result, output };
  }
  const message = redactText(result.message);
  const stderr = result.stderr === undefined ? undefined : redactText(result.stderr);
  if (message === result.message && stderr === result.stderr) return result;
  return { ...result, message, ...(stderr !== undefined && { stderr }) };
};
