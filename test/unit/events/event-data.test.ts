import { describe, expect, it } from 'vitest';
import { eventClone, eventDataCopy } from '../../../src/events/event-data.js';
import { admit, JsonLine, readInput } from '../../../src/events/index.js';

/**
 * An event is plain JSON data (docs/protocol.md, "Events are data"): the engine's own copy is made
 * once, at admission, and anything JSON cannot carry as data is refused with its path, before any
 * hook sees the event. Each case is a host object an attacker (or a careless host) could hand over.
 */

const defaults = { now: () => new Date(Date.UTC(2026, 0, 1)), cwd: () => '/work' };

const pre = (toolInput: unknown): Record<string, unknown> => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: toolInput,
});

const cyclic = (): unknown => {
  const input: Record<string, unknown> = { command: 'ls' };
  input['self'] = input;
  return pre(input);
};

class Command {
  constructor(readonly command: string) {}
}

const reads: string[] = [];

/** Each case: what the host hands over, and the exact `hook_error` message. */
const refused: ReadonlyArray<readonly [string, () => unknown, string]> = [
  [
    'a toJSON method on the event',
    () => ({ ...pre({ command: 'rm -rf /' }), toJSON: () => pre({ command: 'ls' }) }),
    'toJSON: a toJSON method, which changes what JSON shows: an event must be plain data',
  ],
  [
    'a toJSON method on tool_input',
    () => pre({ command: 'rm -rf /', toJSON: () => ({ command: 'ls' }) }),
    'tool_input.toJSON: a toJSON method, which changes what JSON shows: an event must be plain data',
  ],
  [
    'a getter (never called)',
    () =>
      pre(
        Object.defineProperty({}, 'command', {
          enumerable: true,
          get: () => {
            reads.push('getter');
            return reads.length === 1 ? 'ls' : 'rm -rf /';
          },
        }),
      ),
    'tool_input.command: a getter or setter, not a data value: an event must be plain data',
  ],
  [
    'a setter',
    () => pre(Object.defineProperty({ command: 'ls' }, 'x', { enumerable: true, set: () => undefined })),
    'tool_input.x: a getter or setter, not a data value: an event must be plain data',
  ],
  [
    'a function value',
    () => pre({ command: 'ls', run: () => 'rm -rf /' }),
    'tool_input.run: a function, which JSON cannot carry',
  ],
  [
    'a symbol key',
    () => pre({ command: 'ls', [Symbol('hidden')]: 'rm -rf /' }),
    'tool_input[Symbol(hidden)]: a symbol key, which JSON cannot carry',
  ],
  [
    'a symbol value',
    () => pre({ command: Symbol('rm') }),
    'tool_input.command: a symbol, which JSON cannot carry',
  ],
  [
    'a non-enumerable property (JSON would drop it)',
    () => pre(Object.defineProperty({ command: 'ls' }, 'argv', { value: ['rm', '-rf', '/'] })),
    'tool_input.argv: a non-enumerable property, which JSON would leave out: an event must be plain data',
  ],
  ['a BigInt', () => pre({ sizes: [1, 2n] }), 'tool_input.sizes.1: a BigInt, which JSON cannot carry'],
  [
    'a cycle',
    cyclic,
    'tool_input.self: a cycle (refers to an object that contains it), which JSON cannot carry',
  ],
  [
    'a Date',
    () => pre({ command: 'ls', at: new Date(0) }),
    'tool_input.at: a Date object, not a plain object or array: an event must be plain data',
  ],
  [
    'a Map',
    () => pre({ command: 'ls', env: new Map([['A', '1']]) }),
    'tool_input.env: a Map object, not a plain object or array: an event must be plain data',
  ],
  [
    'a class instance',
    () => pre(new Command('rm -rf /')),
    'tool_input: a Command object, not a plain object or array: an event must be plain data',
  ],
  [
    'a boxed string',
    () => pre({ command: new String('rm -rf /') }),
    'tool_input.command: a String object, not a plain object or array: an event must be plain data',
  ],
  ['NaN', () => pre({ count: NaN }), 'tool_input.count: NaN, which JSON cannot carry (it would become null)'],
  [
    'Infinity',
    () => pre({ count: -Infinity }),
    'tool_input.count: -Infinity, which JSON cannot carry (it would become null)',
  ],
  [
    'undefined in an array',
    () => pre({ argv: ['rm', undefined, '/'] }),
    'tool_input.argv.1: undefined, which JSON cannot carry (it would become null)',
  ],
  [
    'a hole in an array',
    // eslint-disable-next-line no-sparse-arrays
    () => pre({ argv: ['rm', , '/'] }),
    'tool_input.argv.1: a hole in an array, which JSON cannot carry (it would become null)',
  ],
  [
    'an array with a named property',
    () => pre({ argv: Object.assign(['ls'], { extra: 'rm -rf /' }) }),
    'tool_input.argv.extra: a named property on an array, which JSON would leave out',
  ],
  [
    'a Proxy whose ownKeys trap throws',
    () =>
      pre(
        new Proxy(
          { command: 'ls' },
          {
            ownKeys: () => {
              throw new Error('trap says no');
            },
          },
        ),
      ),
    'tool_input: cannot be read: trap says no',
  ],
  [
    'a Proxy whose getPrototypeOf trap throws, at the top',
    () =>
      new Proxy(pre({ command: 'ls' }), {
        getPrototypeOf: () => {
          throw new Error('no prototype for you');
        },
      }),
    'event: cannot be read: no prototype for you',
  ],
  [
    'a Proxy whose descriptor trap throws a non-Error',
    () =>
      pre(
        new Proxy(
          { command: 'ls' },
          {
            getOwnPropertyDescriptor: () => {
              throw Object.create(null);
            },
          },
        ),
      ),
    'tool_input: cannot be read: an unprintable value was thrown',
  ],
  [
    'a Proxy of an array that lies about its length',
    () =>
      pre({
        argv: new Proxy(['ls'], {
          get: (target, key) => (key === 'length' ? 'many' : Reflect.get(target, key)),
        }),
      }),
    'tool_input.argv: cannot be read: an array whose length is not a count',
  ],
  [
    'nesting deeper than 512 levels',
    () => {
      let deep: unknown = 'rm -rf /';
      for (let i = 0; i < 600; i++) deep = [deep];
      return pre({ command: deep });
    },
    'tool_input: nested deeper than 512 levels',
  ],
  [
    'more than 1,000,000 values (a DAG of 2^40 paths)',
    () => {
      let node: unknown = 'x';
      for (let i = 0; i < 40; i++) node = [node, node];
      return pre({ command: node });
    },
    'tool_input: more than 1,000,000 values',
  ],
  [
    'a sparse array of length 2^32 - 1',
    () => pre({ argv: new Array(2 ** 32 - 1) }),
    'tool_input: more than 1,000,000 values',
  ],
];

describe('eventDataCopy: what JSON cannot carry as data is refused, with its path', () => {
  it.each(refused)('%s', (_, make, message) => {
    reads.length = 0;
    const copied = eventDataCopy(make());
    expect(copied).toStrictEqual({ ok: false, error: message });
    expect(reads).toEqual([]);
  });

  it.each(refused)('%s: admit() refuses the host object with the same message', (_, make, message) => {
    expect(admit(readInput(make()), defaults)).toStrictEqual({ ok: false, error: message });
  });

  it('a long path is cut to 8 keys', () => {
    let input: unknown = { f: () => 1 };
    for (let i = 0; i < 12; i++) input = { k: input };
    expect(eventDataCopy(pre(input))).toStrictEqual({
      ok: false,
      error: 'tool_input.k.k.k.k.k.k.k…: a function, which JSON cannot carry',
    });
  });

  it('a key that is not a plain name is quoted in the path', () => {
    expect(eventDataCopy(pre({ 'a.b': { '': () => 1 } }))).toStrictEqual({
      ok: false,
      error: 'tool_input."a.b"."": a function, which JSON cannot carry',
    });
  });
});

describe('eventDataCopy: plain data is copied exactly', () => {
  it('gives a deep copy equal to the JSON round trip, sharing no object with the host', () => {
    const nested = { args: ['-la', { deep: [1, 2.5, -3, true, false, null, ''] }] };
    const event = pre({ command: 'ls', nested, '': 'empty key', ünï: 'cödé' });
    const copied = eventDataCopy(event);
    expect(copied.ok).toBe(true);
    if (!copied.ok) return;
    expect(copied.value).toStrictEqual(JSON.parse(JSON.stringify(event)));
    const value = copied.value as { tool_input: { nested: { args: unknown[] } } };
    expect(value).not.toBe(event);
    expect(value.tool_input).not.toBe(event['tool_input']);
    expect(value.tool_input.nested).not.toBe(nested);
    expect(value.tool_input.nested.args[1]).not.toBe(nested.args[1]);
  });

  it('leaves out object fields that are undefined, as JSON does (an absent optional field)', () => {
    const copied = eventDataCopy({ ...pre({ command: 'ls', cwd: undefined }), transcript_path: undefined });
    expect(copied).toStrictEqual({ ok: true, value: pre({ command: 'ls' }) });
  });

  it('writes -0 as 0, as JSON does', () => {
    expect(eventDataCopy(pre({ n: -0 }))).toStrictEqual({ ok: true, value: pre({ n: 0 }) });
  });

  it('keeps a `__proto__` key as data, never as a prototype', () => {
    const input = JSON.parse('{"__proto__":{"command":"rm -rf /"},"command":"ls"}') as object;
    const copied = eventDataCopy(pre(input));
    expect(copied.ok).toBe(true);
    if (!copied.ok) return;
    const copiedInput = (copied.value as { tool_input: Record<string, unknown> }).tool_input;
    expect(Object.getPrototypeOf(copiedInput)).toBe(Object.prototype);
    expect(Object.keys(copiedInput)).toEqual(['__proto__', 'command']);
    expect(JSON.stringify(copiedInput)).toBe('{"__proto__":{"command":"rm -rf /"},"command":"ls"}');
  });

  it('accepts objects without a prototype (Object.create(null)) as plain data', () => {
    const input = Object.assign(Object.create(null) as object, { command: 'ls' });
    expect(eventDataCopy(pre(input))).toStrictEqual({ ok: true, value: pre({ command: 'ls' }) });
  });

  it('a shared (not cyclic) object is copied at each place', () => {
    const shared = { command: 'ls' };
    expect(eventDataCopy(pre({ a: shared, b: [shared] }))).toStrictEqual({
      ok: true,
      value: pre({ a: { command: 'ls' }, b: [{ command: 'ls' }] }),
    });
  });

  it('a Proxy that answers differently on each read is read at admission only: the copy never changes', () => {
    let reads = 0;
    const input = new Proxy(
      { command: 'ls' },
      {
        getOwnPropertyDescriptor: (target, key) => {
          reads += 1;
          const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
          return descriptor && { ...descriptor, value: reads % 2 === 0 ? 'rm -rf /' : 'ls' };
        },
        get: () => 'rm -rf /',
      },
    );
    const copied = eventDataCopy(pre(input));
    expect(copied.ok).toBe(true);
    if (!copied.ok) return;
    const seen = JSON.stringify(copied.value);
    const readsAtAdmission = reads;
    expect(readsAtAdmission).toBeLessThanOrEqual(3);
    // Every later reader (each hook, the decision) gets the same text; the Proxy is never asked again.
    expect(JSON.stringify(copied.value)).toBe(seen);
    expect(JSON.stringify(structuredClone(copied.value))).toBe(seen);
    expect(reads).toBe(readsAtAdmission);
  });
});

describe('admit: a JSON line is already fresh data, a host object is copied', () => {
  it('a parsed line is not copied again (it is the engine’s own already)', () => {
    const input = readInput(
      new JsonLine(
        1,
        '{"hook_event_name":"Stop","session_id":"s","cwd":"/","timestamp":"2026-07-01T10:00:00Z"}',
      ),
    );
    const admitted = admit(input, defaults);
    expect(admitted.ok && input.ok && admitted.value === input.value).toBe(true);
  });

  it('a parsed value is fresh once, and only while it is the last one parsed: any other order costs a copy', () => {
    const text = (n: number) =>
      `{"hook_event_name":"Stop","session_id":"s${n}","cwd":"/","timestamp":"2026-07-01T10:00:00Z"}`;
    const first = readInput(new JsonLine(1, text(1)));
    const second = readInput(new JsonLine(2, text(2)));
    // `first` is no longer the last parsed value: admitted, it is copied like a host's object.
    const late = admit(first, defaults);
    expect(late.ok && first.ok && late.value !== first.value).toBe(true);
    expect(late).toStrictEqual({ ok: true, value: first.ok && first.value });
    const fresh = admit(second, defaults);
    expect(fresh.ok && second.ok && fresh.value === second.value).toBe(true);
    // Admitting the same value again (a host handing back what came out): a copy this time.
    const again = admit(second, defaults);
    expect(again.ok && second.ok && again.value !== second.value).toBe(true);
  });

  it('a host object with the same text as a parsed line is still copied: freshness is identity', () => {
    readInput(
      new JsonLine(
        1,
        '{"hook_event_name":"Stop","session_id":"s","cwd":"/","timestamp":"2026-07-01T10:00:00Z"}',
      ),
    );
    const host = { hook_event_name: 'Stop', session_id: 's', cwd: '/', timestamp: '2026-07-01T10:00:00Z' };
    const admitted = admit(readInput(host), defaults);
    expect(admitted.ok && admitted.value !== host).toBe(true);
  });

  it('a host object is never the admitted event', () => {
    const event = { hook_event_name: 'Stop', session_id: 's', cwd: '/', timestamp: '2026-07-01T10:00:00Z' };
    const admitted = admit(readInput(event), defaults);
    expect(admitted).toStrictEqual({ ok: true, value: event });
    expect(admitted.ok && admitted.value !== event).toBe(true);
  });

  it('an item that only claims to come from a line (line set by hand) is copied all the same', () => {
    const event = {
      hook_event_name: 'Stop',
      session_id: 's',
      cwd: '/',
      timestamp: '2026-07-01T10:00:00Z',
      f: () => 1,
    };
    expect(admit({ ok: true, value: event, line: 3 }, defaults)).toStrictEqual({
      ok: false,
      line: 3,
      error: 'f: a function, which JSON cannot carry',
    });
  });
});

describe('eventClone: each in-process hook gets its own copy', () => {
  it('equal, sharing no object, a `__proto__` key kept as data', () => {
    const event = JSON.parse(
      '{"hook_event_name":"PreToolUse","tool_input":{"argv":["rm",{"f":"/"}],"__proto__":{"x":1}}}',
    ) as Record<string, { argv: unknown[] }>;
    const clone = eventClone(event);
    expect(clone).toStrictEqual(event);
    expect(clone['tool_input']).not.toBe(event['tool_input']);
    expect(clone['tool_input']!.argv).not.toBe(event['tool_input']!.argv);
    expect(clone['tool_input']!.argv[1]).not.toBe(event['tool_input']!.argv[1]);
    expect(Object.getPrototypeOf(clone['tool_input'])).toBe(Object.prototype);
    expect(JSON.stringify(clone)).toBe(JSON.stringify(event));
  });

  it('throws past its depth bound instead of recursing without end', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 600; i++) deep = [deep];
    expect(() => eventClone(deep)).toThrow('an event nested deeper than 520 levels cannot be copied');
  });
});
