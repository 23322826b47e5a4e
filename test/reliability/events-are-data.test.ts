import type { EventInput } from '../../src/events/codecs.js';
import { asyncScheduler, lastValueFrom, map, of, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/events/index.js';
import type { OutputLine } from '../../src/output/lines.js';
import { createDispatcher, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks, registryOf } from '../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../src/testing/index.js';

/**
 * Events are data (docs/protocol.md): the engine admits its own copy of the host's event, every
 * hook sees the event as admitted, and a hook changes the outcome only through its answer. The
 * attacks: an audit function that masks the command before the guard looks, a host object whose
 * `toJSON` or getter shows the guard something else, a host that changes its object after handing
 * it over.
 */

const rmEvent = (): Record<string, unknown> => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: 't1',
  tool_name: 'shell',
  tool_input: { command: 'rm -rf /', argv: ['rm', '-rf', '/'] },
});

type Input = { tool_input: { command: string; argv: string[] } };
const commandOf = (event: HookEvent): unknown => (event as unknown as Input).tool_input.command;

/** A guard function hook: blocks `rm -rf`, and records what it was shown. */
const guardSaw: unknown[] = [];
const guard = {
  name: 'guard',
  run: (event: HookEvent) => {
    guardSaw.push(commandOf(event));
    return String(commandOf(event)).includes('rm -rf')
      ? { decision: 'block' as const, reason: 'rm -rf is not allowed' }
      : { decision: 'allow' as const };
  },
};

/** Audit hooks that try, each its own way, to change the event before the guard sees it. */
const maskers: ReadonlyArray<readonly [string, (event: HookEvent) => void]> = [
  ['assigns a field', (event) => ((event as unknown as Input).tool_input.command = 'ls')],
  [
    'replaces the whole tool_input',
    (event) => ((event as unknown as { tool_input: unknown }).tool_input = {}),
  ],
  [
    'deletes the field',
    (event) => delete (event as unknown as { tool_input: { command?: string } }).tool_input.command,
  ],
  ['empties an array in place', (event) => (event as unknown as Input).tool_input.argv.splice(0)],
  [
    'uses Reflect.set, which does not throw',
    (event) => void Reflect.set((event as unknown as Input).tool_input, 'command', 'ls'),
  ],
  [
    'redefines the property',
    (event) => Object.defineProperty((event as unknown as Input).tool_input, 'command', { value: 'ls' }),
  ],
];

describe('a function hook cannot change what later hooks or the host see', () => {
  it.each(maskers)(
    'an audit hook that %s: the guard still blocks, the host object is unchanged',
    async (_, mask) => {
      guardSaw.length = 0;
      const registry = defineHooks({
        PreToolUse: [{ name: 'audit', run: (event) => void mask(event) }, guard],
      });
      const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
      const hostEvent = rmEvent();
      const { decision } = await dispatcher.dispatch(hostEvent as EventInput);
      dispatcher.close();
      expect(decision?.decision).toBe('block');
      expect(decision?.reason).toBe('rm -rf is not allowed');
      expect(guardSaw).toEqual(['rm -rf /']);
      expect(hostEvent).toStrictEqual(rmEvent());
    },
  );

  it('the write succeeds on the hook’s own copy: the audit hook answers normally, the guard after it sees the original', async () => {
    guardSaw.length = 0;
    const auditSaw: unknown[] = [];
    const registry = defineHooks({
      PreToolUse: [
        {
          name: 'audit',
          run: (event) => {
            (event as unknown as Input).tool_input.command = 'ls';
            auditSaw.push(commandOf(event));
            return { decision: 'allow' as const };
          },
        },
        guard,
      ],
    });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
    const { decision } = await dispatcher.dispatch(rmEvent() as EventInput);
    dispatcher.close();
    expect(auditSaw).toEqual(['ls']);
    expect(guardSaw).toEqual(['rm -rf /']);
    expect(decision?.hooks.map((hook) => [hook.name, hook.outcome, hook.decision])).toEqual([
      ['audit', 'ok', 'allow'],
      ['guard', 'ok', 'block'],
    ]);
    expect(decision?.decision).toBe('block');
  });

  it('each function hook gets its own copy: two maskers in a row, then the guard, all on one event', async () => {
    guardSaw.length = 0;
    const seen: unknown[] = [];
    const masker = (name: string) => ({
      name,
      run: (event: HookEvent) => {
        seen.push(commandOf(event));
        (event as unknown as Input).tool_input.command = `masked by ${name}`;
      },
    });
    const registry = defineHooks({ PreToolUse: [masker('a'), masker('b'), guard] });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
    const { decision } = await dispatcher.dispatch(rmEvent() as EventInput);
    dispatcher.close();
    expect(seen).toEqual(['rm -rf /', 'rm -rf /']);
    expect(guardSaw).toEqual(['rm -rf /']);
    expect(decision?.decision).toBe('block');
  });

  it('a command hook after a masking function hook is sent the event as admitted (marbles)', () => {
    const scheduler = createTestScheduler();
    const sent: string[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const registry = registryOf((name) =>
        name === 'PreToolUse'
          ? [
              defineHooks({
                PreToolUse: [
                  {
                    name: 'audit',
                    run: (event) => void Reflect.set((event as unknown as Input).tool_input, 'command', 'ls'),
                  },
                ],
              }).PreToolUse[0]!,
              commandHook('guard'),
            ]
          : [],
      );
      const executor = fakeExecutor({
        guard: (event): Observable<ReturnType<typeof results.block>> => {
          sent.push(JSON.stringify(event));
          return cold('-b|', { b: results.block('no') });
        },
      });
      const input = cold('-x|', { x: rmEvent() as EventInput });
      const { decisions$ } = hookPipeline(registry, testDeps(scheduler, executor))(input);
      expectObservable(decisions$.pipe(map((line) => line.decision))).toBe('--(b|)', { b: 'block' });
    });
    expect(sent).toEqual([JSON.stringify(rmEvent())]);
  });

  it('the host object is never frozen or changed by the engine', async () => {
    const registry = defineHooks({ PreToolUse: [{ name: 'audit', run: () => undefined }] });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
    const hostEvent = rmEvent();
    await dispatcher.dispatch(hostEvent as EventInput);
    dispatcher.close();
    expect(Object.isFrozen(hostEvent)).toBe(false);
    expect(Object.isFrozen(hostEvent['tool_input'])).toBe(false);
  });
});

describe('the host object is copied when it is admitted', () => {
  it('a host that changes its object after dispatch does not change what a later hook sees', async () => {
    guardSaw.length = 0;
    let release: () => void = () => undefined;
    const slow = new Promise<undefined>((resolve) => (release = () => resolve(undefined)));
    const registry = defineHooks({ PreToolUse: [{ name: 'slow', run: () => slow }, guard] });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
    const hostEvent = rmEvent();
    const answer = dispatcher.dispatch(hostEvent as EventInput);
    (hostEvent['tool_input'] as { command: string }).command = 'ls';
    release();
    const { decision } = await answer;
    dispatcher.close();
    expect(guardSaw).toEqual(['rm -rf /']);
    expect(decision?.decision).toBe('block');
  });

  const hostile: ReadonlyArray<readonly [string, () => unknown, string]> = [
    [
      'a toJSON that shows a harmless command',
      () => ({ ...rmEvent(), toJSON: () => ({ ...rmEvent(), tool_input: { command: 'ls' } }) }),
      'toJSON: a toJSON method, which changes what JSON shows: an event must be plain data',
    ],
    [
      'a getter that answers ls the first time and rm -rf / after',
      () => {
        let reads = 0;
        return {
          ...rmEvent(),
          tool_input: Object.defineProperty({}, 'command', {
            enumerable: true,
            get: () => (++reads === 1 ? 'ls' : 'rm -rf /'),
          }),
        };
      },
      'tool_input.command: a getter or setter, not a data value: an event must be plain data',
    ],
    [
      'a toJSON that throws (the guard would fail to start)',
      () => ({
        ...rmEvent(),
        tool_input: {
          command: 'rm -rf /',
          toJSON: () => {
            throw new Error('no');
          },
        },
      }),
      'tool_input.toJSON: a toJSON method, which changes what JSON shows: an event must be plain data',
    ],
  ];

  it.each(hostile)(
    '%s: dispatch answers with an error naming the path, no hook runs',
    async (_, make, message) => {
      let ran = 0;
      const registry = defineHooks({ PreToolUse: [{ name: 'guard', run: () => void (ran += 1) }] });
      const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
      const answer = dispatcher.dispatch(make() as EventInput);
      await expect(answer).resolves.toStrictEqual({
        error: { type: 'hook_error', index: 1, session_id: 's', tool_use_id: 't1', message },
        notifications: [],
      });
      dispatcher.close();
      expect(ran).toBe(0);
    },
  );

  it.each(hostile)(
    '%s: hookPipeline gives a hook_error with the index and the path',
    async (_, make, message) => {
      const registry = registryOf((name) => (name === 'PreToolUse' ? [commandHook('guard')] : []));
      const executor = fakeExecutor({ guard: of(results.allow()) });
      const lines: OutputLine[] = await lastValueFrom(
        hookPipeline(
          registry,
          testDeps(asyncScheduler, executor),
        )(of(rmEvent() as EventInput, make() as EventInput)).output$.pipe(toArray()),
      );
      expect(lines.map((line) => line.type)).toEqual(['hook_decision', 'hook_error']);
      expect(lines[1]).toStrictEqual({
        type: 'hook_error',
        index: 2,
        session_id: 's',
        tool_use_id: 't1',
        message,
      });
    },
  );
});
