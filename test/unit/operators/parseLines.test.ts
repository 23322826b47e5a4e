import { of, type Observable, type OperatorFunction } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseLines } from '../../../operators/index.js';
import type { ParsedInput } from '../../../src/events/input.js';
import { JsonLine } from '../../../src/events/index.js';
import { createTestScheduler } from '../../../src/testing/index.js';

const stop = { hook_event_name: 'Stop', session_id: 's' };

const input = {
  /** An event as JSONL text, on line 1. */
  l: new JsonLine(1, JSON.stringify(stop)),
  /** Line 2 is not JSON. */
  x: new JsonLine(2, 'nope'),
  /** The reader could not decode line 5: its problem is the error, the text is not parsed. */
  u: new JsonLine(5, '', 'not JSON: the line is not valid UTF-8'),
  /** An event value, as a host hands it over: it has no line. */
  v: stop,
  /** Any other value is a value too: whether it is an event is admitEvents' question. */
  n: 42,
  /** JSON that is not an object still parses: admitEvents rejects it by its line. */
  a: new JsonLine(9, '[1,2]'),
};

const parsed = {
  L: { ok: true, value: stop, line: 1 },
  X: { ok: false, error: 'not JSON: Unexpected token \'o\', "nope" is not valid JSON', line: 2 },
  U: { ok: false, error: 'not JSON: the line is not valid UTF-8', line: 5 },
  V: { ok: true, value: stop },
  N: { ok: true, value: 42 },
  A: { ok: true, value: [1, 2], line: 9 },
} satisfies Record<string, ParsedInput>;

describe('parseLines', () => {
  it('parses each JsonLine and passes each value on, in the frame it arrives', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -l-x-v--n-a-|', input);
      const e1subs = '  ^-----------!';
      const expected = '-L-X-V--N-A-|';
      expectObservable(e1.pipe(parseLines())).toBe(expected, parsed);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it("a line the reader could not decode carries the reader's problem, with its line number", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const e1 = cold(' u-l|', input);
      const e1subs = '  ^--!';
      expectObservable(e1.pipe(parseLines())).toBe('U-L|', parsed);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('passes on an error of the source (#); bad lines before it were values, not errors', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -l-x--#', input, new Error('stdin closed'));
      const e1subs = '  ^-----!';
      const expected = '-L-X--#';
      expectObservable(e1.pipe(parseLines())).toBe(expected, parsed, new Error('stdin closed'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -l-x-v--n-|', input);
      const unsub = '   ^----!     ';
      const e1subs = '  ^----!     ';
      const expected = '-L-X-      ';
      expectObservable(e1.pipe(parseLines()), unsub).toBe(expected, parsed);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('an item that throws when asked what it is (a hostile Proxy) is an error value, not a stream error', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw new Error('proxy boom');
        },
      },
    );
    const seen: ParsedInput[] = [];
    of(hostile, input.l)
      .pipe(parseLines())
      .subscribe({ next: (item) => seen.push(item) });
    expect(seen).toStrictEqual([{ ok: false, error: 'event: cannot be read: proxy boom' }, parsed.L]);
  });

  it('types: anything in (event values or JsonLines), ParsedInput out', () => {
    expectTypeOf(parseLines).parameters.toEqualTypeOf<[]>();
    expectTypeOf(parseLines()).toEqualTypeOf<OperatorFunction<unknown, ParsedInput>>();
    expectTypeOf(of(new JsonLine(1, '{}'), stop).pipe(parseLines())).toEqualTypeOf<Observable<ParsedInput>>();
    expectTypeOf<ParsedInput['line']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Extract<ParsedInput, { ok: false }>['error']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<ParsedInput, { ok: true }>['value']>().toEqualTypeOf<unknown>();
  });
});
