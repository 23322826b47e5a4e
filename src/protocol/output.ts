import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  describeJsonProblem,
  describeThrown,
  jsonProblemOf,
  parseJson,
  plainJsonCopy,
} from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';
import type { Decision } from '../events/names.js';
import { normalizeDecision } from './decision.js';
import { excerpt } from './excerpt.js';

/**
 * What a hook may print on stdout (SPEC §4.3). Both spellings of a key are accepted (cosh-core's
 * snake_case and the camelCase of Claude-style hooks); when both are present the snake_case one is
 * used, as for `additional_context`. `continue`, `stopReason`/`stop_reason` and
 * `suppressOutput`/`suppress_output` are accepted and ignored, whatever their type, like every other
 * top-level field: an ignored key never turns an answer into a failure.
 */
export const RawHookOutput = t.partial({
  decision: t.unknown,
  reason: t.string,
  systemMessage: t.string,
  system_message: t.string,
  hookSpecificOutput: t.UnknownRecord,
  hook_specific_output: t.UnknownRecord,
});
export type RawHookOutput = t.TypeOf<typeof RawHookOutput>;

/** A hook's answer after normalization. */
export interface HookOutput {
  readonly decision: Decision;
  readonly reason?: string;
  readonly systemMessage?: string;
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>>;
}

/** A hook's normalized answer, or why it is invalid (`field: expected …`). */
export type DecodedOutput = Result<HookOutput>;

const PASS_THROUGH: DecodedOutput = ok({ decision: 'none' });

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

const OBJECT_FIELDS: ReadonlySet<string> = new Set(['hookSpecificOutput', 'hook_specific_output']);

/**
 * Normalizes an already-parsed value: one JSON object (parsed stdout, or an in-process hook's
 * return). Never throws: a value nested deeper than 512 levels (or cyclic), holding a BigInt, or
 * that throws when read (a getter, a Proxy) is an error like any other invalid output.
 */
export const decodeHookOutputValue = (value: unknown): DecodedOutput => {
  try {
    return decodeValue(value);
  } catch (error) {
    return err(`output cannot be read: ${describeThrown(error)}`);
  }
};

/**
 * An in-process hook's answer as plain JSON data (`plainJsonCopy`), read once: its getters,
 * `toJSON` methods and Proxy traps run here and never again, so nothing the engine keeps or hands
 * its host (a decision's `hook_specific_output`) can throw, change or recurse when read or
 * written later. A value that is not an object is returned as is, for the decoder to name its
 * type. Never throws.
 */
export const plainHookValue = (value: unknown): Result<unknown> => {
  if (typeof value !== 'object' || value === null) return ok(value);
  try {
    const plain = plainJsonCopy(value);
    return plain.ok ? plain : err(describeJsonProblem(plain.error, 'output'));
  } catch (error) {
    return err(`output cannot be read: ${describeThrown(error)}`);
  }
};

/**
 * Why `value` is not a `RawHookOutput`. `decode` runs only here: checking with `is` first (no
 * validation context) cut row 4a (function hooks) by 5%.
 */
const describeInvalid = (value: unknown): string => {
  const result = RawHookOutput.decode(value);
  if (!isLeft(result)) return 'invalid output';
  const field = result.left[0]?.context[1]?.key ?? 'output';
  const expected = OBJECT_FIELDS.has(field) ? 'an object' : 'a string';
  return `${field}: expected ${expected}, got ${typeName(result.left[0]?.value)}`;
};

const decodeValue = (value: unknown): DecodedOutput => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err(`expected a JSON object, got ${typeName(value)}`);
  }
  // Before anything reads further: aggregation, merging and writing then never meet a value that
  // would overflow the stack.
  const problem = jsonProblemOf(value);
  if (problem !== undefined) return err(describeJsonProblem(problem, 'output'));
  if (!RawHookOutput.is(value)) return err(describeInvalid(value));
  const raw = value;
  const decision = normalizeDecision(raw.decision);
  if (decision === undefined) {
    const shown =
      typeof raw.decision === 'string' ? JSON.stringify(excerpt(raw.decision)) : typeName(raw.decision);
    return err(`decision: unknown value ${shown} (expected allow, block, ask or none)`);
  }
  const systemMessage = raw.system_message ?? raw.systemMessage;
  const hookSpecificOutput = raw.hook_specific_output ?? raw.hookSpecificOutput;
  return ok({
    decision,
    ...(raw.reason !== undefined && { reason: raw.reason }),
    ...(systemMessage !== undefined && { systemMessage }),
    ...(hookSpecificOutput !== undefined && { hookSpecificOutput }),
  });
};

/** Decodes a hook's stdout: empty (after trimming) is pass-through, otherwise one JSON object. */
export const decodeHookStdout = (stdout: string): DecodedOutput => {
  const text = stdout.trim();
  if (text === '') return PASS_THROUGH;
  const parsed = parseJson(text);
  if (!parsed.ok) return err(`stdout is not JSON: ${JSON.stringify(excerpt(text))}`);
  return decodeHookOutputValue(parsed.value);
};
