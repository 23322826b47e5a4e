import { of, type Observable, type OperatorFunction } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { admitEvents } from '../../../operators/index.js';
import type { Admitted } from '../../../operators/admitEvents.js';
import type { ParsedInput } from '../../../src/events/input.js';
import { JsonLine, type EventDefaults } from '../../../src/events/index.js';
import { err, ok } from '../../../src/result.js';
import { createTestScheduler } from '../../../src/testing/index.js';

const defaults: EventDefaults = { now: () => new Date(Date.UTC(2026, 0, 1)), cwd: () => '/work' };

const stop = (session: string) => ({
  hook_event_name: 'Stop' as const,
  session_id: session,
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
});

/** Items as `parseLines` gives them: event values, and lines with their number. */
const input = {
  a: ok(stop('a')),
  b: ok(stop('b')),
  c: ok(stop('c')),
  /** Valid, but without cwd and timestamp: both are filled from the defaults. */
  m: ok({ hook_event_name: 'Stop', session_id: 'm' }),
  /** A valid event that came as line 4. */
  j: { ...ok(stop('j')), line: 4 },
  /** Line 7 held no value: its problem is the message. */
  x: { ...err('not JSON: Unexpected token \'o\', "nope" is not valid JSON'), line: 7 },
  u: ok({ hook_event_name: 'Stop' }),
  /** Line 9 is JSON but not an event: rejected by its line too. */
  n: { ...ok({ hook_event_name: 'Nope', session_id: 's' }), line: 9 },
} satisfies Record<string, ParsedInput>;

const admitted = {
  A: { kind: 'event', seq: 1, event: stop('a') },
  B: { kind: 'event', seq: 2, event: stop('b') },
  C: { kind: 'event', seq: 3, event: stop('c') },
  M: {
    kind: 'event',
    seq: 1,
    event: { hook_event_name: 'Stop', session_id: 'm', cwd: '/work', timestamp: '2026-01-01T00:00:00.000Z' },
  },
  J: { kind: 'event', seq: 2, event: stop('j') },
  X: {
    kind: 'rejected',
    index: 2,
    line: 7,
    message: 'not JSON: Unexpected token \'o\', "nope" is not valid JSON',
  },
  U: {
    kind: 'rejected',
    index: 4,
    message: 'session_id: missing required field (expected a string)',
  },
  N: {
    kind: 'rejected',
    index: 5,
    line: 9,
    ids: { session_id: 's' },
    message:
      'hook_event_name: unknown event "Nope" (expected one of PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
  },
} satisfies Record<string, Admitted>;

describe('admitEvents', () => {
  it('numbers valid events from 1, in the frame they arrive', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -a--b-c--|', input);
      const e1subs = '  ^--------!';
      const expected = '-A--B-C--|';
      expectObservable(e1.pipe(admitEvents(defaults))).toBe(expected, admitted);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('rejects invalid items in place, counting every item in `index`; valid events keep their own count', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -m-x-j-u-n-|', input);
      const e1subs = '  ^----------!';
      const expected = '-M-X-J-U-N-|';
      expectObservable(e1.pipe(admitEvents(defaults))).toBe(expected, admitted);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('passes on an error of the source (#); bad items before it were values, not errors', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -m-x--#', input, new Error('stdin closed'));
      const e1subs = '  ^-----!';
      const expected = '-M-X--#';
      expectObservable(e1.pipe(admitEvents(defaults))).toBe(expected, admitted, new Error('stdin closed'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -a--b-c--|', input);
      const unsub = '   ^----!    ';
      const e1subs = '  ^----!    ';
      const expected = '-A--B-    ';
      expectObservable(e1.pipe(admitEvents(defaults)), unsub).toBe(expected, admitted);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('counts per subscription: a re-subscribed stream numbers from 1 again', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const e1 = cold('  a-b|', input);
      const admitted$ = e1.pipe(admitEvents(defaults));
      expectObservable(admitted$).toBe('A-B|', admitted);
      expectObservable(admitted$, '---^').toBe('---A-B|', admitted);
      expectSubscriptions(e1.subscriptions).toBe(['^--!', '---^--!']);
    });
  });

  it('types: ParsedInput (past the parseLines edge) in, Admitted out', () => {
    expectTypeOf(admitEvents).parameter(0).toEqualTypeOf<EventDefaults>();
    expectTypeOf(admitEvents(defaults)).toEqualTypeOf<OperatorFunction<ParsedInput, Admitted>>();
    expectTypeOf(of(input.a, input.x).pipe(admitEvents(defaults))).toEqualTypeOf<Observable<Admitted>>();
    // @ts-expect-error -- raw lines are parsed at the edge (parseLines), never admitted as they are
    of(new JsonLine(1, '{}')).pipe(admitEvents(defaults));
    // @ts-expect-error -- and so are event values: admitEvents takes typed input only
    of(stop('a')).pipe(admitEvents(defaults));
    expectTypeOf<Extract<Admitted, { kind: 'event' }>['seq']>().toEqualTypeOf<number>();
    expectTypeOf<Extract<Admitted, { kind: 'rejected' }>['line']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error -- the clock and the working directory must be injected
    admitEvents({ cwd: () => '/' });
  });
});
