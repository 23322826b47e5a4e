import { asyncScheduler, map, Observable, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../../src/events/codecs.js';
import { createDispatcher, SessionClosedError } from '../../../src/pipeline/index.js';
import { defineHooks } from '../../../src/registry/index.js';
import { event, fakeExecutor, results, testDeps } from '../../../src/testing/index.js';

const prompt = (text: string) => event('UserPromptSubmit', { session_id: 's', prompt: text });

describe('createDispatcher', () => {
  const registry = defineHooks({
    UserPromptSubmit: [
      {
        name: 'words',
        run: async (event) =>
          'prompt' in event && event.prompt.includes('secret')
            ? { decision: 'block', reason: 'leak' }
            : { decision: 'allow', systemMessage: 'ok' },
      },
      { name: 'slow', command: 'fake', timeout: 50 },
    ],
  });
  const executor = fakeExecutor({
    slow: (event) =>
      timer('prompt' in event && event.prompt === 'slow' ? 200 : 5).pipe(map(() => results.none())),
  });

  it('resolves each call with its decision and notifications, in call order', async () => {
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, executor));
    const [a, b, c] = await Promise.all([
      dispatcher.dispatch(prompt('hello')),
      dispatcher.dispatch(prompt('my secret')),
      dispatcher.dispatch(prompt('slow')),
    ]);
    expect(a!.decision).toMatchObject({ seq: 1, decision: 'allow', systemMessage: 'ok' });
    expect(a!.notifications.map((n) => n.event.message)).toEqual(['ok']);
    expect(b!.decision).toMatchObject({ seq: 2, decision: 'block', reason: 'leak' });
    expect(b!.decision?.hooks.map((h) => h.outcome)).toEqual(['ok', 'skipped']);
    expect(c!.decision).toMatchObject({ seq: 3, decision: 'allow' });
    expect(c!.decision?.hooks[1]).toMatchObject({
      name: 'slow',
      outcome: 'timeout',
      message: 'timed out after 50 ms',
    });
    dispatcher.close();
  });

  it('answers an invalid event with its error as a value, without disturbing the next call', async () => {
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, executor));
    // A host may hand over any value (the engine checks it); the type says what a valid one is.
    const bad = dispatcher.dispatch({ hook_event_name: 'UserPromptSubmit', session_id: 's' } as EventInput);
    const good = dispatcher.dispatch(prompt('hi'));
    await expect(bad).resolves.toEqual({
      error: {
        type: 'hook_error',
        index: 1,
        session_id: 's',
        message: 'prompt: missing required field (expected a string)',
      },
      notifications: [],
    });
    await expect(good).resolves.toMatchObject({ decision: { seq: 1, decision: 'allow' } });
    dispatcher.close();
  });

  it('close() cancels running hooks and rejects pending calls', async () => {
    let cancelled = false;
    const hanging = fakeExecutor({
      slow: () =>
        new Observable<never>(() => () => {
          cancelled = true;
        }),
    });
    const dispatcher = createDispatcher(registry, testDeps(asyncScheduler, hanging));
    const pending = dispatcher.dispatch(prompt('x'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    dispatcher.close();
    await expect(pending).rejects.toThrow(SessionClosedError);
    await expect(pending).rejects.toThrow('dispatcher closed before the decision');
    expect(cancelled).toBe(true);
    await expect(dispatcher.dispatch(prompt('y'))).rejects.toThrow(SessionClosedError);
  });
});
