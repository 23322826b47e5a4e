import fc from 'fast-check';
import { lastValueFrom, map, of, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { plainJsonCopy } from '../../src/events/untrusted.js';
import { encodeLine, type HookDecision } from '../../src/output/lines.js';
import { hookPipeline } from '../../src/pipeline/index.js';
import { decodeHookOutputValue, decodeHookStdout, deepMerge } from '../../src/protocol/index.js';
import { defineHooks, registryOf } from '../../src/registry/index.js';
import type { HookFunction } from '../../src/registry/hook.js';
import { commandHook, createTestScheduler, event, fakeExecutor, testDeps } from '../../src/testing/index.js';
import { cli, hookTable, jsonl, jsonLines, sandbox, withoutTimes } from '../cli/helpers.js';

/**
 * Hook output nested deeper than 512 levels is `invalid_output` (spec §4.3), and nothing in the
 * engine recurses over hook-controlled data without a bound: decoding, merging, writing, `fire`.
 * Built as text or in loops: a recursive builder would itself overflow at these depths.
 */

/** `{"a":{"a":…{}…}}` as text, `levels` objects deep (the outer one counts). */
const deepObjectText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** `[[…[]…]]` as text, `levels` arrays deep. */
const deepArrayText = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** A chain of `levels` objects, each `{ x: next, [tag]: i }`, built without recursion. */
const deepObject = (levels: number, tag: string): Record<string, unknown> => {
  let node: Record<string, unknown> = { [tag]: levels };
  for (let i = levels - 1; i >= 1; i--) node = { x: node, [tag]: i };
  return node;
};

const prompt = (text: string) => event('UserPromptSubmit', { session_id: 's', prompt: text });

describe('deep hook output is invalid_output (spec §4.3)', () => {
  it('512 levels are accepted, 513 are not, counting the output object as level 1', () => {
    // output object (1) > hookSpecificOutput (2) > 510 more objects = 512 levels.
    const at512 = `{"hookSpecificOutput":${deepObjectText(511)}}`;
    expect(decodeHookStdout(at512)).toMatchObject({ ok: true });
    const at513 = `{"hookSpecificOutput":${deepObjectText(512)}}`;
    expect(decodeHookStdout(at513)).toEqual({
      ok: false,
      error: 'hookSpecificOutput: nested deeper than 512 levels',
    });
    expect(decodeHookStdout(`{"decision":"block","extra":${deepArrayText(600)}}`)).toEqual({
      ok: false,
      error: 'extra: nested deeper than 512 levels',
    });
  });

  it('any depth and shape: never a throw, valid exactly up to 512 levels (1,000 cases)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.constantFrom('array', 'object'), { minLength: 1, maxLength: 8 }),
        fc.constantFrom('hookSpecificOutput', 'hook_specific_output', 'reason', 'continue', 'other'),
        (levels, shapes, field) => {
          // `levels` containers under the output object, alternating shapes from the pattern.
          let open = '';
          let close = '';
          for (let i = 0; i < levels; i++) {
            const shape = shapes[i % shapes.length];
            open += shape === 'array' ? '[' : '{"k":';
            close = (shape === 'array' ? ']' : '}') + close;
          }
          const inner = `${open}1${close}`;
          const decoded = decodeHookStdout(`{"${field}":${inner}}`);
          if (levels + 1 > 512) {
            expect(decoded).toEqual({ ok: false, error: `${field}: nested deeper than 512 levels` });
          } else {
            // Within the bound, only the field's own type decides.
            const objectField = field === 'hookSpecificOutput' || field === 'hook_specific_output';
            const valid =
              field === 'continue' || field === 'other' || (objectField && shapes[0] === 'object');
            expect(decoded.ok).toBe(valid);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('an in-process hook returning a cyclic value, a BigInt or a value that throws when read: invalid_output', () => {
    const cyclic: Record<string, unknown> = { decision: 'allow' };
    cyclic['hookSpecificOutput'] = cyclic;
    expect(decodeHookOutputValue(cyclic)).toEqual({
      ok: false,
      error: 'hookSpecificOutput: nested deeper than 512 levels',
    });
    expect(decodeHookOutputValue({ hookSpecificOutput: { n: [1, 2n] } })).toEqual({
      ok: false,
      error: 'hookSpecificOutput.n.1: a BigInt, which JSON cannot carry',
    });
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(decodeHookOutputValue({ hookSpecificOutput: trap })).toEqual({
      ok: false,
      error: 'output cannot be read: trap',
    });
    const getter = Object.defineProperty({}, 'decision', {
      enumerable: true,
      get: () => {
        throw new Error('getter');
      },
    });
    expect(decodeHookOutputValue(getter)).toEqual({ ok: false, error: 'output cannot be read: getter' });
  });

  it('two function hooks each returning a 4,000-deep object: both invalid_output, the next event decided', async () => {
    const registry = defineHooks({
      UserPromptSubmit: [
        { name: 'deep-1', run: () => ({ hookSpecificOutput: deepObject(4000, 'l') }) },
        { name: 'deep-2', run: () => ({ decision: 'block', hookSpecificOutput: deepObject(4000, 'r') }) },
        { name: 'fine', run: () => ({ decision: 'allow', hookSpecificOutput: { ok: true } }) },
      ],
    });
    const scheduler = createTestScheduler();
    const lines = await lastValueFrom(
      hookPipeline(
        registry,
        testDeps(scheduler, fakeExecutor({})),
      )(of(prompt('a'), prompt('b'))).output$.pipe(
        map((line) => JSON.parse(encodeLine(line)) as Record<string, unknown>),
        toArray(),
      ),
    );
    const failed = {
      outcome: 'invalid_output',
      message: 'invalid output: hookSpecificOutput: nested deeper than 512 levels',
    };
    const decisions = lines.filter((line) => line['type'] === 'hook_decision').map(withoutTimes);
    const expected = (seq: number) => ({
      type: 'hook_decision',
      seq,
      hook_event_name: 'UserPromptSubmit' as const,
      session_id: 's',
      decision: 'allow',
      hook_specific_output: { ok: true },
      hooks: [
        { name: 'deep-1', source: 'inline', ...failed },
        { name: 'deep-2', source: 'inline', ...failed },
        { name: 'fine', source: 'inline', decision: 'allow', outcome: 'ok' },
      ],
    });
    expect(decisions).toEqual([expected(1), expected(2)]);
    expect(lines.filter((line) => line['type'] === 'stream_event')).toHaveLength(4);
  });
});

describe('deepMerge is bounded', () => {
  it('merges two 4,000-deep objects without overflowing: key by key to level 512, then the later value', () => {
    const merged = deepMerge(deepObject(4000, 'l'), deepObject(4000, 'r'));
    let node = merged as Record<string, unknown>;
    for (let level = 1; level <= 512; level++) {
      expect(node).toMatchObject({ l: level, r: level });
      node = node['x'] as Record<string, unknown>;
    }
    // Level 513 is the later argument's own object, untouched.
    expect(Object.keys(node).sort()).toEqual(['r', 'x']);
    expect(node['r']).toBe(513);
  });

  it('an explicit bound: objects at the last level merge their keys, their object values replace', () => {
    const base = { a: { b: { c: { keep: 1 } }, k: 1 } };
    const patch = { a: { b: { c: { new: 2 } }, n: 2 } };
    expect(deepMerge(base, patch, 2)).toEqual({ a: { b: { c: { new: 2 } }, k: 1, n: 2 } });
    expect(deepMerge(base, patch, 1)).toEqual({ a: { b: { c: { new: 2 } }, n: 2 } });
    expect(deepMerge(base, patch)).toEqual({ a: { b: { c: { keep: 1, new: 2 } }, k: 1, n: 2 } });
  });
});

describe('encodeLine never throws', () => {
  it('a decision whose hook_specific_output cannot be written keeps everything else', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const decision: HookDecision = {
      type: 'hook_decision',
      seq: 3,
      hook_event_name: 'PreToolUse' as const,
      session_id: 's',
      tool_use_id: 't',
      decision: 'block',
      reason: 'no',
      hook_specific_output: { deep },
      hooks: [{ name: 'guard', source: 'inline', decision: 'block', outcome: 'ok', duration_ms: 1 }],
    };
    expect(JSON.parse(encodeLine(decision))).toEqual({
      type: 'hook_decision',
      seq: 3,
      hook_event_name: 'PreToolUse' as const,
      session_id: 's',
      tool_use_id: 't',
      decision: 'block',
      reason: 'no',
      hooks: [{ name: 'guard', source: 'inline', decision: 'block', outcome: 'ok', duration_ms: 1 }],
    });
  });
});

describe('the per-event error boundary (marbles)', () => {
  const pre = (session: string, id: string) => ({
    hook_event_name: 'PreToolUse' as const,
    session_id: session,
    cwd: '/',
    timestamp: '2026-07-01T10:00:00Z',
    tool_use_id: id,
    tool_name: 'shell',
    tool_input: {},
  });
  /** An executor result that throws when the engine reads it: a broken executor port. */
  const broken = () => ({
    outcome: 'ok' as const,
    get output(): never {
      throw new Error('broken executor');
    },
  });

  it('an event whose handling throws gets one error notification and one decision; the stream goes on', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const buggy = cold('-b|', { b: broken() });
      const guard = cold('-g|', { g: { outcome: 'ok' as const, output: { decision: 'allow' as const } } });
      const registry = registryOf((name) =>
        name === 'PreToolUse'
          ? [commandHook('buggy'), commandHook('guard', { fail_closed: true }), commandHook('audit')]
          : [],
      );
      const input = hot('-x----y----|', { x: pre('s', 't1'), y: pre('s', 't2') });
      const deps = testDeps(scheduler, fakeExecutor({ buggy, guard, audit: cold('-a|') }));
      const { output$ } = hookPipeline(registry, deps)(input);
      const message = 'internal error: broken executor';
      const lines = (seq: number, id: string) => ({
        n: {
          type: 'stream_event',
          event: {
            subtype: 'hook_notification',
            hook_name: 'cosh-hooks',
            message,
            decision: 'error',
            hook_event_name: 'PreToolUse' as const,
            session_id: 's',
            tool_use_id: id,
          },
        },
        d: {
          type: 'hook_decision',
          seq,
          hook_event_name: 'PreToolUse' as const,
          session_id: 's',
          tool_use_id: id,
          decision: 'block',
          reason: `hook "guard" failed closed: ${message}`,
          hooks: [
            { name: 'buggy', source: 'config', outcome: 'exception', message },
            { name: 'guard', source: 'config', decision: 'block', outcome: 'exception', message },
            { name: 'audit', source: 'config', outcome: 'skipped' },
          ],
        },
      });
      const first = lines(1, 't1');
      const second = lines(2, 't2');
      expectObservable(output$).toBe('--(ab)-(cd)|', { a: first.n, b: first.d, c: second.n, d: second.d });
    });
  });

  it("per-session: a throw in one session leaves the other session's running hook alone", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const slow = cold('--------s|', {
        s: { outcome: 'ok' as const, output: { decision: 'allow' as const } },
      });
      const buggy = cold('-b|', { b: broken() });
      const registry = registryOf((name) =>
        name === 'PreToolUse'
          ? [commandHook('slow', { matcher: '^slow$' }), commandHook('buggy', { matcher: '^bug$' })]
          : [],
      );
      const event = (session: string, tool: string) => ({ ...pre(session, tool), tool_name: tool });
      const input = hot('-a-b-------|', { a: event('A', 'slow'), b: event('B', 'bug') });
      const deps = testDeps(scheduler, fakeExecutor({ slow, buggy }));
      const { output$ } = hookPipeline(registry, deps, { concurrency: 'per-session' })(input);
      expectObservable(
        output$.pipe(
          map((line) =>
            line.type === 'hook_decision'
              ? `D${line.seq}:${line.session_id}:${line.decision}:${line.hooks.map((h) => h.outcome).join(',')}`
              : line.type === 'stream_event'
                ? `N:${line.event.hook_name}`
                : 'E',
          ),
        ),
      ).toBe('----(nd)-a-|', {
        n: 'N:cosh-hooks',
        d: 'D2:B:none:exception',
        a: 'D1:A:allow:ok',
      });
      // Session A's hook ran to its answer (frame 1 + 8), never cut short by session B's failure.
      expectSubscriptions(slow.subscriptions).toBe('-^-------!');
    });
  });
});

describe('cosh-hooks run and fire with a hook printing a 5,000-deep array', () => {
  const deepHook = `node -e 'process.stdout.write("{\\"decision\\":\\"block\\",\\"hookSpecificOutput\\":{\\"nested\\":" + "[".repeat(5000) + "]".repeat(5000) + "}}")'`;
  const box = sandbox(
    [
      hookTable('PreToolUse', { name: 'deep', matcher: '^deep$', command: deepHook }),
      hookTable('PreToolUse', { name: 'after', command: `printf '%s' '{"decision":"allow"}'` }),
    ].join('\n'),
  );
  afterAll(() => box.remove());
  const tool = (tool_name: string, tool_use_id: string, session = 's1') => ({
    hook_event_name: 'PreToolUse' as const,
    session_id: session,
    tool_name,
    tool_use_id,
    tool_input: {},
  });
  const deepReport = {
    name: 'deep',
    source: 'config',
    outcome: 'invalid_output',
    message: 'invalid output: hookSpecificOutput: nested deeper than 512 levels',
  };
  const afterReport = { name: 'after', source: 'config', decision: 'allow', outcome: 'ok' };

  it.each([['sequential'], ['per-session']])(
    'run (%s): the event gets invalid_output, later events still get their decisions',
    async (concurrency) => {
      const input = jsonl(
        tool('deep', 't1'),
        tool('ls', 't2', 's2'),
        tool('deep', 't3'),
        'oops',
        tool('ls', 't4'),
      );
      const result = await cli(['run', '--concurrency', concurrency, ...box.flags], { input });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = jsonLines(result.stdout);
      const answers = lines.filter((line) => line['type'] !== 'stream_event').map(withoutTimes);
      const decision = (seq: number, id: string, session: string, hooks: unknown[]) => ({
        type: 'hook_decision',
        seq,
        hook_event_name: 'PreToolUse' as const,
        session_id: session,
        tool_use_id: id,
        decision: 'allow',
        hooks,
      });
      const expected = [
        decision(1, 't1', 's1', [deepReport, afterReport]),
        decision(2, 't2', 's2', [afterReport]),
        decision(3, 't3', 's1', [deepReport, afterReport]),
        { type: 'hook_error', line: 4, message: expect.stringContaining('not JSON') as unknown },
        decision(4, 't4', 's1', [afterReport]),
      ];
      if (concurrency === 'sequential') expect(answers).toEqual(expected);
      else {
        expect(answers).toEqual(expect.arrayContaining(expected));
        // In order within a session: s1's answers by input line.
        const s1 = answers.filter((line) => line['session_id'] === 's1').map((line) => line['tool_use_id']);
        expect(s1).toEqual(['t1', 't3', 't4']);
      }
      expect(answers).toHaveLength(5);
    },
  );

  it('fire: prints the invalid_output and exits 0, as text and as JSON', async () => {
    const text = await cli(['fire', 'PreToolUse', '--tool', 'deep', ...box.flags]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('invalid output: hookSpecificOutput: nested deeper than 512 levels');
    expect(text.stdout).toMatch(/decision ALLOW/);
    const json = await cli(['fire', 'PreToolUse', '--tool', 'deep', '--json', ...box.flags]);
    expect(json.code).toBe(0);
    const fired = JSON.parse(json.stdout) as { decision: Record<string, unknown> };
    expect(withoutTimes(fired.decision)['hooks']).toEqual([deepReport, afterReport]);
  });
});

describe('an in-process answer is read once, as plain JSON, with bounds on depth and size', () => {
  const run = async (...runs: (() => unknown)[]) => {
    const registry = defineHooks({
      UserPromptSubmit: runs.map((hook, index) => ({ name: `h${index + 1}`, run: hook as HookFunction })),
    });
    const lines = await lastValueFrom(
      hookPipeline(
        registry,
        testDeps(createTestScheduler(), fakeExecutor({})),
      )(of(prompt('a'))).output$.pipe(toArray()),
    );
    return lines.find((line): line is HookDecision => line.type === 'hook_decision');
  };

  it(
    'toJSON that throws or returns 100,000 levels, a sparse array of length 2^32 - 1, a DAG of 2^60 paths: invalid_output at once',
    { timeout: 10_000 },
    async () => {
      const sparse: unknown[] = [];
      sparse.length = 2 ** 32 - 1;
      let dag: Record<string, unknown> = { leaf: true };
      for (let i = 0; i < 60; i++) dag = { left: dag, right: dag };
      const decision = await run(
        () => ({
          decision: 'block',
          hookSpecificOutput: {
            a: {
              toJSON: () => {
                throw new Error('toJSON refused');
              },
            },
          },
        }),
        () => ({
          decision: 'block',
          hookSpecificOutput: {
            a: {
              toJSON: () => {
                let deep: unknown[] = [];
                for (let i = 0; i < 100_000; i++) deep = [deep];
                return deep;
              },
            },
          },
        }),
        () => ({ decision: 'block', hookSpecificOutput: { sparse } }),
        () => ({ decision: 'block', hookSpecificOutput: { dag } }),
        () => ({ decision: 'allow' }),
      );
      expect(decision?.decision).toBe('allow');
      expect(decision?.hooks.map((hook) => [hook.outcome, hook.message])).toStrictEqual([
        ['invalid_output', 'invalid output: output cannot be read: toJSON refused'],
        ['invalid_output', 'invalid output: hookSpecificOutput: nested deeper than 512 levels'],
        ['invalid_output', 'invalid output: hookSpecificOutput: more than 1,000,000 values'],
        ['invalid_output', 'invalid output: hookSpecificOutput: more than 1,000,000 values'],
        ['ok', undefined],
      ]);
    },
  );

  it('getters, toJSON, Dates, Maps, NaN and __proto__ keys become data: the decision can be read and written again', async () => {
    let reads = 0;
    const decision = await run(() => ({
      decision: 'allow',
      hookSpecificOutput: {
        when: new Date(Date.UTC(2026, 0, 2)),
        n: Number.NaN,
        map: new Map([['k', 1]]),
        via: { toJSON: () => ({ x: 1 }) },
        gone: () => 1,
        list: [undefined, () => 1, 2],
        ['__proto__']: { polluted: true },
        get once() {
          reads += 1;
          if (reads > 1) throw new Error('read twice');
          return 'r';
        },
      },
    }));
    const expected = {
      when: '2026-01-02T00:00:00.000Z',
      n: null,
      map: {},
      via: { x: 1 },
      list: [null, null, 2],
      once: 'r',
    };
    const output = decision?.hook_specific_output as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(output)) as unknown).toEqual({
      ...expected,
      ['__proto__']: { polluted: true },
    });
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(JSON.parse(encodeLine(decision as HookDecision))).toMatchObject({
      hook_specific_output: expected,
    });
    expect(reads).toBe(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('plainJsonCopy is JSON.parse(JSON.stringify(value)) within its bounds', () => {
  it('for any value fast-check makes (boxed values, Maps, Sets, Dates, null prototypes, sparse arrays; 3,000 cases)', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withNullPrototype: true,
          withSparseArray: true,
          withTypedArray: true,
          withObjectString: true,
        }),
        (value) => {
          const text = JSON.stringify(value) as string | undefined;
          const copied = plainJsonCopy(value);
          expect(copied.ok).toBe(true);
          if (copied.ok)
            expect(copied.value).toStrictEqual(text === undefined ? undefined : JSON.parse(text));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
