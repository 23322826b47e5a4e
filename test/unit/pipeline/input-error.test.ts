import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EventInput } from '../../../src/events/codecs.js';
import { JsonLine } from '../../../src/events/index.js';
import { hookPipeline } from '../../../src/pipeline/index.js';
import { defineHooks } from '../../../src/registry/index.js';
import { createTestScheduler, fakeExecutor, testDeps } from '../../../src/testing/index.js';

/** A tool event no hook matches: its decision needs no hook and comes out in the frame it arrives. */
const unmatched = {
  hook_event_name: 'PreToolUse' as const,
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: 't1',
  tool_name: 'read_file',
  tool_input: {},
};
const registry = defineHooks({ PreToolUse: [{ name: 'shell-only', command: 'x', matcher: '^shell$' }] });

const decision = {
  type: 'hook_decision',
  seq: 1,
  hook_event_name: 'PreToolUse' as const,
  session_id: 's',
  tool_use_id: 't1',
  decision: 'none',
  hooks: [],
};
const hookError = { type: 'hook_error', line: 2, message: 'not JSON: Unexpected end of JSON input' };
const broken = new Error('stdin failed');

describe('hookPipeline: an error of input$', () => {
  it('is passed on after the lines owed before it, on output$ and on each filtered stream', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const input = hot('--a--x--#', { a: unmatched, x: new JsonLine(2, '') }, broken);
      const inputSubs = '^-------!';
      const streams = hookPipeline(registry, testDeps(scheduler, fakeExecutor({})))(input);
      expectObservable(streams.output$).toBe('--d--e--#', { d: decision, e: hookError }, broken);
      expectObservable(streams.decisions$).toBe('--d-----#', { d: decision }, broken);
      expectObservable(streams.errors$).toBe('-----e--#', { e: hookError }, broken);
      expectObservable(streams.notifications$).toBe('--------#', undefined, broken);
      // One run of the engine for all four streams: input$ is subscribed once.
      expectSubscriptions(input.subscriptions).toBe(inputSubs);
    });
  });

  it('an error as the first thing input$ does is passed on at once', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const input = cold<EventInput>('#', undefined, broken);
      const { output$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({})))(input);
      expectObservable(output$).toBe('#', undefined, broken);
    });
  });
});

describe('hookPipeline: a hook_error quotes no secret (docs/protocol.md)', () => {
  it('a wrong-typed field holding a token: the message names it, redacted', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const input = cold('-a|', {
        a: { ...unmatched, tool_input: 'sk-abcdefghijklmnop' } as unknown as EventInput,
      });
      const { errors$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({})))(input);
      expectObservable(errors$).toBe('-e|', {
        e: {
          type: 'hook_error',
          index: 1,
          session_id: 's',
          tool_use_id: 't1',
          message: 'tool_input: expected an object, got "<redacted>"',
        },
      });
    });
  });
});

describe('hookPipeline: a hook_error carries the ids the input had, read without running its code', () => {
  it('string ids as own data properties; a getter, a non-string or a throwing Proxy gives none', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      let getterRan = false;
      const withGetter = {
        hook_event_name: 'Stop',
        get session_id() {
          getterRan = true;
          return 'from-getter';
        },
        tool_use_id: 't2',
      };
      const throwing = new Proxy(
        {},
        {
          getOwnPropertyDescriptor: () => {
            throw new Error('trap');
          },
        },
      );
      const input = cold('-abcd|', {
        a: { hook_event_name: 'Stop', session_id: 's1', tool_use_id: 't1', stop_hook_active: 'no' },
        b: withGetter,
        c: throwing,
        d: { hook_event_name: 'Stop', session_id: 5 },
      } as unknown as Record<string, EventInput>);
      const { errors$ } = hookPipeline(registry, testDeps(scheduler, fakeExecutor({})))(input);
      const ids = errors$.pipe(
        map(({ session_id, tool_use_id }) => ({
          ...(session_id !== undefined && { session_id }),
          ...(tool_use_id !== undefined && { tool_use_id }),
        })),
      );
      expectObservable(ids).toBe('-abcd|', {
        a: { session_id: 's1', tool_use_id: 't1' },
        b: { tool_use_id: 't2' },
        c: {},
        d: {},
      });
      scheduler.flush();
      expect(getterRan).toBe(false);
    });
  });
});
