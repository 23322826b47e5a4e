/*
 * Hook stdout, or an in-process hook's value, to a `HookOutput` (docs/protocol.md). Apart from the
 * shape (`output.ts`): quoting the hook's text in an error takes `excerpt`, which redacts, and the
 * redaction reads the shape.
 */
import { isLeft } from 'fp-ts/lib/Either.js';
import {
  describeJsonProblem,
  describeThrown,
  jsonProblemOf,
  parseJson,
  plainJsonCopy,
} from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';
import { normalizeDecision } from './decision.js';
import { excerpt } from './excerpt.js';
import { RawHookOutput, type DecodedOutput } from './output.js';

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
