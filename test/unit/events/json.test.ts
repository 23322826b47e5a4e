import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseJson } from '../../../src/events/untrusted.js';
import { err, ok, type Result } from '../../../src/result.js';

describe('parseJson: the one place text becomes JSON', () => {
  it.each([
    ['{"a":[1,null,"x"]}', { a: [1, null, 'x'] }],
    ['"text"', 'text'],
    ['  7 ', 7],
    ['null', null],
  ])('%j parses to a value', (text, value) => {
    expect(parseJson(text)).toStrictEqual({ ok: true, value });
  });

  it.each([
    ['nope', 'Unexpected token \'o\', "nope" is not valid JSON'],
    ['', 'Unexpected end of JSON input'],
    ['{"a":1,}', expect.stringMatching(/^Expected double-quoted property name in JSON at position 7/)],
  ])("%j is an error carrying the parser's message, never a throw", (text, message) => {
    expect(parseJson(text)).toStrictEqual({ ok: false, error: message });
  });

  it('parses 100,000 levels without recursion; bounding depth is the decoders’ job (decodeEvent, decodeHookOutputValue)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(parseJson(deep).ok).toBe(true);
  });

  it('types: Result<unknown>, the error a string', () => {
    expectTypeOf(parseJson).returns.toEqualTypeOf<Result<unknown>>();
    expectTypeOf(ok(1)).toEqualTypeOf<Result<number, never>>();
    expectTypeOf(err('no')).toEqualTypeOf<Result<never, string>>();
    const value: Result<number> = Math.random() > 2 ? err('no') : ok(1);
    if (value.ok) expectTypeOf(value.value).toEqualTypeOf<number>();
    else expectTypeOf(value.error).toEqualTypeOf<string>();
  });
});
