import { map, of, type Observable, type OperatorFunction } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { admitEvents, matchHooks, parseLines } from '../../../operators/index.js';
import type { Admitted, AdmittedEvent, RejectedInput } from '../../../operators/admitEvents.js';
import type { Job } from '../../../operators/matchHooks.js';
import { JsonLine, type HookEvent } from '../../../src/events/index.js';
import { defineHooks, type Registry } from '../../../src/registry/index.js';
import { createTestScheduler } from '../../../src/testing/index.js';

const tool = (name: string): HookEvent => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: name,
  tool_input: {},
});
const stop: HookEvent = {
  hook_event_name: 'Stop',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
};

// Matchers as a host writes them (strings), so the spec holds whatever `Hook.matcher` compiles to.
const registry = defineHooks({
  PreToolUse: [
    { name: 'shell-only', command: 'x', matcher: '^(run_shell_command|shell)$' },
    { name: 'every-tool', command: 'x', matcher: '*' },
    { name: 'off', command: 'x', enabled: false },
    { name: 'no-matcher', run: () => undefined },
  ],
  // Not a tool event: the matcher does not apply (spec §4.1), both hooks run.
  Stop: [
    { name: 'stop-with-matcher', command: 'x', matcher: '^never$' },
    { name: 'stop', command: 'x' },
  ],
});
const [shellOnly, everyTool, , noMatcher] = registry.PreToolUse;
const [stopWithMatcher, stopHook] = registry.Stop;

const admitted = (seq: number, event: HookEvent): AdmittedEvent => ({ kind: 'event', seq, event });
const rejected: RejectedInput = { kind: 'rejected', index: 2, line: 7, message: 'not JSON' };

const input = {
  a: admitted(1, tool('shell')),
  x: rejected,
  b: admitted(2, tool('read_file')),
  s: admitted(3, stop),
};
const jobs = {
  A: { ...input.a, chain: [shellOnly, everyTool, noMatcher] },
  x: rejected,
  B: { ...input.b, chain: [everyTool, noMatcher] },
  S: { ...input.s, chain: [stopWithMatcher, stopHook] },
};

describe('matchHooks', () => {
  it('attaches the enabled hooks in chain order, matchers on tool events only, in the same frame', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--x--b--s--|', input);
      const e1subs = '  ^-------------!';
      const expected = '--A--x--B--S--|';
      expectObservable(e1.pipe(matchHooks(registry))).toBe(expected, jobs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('passes rejected input through as the very same value', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const out = cold('x|', input).pipe(
        matchHooks(registry),
        map((job) => job === rejected),
      );
      expectObservable(out).toBe('t|', { t: true });
    });
  });

  it('an event whose name has no hooks gets an empty chain', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const start = admitted(1, { ...stop, hook_event_name: 'SessionStart' } as HookEvent);
      expectObservable(cold('a|', { a: start }).pipe(matchHooks(registry))).toBe('a|', {
        a: { ...start, chain: [] },
      });
    });
  });

  it('passes on an error of the source (#)', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--#', input, new Error('input broke'));
      const e1subs = '  ^----!';
      const expected = '--A--#';
      expectObservable(e1.pipe(matchHooks(registry))).toBe(expected, jobs, new Error('input broke'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--x--b--s--|', input);
      const unsub = '   ^-------!      ';
      const e1subs = '  ^-------!      ';
      const expected = '--A--x---      ';
      expectObservable(e1.pipe(matchHooks(registry)), unsub).toBe(expected, jobs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('after parseLines and admitEvents: numbers valid events, rejects in place, chains attached', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const e1 = hot('-abcd|', {
        a: { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'shell', tool_input: {} },
        b: new JsonLine(7, 'nope'),
        c: { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'read_file', tool_input: {} },
        d: { hook_event_name: 'Stop', session_id: 's' },
      });
      const out = e1.pipe(
        parseLines(),
        admitEvents({ now: () => new Date(0), cwd: () => '/' }),
        matchHooks(registry),
        map((job) =>
          job.kind === 'event'
            ? `${job.seq}:${job.chain.map((hook) => hook.name).join('+')}`
            : `x${job.index}@${job.line}`,
        ),
      );
      expectObservable(out).toBe('-abcd|', {
        a: '1:shell-only+every-tool+no-matcher',
        b: 'x2@7',
        c: '2:every-tool+no-matcher',
        d: '3:stop-with-matcher+stop',
      });
    });
  });

  it('types: Admitted in, Job out; the chain of an event is a readonly list of hooks', () => {
    expectTypeOf(matchHooks).parameter(0).toEqualTypeOf<Registry>();
    expectTypeOf(matchHooks(registry)).toEqualTypeOf<OperatorFunction<Admitted, Job>>();
    expectTypeOf(of<Admitted>().pipe(matchHooks(registry))).toEqualTypeOf<Observable<Job>>();
    expectTypeOf<Extract<Job, { kind: 'event' }>['chain']>().toEqualTypeOf<typeof registry.PreToolUse>();
    expectTypeOf<Extract<Job, { kind: 'rejected' }>>().toEqualTypeOf<RejectedInput>();
    // @ts-expect-error -- raw input must be admitted first
    of({ hook_event_name: 'Stop' }).pipe(matchHooks(registry));
  });
});
