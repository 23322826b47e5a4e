// Type tests of what a host sends: checked by `tsc -p tsconfig.json` (npm run lint), and run by
// vitest. A line marked @ts-expect-error that starts to compile fails tsc.
import { asyncScheduler, lastValueFrom, of, toArray } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createDispatcher,
  createSession,
  defineHooks,
  hookPipeline,
  JsonLine,
  type EventInput,
  type HookEvent,
} from 'cosh-hooks';
import { event, fakeExecutor, testDeps } from 'cosh-hooks/testing';

const registry = defineHooks({ PreToolUse: [{ name: 'allow', run: () => ({ decision: 'allow' }) }] });
const deps = testDeps(asyncScheduler, fakeExecutor({}));

describe('a host types the events it sends', () => {
  it('EventInput is a union on hook_event_name; cwd, timestamp and optional fields may be left out', async () => {
    // What a host sends: no cwd, no timestamp (the engine fills them).
    const pre: EventInput = {
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      tool_name: 'shell',
      tool_input: { command: 'ls' },
    };
    const stop: EventInput<'Stop'> = { hook_event_name: 'Stop', session_id: 's1' };
    // @ts-expect-error: a PreToolUse without tool_name is not an event
    const missing: EventInput = { hook_event_name: 'PreToolUse', session_id: 's1', tool_input: {} };
    // @ts-expect-error: no such event
    const unknownName: EventInput = { hook_event_name: 'PreToolUse2', session_id: 's1' };
    const wrongField: EventInput<'PreToolUse'> = {
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_name: 'x',
      // @ts-expect-error: tool_input is an object
      tool_input: 'ls',
    };
    // What hooks receive has cwd and timestamp: a host's event without them is not a HookEvent.
    // @ts-expect-error: cwd and timestamp are missing
    const asHookEvent: HookEvent = pre;
    void [missing, unknownName, wrongField, asHookEvent];

    // The union narrows on hook_event_name.
    const toolOf = (input: EventInput): string | undefined =>
      input.hook_event_name === 'PreToolUse' ? input.tool_name : undefined;
    expect(toolOf(pre)).toBe('shell');
    expect(toolOf(stop)).toBeUndefined();

    // A hook event is an event a host may send (it only has more filled in).
    expectTypeOf<HookEvent>().toMatchTypeOf<EventInput>();

    // The three front ends take it as it is, and a JsonLine of raw text.
    const session = createSession(registry, deps);
    const lines = await lastValueFrom(session.decide(pre).pipe(toArray()));
    session.close();
    expect(lines.at(-1)).toMatchObject({ type: 'hook_decision', decision: 'allow', session_id: 's1' });

    const dispatcher = createDispatcher(registry, deps);
    const answer = await dispatcher.dispatch(new JsonLine(1, JSON.stringify(pre)));
    dispatcher.close();
    expect(answer.error).toBeUndefined();
    expect(answer.decision?.decision).toBe('allow');

    const out = await lastValueFrom(hookPipeline(registry, deps)(of(pre, stop)).output$.pipe(toArray()));
    expect(out.map((line) => line.type)).toEqual(['hook_decision', 'hook_decision']);
  });

  it('a value that only claims the type is still checked at run time: its error is a value', async () => {
    const dispatcher = createDispatcher(registry, deps);
    const forged = { hook_event_name: 'PreToolUse', session_id: 's1' } as EventInput;
    const answer = await dispatcher.dispatch(forged);
    dispatcher.close();
    expect(answer).toEqual({
      error: {
        type: 'hook_error',
        index: 1,
        session_id: 's1',
        message: 'tool_name: missing required field (expected a string)',
      },
      notifications: [],
    });
  });

  it('event(name, fields) from the testing kit builds a typed event with a default session_id', () => {
    const pre = event('PreToolUse', { tool_name: 'shell', tool_input: { command: 'ls' } });
    expectTypeOf(pre).toEqualTypeOf<EventInput<'PreToolUse'>>();
    expect(pre).toEqual({
      hook_event_name: 'PreToolUse',
      session_id: 'test-session',
      tool_name: 'shell',
      tool_input: { command: 'ls' },
    });
    expect(event('Stop')).toEqual({ hook_event_name: 'Stop', session_id: 'test-session' });
    expect(event('UserPromptSubmit', { session_id: 'mine', prompt: 'hi' }).session_id).toBe('mine');
    // @ts-expect-error: a PreToolUse needs tool_name and tool_input
    void event('PreToolUse', { tool_input: {} });
    // @ts-expect-error: a PreToolUse needs its fields
    void event('PreToolUse');
    // @ts-expect-error: prompt is text
    void event('UserPromptSubmit', { prompt: 42 });
  });
});
