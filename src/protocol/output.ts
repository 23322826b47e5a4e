import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { Decision } from '../events/names.js';
import { normalizeDecision } from './decision.js';
import { excerpt } from './excerpt.js';

/** What a hook may print on stdout (SPEC §4.3). Other top-level fields are ignored. */
export const RawHookOutput = t.partial({
  decision: t.unknown,
  reason: t.string,
  systemMessage: t.string,
  hookSpecificOutput: t.UnknownRecord,
});
export type RawHookOutput = t.TypeOf<typeof RawHookOutput>;

/** A hook's answer after normalization. */
export interface HookOutput {
  readonly decision: Decision;
  readonly reason?: string;
  readonly systemMessage?: string;
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>>;
}

export type DecodedOutput =
  { readonly ok: true; readonly output: HookOutput } | { readonly ok: false; readonly error: string };

const PASS_THROUGH: HookOutput = { decision: 'none' };

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/** Normalizes an already-parsed value: one JSON object (parsed stdout, or an in-process hook's return). */
export const decodeHookOutputValue = (value: unknown): DecodedOutput => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `expected a JSON object, got ${typeName(value)}` };
  }
  const result = RawHookOutput.decode(value);
  if (isLeft(result)) {
    const field = result.left[0]?.context[1]?.key ?? 'output';
    const expected = field === 'hookSpecificOutput' ? 'an object' : 'a string';
    return { ok: false, error: `${field}: expected ${expected}, got ${typeName(result.left[0]?.value)}` };
  }
  const raw = result.right;
  const decision = normalizeDecision(raw.decision);
  if (decision === undefined) {
    const shown =
      typeof raw.decision === 'string' ? JSON.stringify(excerpt(raw.decision)) : typeName(raw.decision);
    return { ok: false, error: `decision: unknown value ${shown} (expected allow, block, ask or none)` };
  }
  return {
    ok: true,
    output: {
      decision,
      ...(raw.reason !== undefined && { reason: raw.reason }),
      ...(raw.systemMessage !== undefined && { systemMessage: raw.systemMessage }),
      ...(raw.hookSpecificOutput !== undefined && { hookSpecificOutput: raw.hookSpecificOutput }),
    },
  };
};

/** Decodes a hook's stdout: empty (after trimming) is pass-through, otherwise one JSON object. */
export const decodeHookStdout = (stdout: string): DecodedOutput => {
  const text = stdout.trim();
  if (text === '') return { ok: true, output: PASS_THROUGH };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `stdout is not JSON: ${JSON.stringify(excerpt(text))}` };
  }
  return decodeHookOutputValue(value);
};
