import { describe, expect, it } from 'vitest';
import { decodeHookOutputValue, decodeHookStdout, normalizeDecision } from '../../../src/protocol/index.js';

describe('normalizeDecision', () => {
  it.each([
    ['allow', 'allow'],
    ['ALLOW', 'allow'],
    ['Allow', 'allow'],
    ['approve', 'allow'],
    ['APPROVE', 'allow'],
    ['block', 'block'],
    ['Block', 'block'],
    ['deny', 'block'],
    ['DENY', 'block'],
    ['reject', 'block'],
    ['Reject', 'block'],
    ['ask', 'ask'],
    ['ASK', 'ask'],
    ['none', 'none'],
    ['None', 'none'],
    ['NONE', 'none'],
    ['', 'none'],
    [null, 'none'],
    [undefined, 'none'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeDecision(input)).toBe(expected);
  });

  it.each([
    ['maybe'],
    [' allow'],
    ['allow '],
    ['yes'],
    ['constructor'],
    ['__proto__'],
    [true],
    [0],
    [1],
    [{}],
    [[]],
  ])('rejects %j', (input) => {
    expect(normalizeDecision(input)).toBeUndefined();
  });
});

describe('decodeHookStdout', () => {
  it.each([
    ['', { decision: 'none' }],
    ['   \n\t ', { decision: 'none' }],
    ['{}', { decision: 'none' }],
    ['{"decision":null}', { decision: 'none' }],
    ['{"decision":""}', { decision: 'none' }],
    ['{"decision":"none"}', { decision: 'none' }],
    ['{"decision":"allow"}', { decision: 'allow' }],
    ['{"decision":"approve"}', { decision: 'allow' }],
    ['{"decision":"DENY","reason":"no"}', { decision: 'block', reason: 'no' }],
    ['{"decision":"reject"}', { decision: 'block' }],
    ['  {"decision":"ask"}\n', { decision: 'ask' }],
    [
      '{"decision":"block","reason":"r","systemMessage":"m","hookSpecificOutput":{"additional_context":"c"}}',
      { decision: 'block', reason: 'r', systemMessage: 'm', hookSpecificOutput: { additional_context: 'c' } },
    ],
    ['{"decision":"allow","extra":1,"continue":false}', { decision: 'allow' }],
    ['{"reason":"only a reason"}', { decision: 'none', reason: 'only a reason' }],
  ])('%j decodes', (stdout, output) => {
    expect(decodeHookStdout(stdout)).toEqual({ ok: true, value: output });
  });

  it.each([
    ['null', 'expected a JSON object, got null'],
    ['[]', 'expected a JSON object, got an array'],
    ['"allow"', 'expected a JSON object, got a string'],
    ['42', 'expected a JSON object, got a number'],
    ['true', 'expected a JSON object, got a boolean'],
    ['{"decision":"maybe"}', 'decision: unknown value "maybe" (expected allow, block, ask or none)'],
    ['{"decision":1}', 'decision: unknown value a number (expected allow, block, ask or none)'],
    ['{"decision":true}', 'decision: unknown value a boolean (expected allow, block, ask or none)'],
    ['{"decision":"allow","reason":5}', 'reason: expected a string, got a number'],
    ['{"decision":"allow","systemMessage":null}', 'systemMessage: expected a string, got null'],
    ['{"decision":"allow","hookSpecificOutput":"x"}', 'hookSpecificOutput: expected an object, got a string'],
    ['{"decision":"allow","hookSpecificOutput":[1]}', 'hookSpecificOutput: expected an object, got an array'],
    ['{"decision":"allow"', 'stdout is not JSON: "{\\"decision\\":\\"allow\\""'],
    ['{"decision":"allow"}\n{"decision":"block"}', 'stdout is not JSON: "{\\"decision\\":\\"allow\\"}…"'],
    ['allow', 'stdout is not JSON: "allow"'],
  ])('%j is invalid output', (stdout, error) => {
    expect(decodeHookStdout(stdout)).toEqual({ ok: false, error });
  });

  it('keeps a long non-JSON preview short', () => {
    const result = decodeHookStdout('x'.repeat(10_000));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.length).toBeLessThan(100);
  });
});

describe('decodeHookOutputValue (parsed stdout, in-process hook values)', () => {
  it('normalizes an object', () => {
    expect(decodeHookOutputValue({ decision: 'Approve', systemMessage: 's' })).toEqual({
      ok: true,
      value: { decision: 'allow', systemMessage: 's' },
    });
  });

  // undefined and null are pass-through for function hooks: runFunctionHook decides that, not the decoder.
  it.each([['allow'], [7], [[{ decision: 'allow' }]], [null], [undefined]])('%j is invalid', (value) => {
    expect(decodeHookOutputValue(value).ok).toBe(false);
  });
});

describe('snake_case output keys and the keys accepted and ignored (spec §4.3)', () => {
  it('system_message and hook_specific_output are aliases', () => {
    expect(
      decodeHookStdout(
        '{"decision":"allow","system_message":"hi","hook_specific_output":{"tool_input":{"a":1}}}',
      ),
    ).toEqual({
      ok: true,
      value: { decision: 'allow', systemMessage: 'hi', hookSpecificOutput: { tool_input: { a: 1 } } },
    });
  });

  it('when both spellings are present, the snake_case one is used (no merge of the two)', () => {
    expect(
      decodeHookOutputValue({
        systemMessage: 'camel',
        system_message: 'snake',
        hookSpecificOutput: { camel: true },
        hook_specific_output: { snake: true },
      }),
    ).toEqual({
      ok: true,
      value: { decision: 'none', systemMessage: 'snake', hookSpecificOutput: { snake: true } },
    });
  });

  it.each([
    ['{"system_message":5}', 'system_message: expected a string, got a number'],
    ['{"hook_specific_output":"x"}', 'hook_specific_output: expected an object, got a string'],
    ['{"hook_specific_output":[1]}', 'hook_specific_output: expected an object, got an array'],
    ['{"systemMessage":"ok","system_message":null}', 'system_message: expected a string, got null'],
  ])('%s is invalid: %s', (stdout, error) => {
    expect(decodeHookStdout(stdout)).toEqual({ ok: false, error });
  });

  it.each([
    ['{"decision":"block","reason":"r","continue":false}'],
    ['{"decision":"block","reason":"r","continue":"no"}'],
    ['{"decision":"block","reason":"r","stopReason":"s","stop_reason":7}'],
    ['{"decision":"block","reason":"r","suppressOutput":true,"suppress_output":{"x":[1]}}'],
    ['{"decision":"block","reason":"r","continue":null,"stopReason":[],"suppressOutput":"yes"}'],
  ])('%s: continue, stop_reason and suppress_output are ignored, whatever their type', (stdout) => {
    expect(decodeHookStdout(stdout)).toEqual({ ok: true, value: { decision: 'block', reason: 'r' } });
  });
});
