import { asyncScheduler, config, map, of } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutputLine } from '../../src/output/lines.js';
import type { EventInput } from '../../src/events/codecs.js';
import { createDispatcher, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks, registryOf } from '../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  event,
  fakeExecutor,
  results,
  testDeps,
} from '../../src/testing/index.js';

/**
 * The library never throws into its host (spec §7): hostile event objects get their error as a
 * value (`dispatch` resolves with `error`), an engine error never reaches RxJS's unhandled-error hook or the process,
 * and an error of `input$` waits for the decisions owed to events admitted before it.
 */

const unhandled: unknown[] = [];
const onUncaught = (error: unknown) => unhandled.push(error);
let previousHook: typeof config.onUnhandledError;
beforeEach(() => {
  unhandled.length = 0;
  previousHook = config.onUnhandledError;
  config.onUnhandledError = (error: unknown) => unhandled.push(error);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterEach(async () => {
  // Errors RxJS reports without a hook are thrown from a timeout: give them the chance to show.
  await new Promise((resolve) => setTimeout(resolve, 20));
  config.onUnhandledError = previousHook;
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  expect(unhandled).toEqual([]);
});

const prompt = (text: string) => event('UserPromptSubmit', { session_id: 's', prompt: text });

/** Settles within `ms` or says it did not: a lost answer fails the test instead of hanging it. */
const within = <T>(promise: Promise<T>, ms = 2000): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  ]);

describe('dispatch() of hostile objects', () => {
  const registry = defineHooks({ UserPromptSubmit: [{ name: 'ok', run: () => ({ decision: 'allow' }) }] });
  const hostile: ReadonlyArray<readonly [string, () => unknown, string]> = [
    [
      'a property getter that throws (never called: a getter is not data)',
      () =>
        Object.defineProperty({ hook_event_name: 'UserPromptSubmit' as const, session_id: 's' }, 'prompt', {
          enumerable: true,
          get: () => {
            throw new Error('getter boom');
          },
        }),
      'prompt: a getter or setter, not a data value: an event must be plain data',
    ],
    [
      'a Proxy that throws on every operation',
      () =>
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('proxy boom');
            },
            has: () => {
              throw new Error('proxy boom');
            },
            ownKeys: () => {
              throw new Error('proxy boom');
            },
            getPrototypeOf: () => {
              throw new Error('proxy boom');
            },
          },
        ),
      'event: cannot be read: proxy boom',
    ],
    [
      'a cyclic object',
      () => {
        const cyclic: Record<string, unknown> = { ...prompt('loop') };
        cyclic['self'] = cyclic;
        return cyclic;
      },
      'self: a cycle (refers to an object that contains it), which JSON cannot carry',
    ],
    [
      'a BigInt',
      () => ({
        hook_event_name: 'PreToolUse' as const,
        session_id: 's',
        tool_name: 'x',
        tool_input: { sizes: [1, 2n] },
      }),
      'tool_input.sizes.1: a BigInt, which JSON cannot carry',
    ],
    [
      'a thrown value that cannot be printed',
      () =>
        new Proxy(prompt('hi'), {
          ownKeys: () => {
            throw Object.create(null);
          },
        }),
      'event: cannot be read: an unprintable value was thrown',
    ],
  ];

  it.each(hostile)(
    '%s: an error value naming the problem, and the next call answered',
    async (name, make, message) => {
      const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
      const bad = within(dispatcher.dispatch(make() as EventInput));
      const good = within(dispatcher.dispatch(prompt('hi')));
      await expect(bad).resolves.toEqual({
        // The ids the object has as plain data (none from a Proxy that throws on every read).
        error: {
          type: 'hook_error',
          index: 1,
          ...(name.startsWith('a Proxy') ? {} : { session_id: 's' }),
          message,
        },
        notifications: [],
      });
      await expect(good).resolves.toMatchObject({ decision: { seq: 1, decision: 'allow' } });
      dispatcher.close();
    },
  );

  it('an event whose handling throws inside the engine resolves with its internal-failure decision', async () => {
    const throwing = registryOf((name) => (name === 'UserPromptSubmit' ? [commandHook('buggy')] : []));
    const broken = {
      outcome: 'ok' as const,
      get output(): never {
        throw new Error('broken executor');
      },
    };
    const executor = fakeExecutor({
      buggy: (event) =>
        event.hook_event_name === 'UserPromptSubmit' && event.prompt === 'bad'
          ? of(broken)
          : of(results.allow()),
    });
    const dispatcher = createDispatcher(throwing, testDeps(asyncScheduler, executor));
    const bad = await within(dispatcher.dispatch(prompt('bad')));
    expect(bad.decision).toEqual({
      type: 'hook_decision',
      seq: 1,
      hook_event_name: 'UserPromptSubmit' as const,
      session_id: 's',
      decision: 'none',
      hooks: [
        { name: 'buggy', source: 'config', outcome: 'exception', message: 'internal error: broken executor' },
      ],
    });
    expect(bad.notifications.map((n) => [n.event.hook_name, n.event.message])).toEqual([
      ['cosh-hooks', 'internal error: broken executor'],
    ]);
    await expect(within(dispatcher.dispatch(prompt('fine')))).resolves.toMatchObject({
      decision: { seq: 2, decision: 'allow' },
    });
    dispatcher.close();
  });
});

describe('in-process hooks that misbehave in odd ways', () => {
  it('a hook rejecting with a value that cannot be printed: only that hook fails, its event gets one answer', async () => {
    const registry = defineHooks({
      UserPromptSubmit: [
        {
          name: 'odd',
          run: (event) =>
            'prompt' in event && event.prompt === 'odd' ? Promise.reject(Object.create(null)) : undefined,
        },
        { name: 'ok', run: () => ({ decision: 'allow' }) },
      ],
    });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, fakeExecutor({})));
    const odd = await within(dispatcher.dispatch(prompt('odd')));
    // The failure is the odd hook's own (the executor port never errors): the next hook runs.
    expect(odd.decision?.seq).toBe(1);
    expect(odd.decision?.decision).toBe('allow');
    expect(odd.decision?.hooks.map((hook) => [hook.name, hook.outcome, hook.message])).toEqual([
      ['odd', 'exception', 'threw: an unprintable value was thrown'],
      ['ok', 'ok', undefined],
    ]);
    expect(odd.notifications.map((n) => [n.event.hook_name, n.event.message])).toEqual([
      ['odd', 'threw: an unprintable value was thrown'],
    ]);
    await expect(within(dispatcher.dispatch(prompt('fine')))).resolves.toMatchObject({
      decision: { seq: 2, decision: 'allow' },
    });
    dispatcher.close();
  });
});

describe('an error of input$ comes after the decisions owed (marbles)', () => {
  const event = (session: string, id: string) => ({
    hook_event_name: 'PreToolUse' as const,
    session_id: session,
    cwd: '/',
    timestamp: '2026-07-01T10:00:00Z',
    tool_use_id: id,
    tool_name: 'shell',
    tool_input: {},
  });
  const brief = (line: OutputLine) =>
    line.type === 'hook_decision' ? `D${line.seq}:${line.session_id}:${line.decision}` : line.type;

  it('sequential: both admitted events are decided, then the error is passed on', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('-----g|', { g: results.allow() });
      const registry = registryOf((name) => (name === 'PreToolUse' ? [commandHook('guard')] : []));
      const input = hot('-a-b-#', { a: event('s', 't1'), b: event('s', 't2') }, new Error('host broke'));
      const { output$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({ guard })))(input);
      // a decided at 1+5; b starts then and is decided at 6+5; the error follows at once.
      expectObservable(output$.pipe(map(brief))).toBe(
        '------a----(b#)',
        { a: 'D1:s:allow', b: 'D2:s:allow' },
        new Error('host broke'),
      );
      expectSubscriptions(guard.subscriptions).toBe(['-^----!', '------^----!']);
    });
  });

  it('per-session: every running session finishes, then the error is passed on', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const guard = cold('-----g|', { g: results.allow() });
      const registry = registryOf((name) => (name === 'PreToolUse' ? [commandHook('guard')] : []));
      const input = hot('-a-b-#', { a: event('A', 't1'), b: event('B', 't2') }, new Error('host broke'));
      const { output$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({ guard })), {
        concurrency: 'per-session',
      })(input);
      expectObservable(output$.pipe(map(brief))).toBe(
        '------a-(b#)',
        { a: 'D1:A:allow', b: 'D2:B:allow' },
        new Error('host broke'),
      );
    });
  });

  it('an error before any event is passed on at once', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const { output$ } = hookPipeline(
        registryOf(() => []),
        testDeps(scheduler, fakeExecutor({})),
      )(hot('--#', {}, new Error('early')));
      expectObservable(output$).toBe('--#', {}, new Error('early'));
    });
  });
});
