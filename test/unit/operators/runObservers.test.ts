import { map, type OperatorFunction } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { runObservers } from '../../../operators/index.js';
import type { Observation, ObserverRecord } from '../../../operators/runObservers.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookDecision } from '../../../src/output/index.js';
import type { Hook } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const event = (n: number): HookEvent => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: `echo ${n}`, token: 'AKIAIOSFODNN7EXAMPLE' },
});
const decision = (seq: number): HookDecision => ({
  type: 'hook_decision',
  seq,
  hook_event_name: 'PreToolUse',
  session_id: 's',
  decision: 'block',
  reason: 'no',
  hooks: [{ name: 'guard', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 }],
});
const observation = (seq: number, observers: readonly Hook[]): Observation => ({
  ids: { seq, hook_event_name: 'PreToolUse', session_id: 's' },
  event: event(seq),
  decision: decision(seq),
  observers,
});

/** `hook seq outcome` or `hook seq dropped N`: compact marble values. */
const brief = (record: ObserverRecord) =>
  record.record === 'observer_result'
    ? `${record.hook} ${record.seq} ${record.outcome}@${record.start_ms}-${record.end_ms}`
    : `${record.hook} ${record.seq}-${record.last_seq} dropped ${record.dropped} (${record.dropped_total} in all)/${record.queue}`;

describe('runObservers', () => {
  it('runs an observer one event at a time, in order; the newest event past the queue bound is dropped, reported once per burst', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const o = cold('-----o|', { o: results.none() });
      const observers = [commandHook('o', { observe: true })];
      const e1 = hot('  a-b-c-------|', {
        a: observation(1, observers),
        b: observation(2, observers),
        c: observation(3, observers),
      });
      const e1subs = '  ^-----------!';
      const expected = '-----A----B-(d|)';
      const deps = { executor: fakeExecutor({ o }), scheduler };
      expectObservable(e1.pipe(runObservers(deps, 2), map(brief))).toBe(expected, {
        d: 'o 3-3 dropped 1 (1 in all)/2',
        A: 'o 1 ok@0-5',
        B: 'o 2 ok@5-10',
      });
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(o.subscriptions).toBe(['^----!', '-----^----!']);
    });
  });

  it('interrupt$: the running observer is recorded as cut short, the waiting events as dropped, then it completes', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const o = cold('-----o|', { o: results.none() });
      const observers = [commandHook('o', { observe: true })];
      const at = (seq: number) => observation(seq, observers);
      const e1 = hot('  abc----------|', { a: at(1), b: at(2), c: at(3) });
      const stop = hot('---s', { s: undefined });
      const expected = '---(Ad|)';
      expectObservable(
        e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler }, 8, stop), map(brief)),
      ).toBe(expected, { A: 'o 1 signal@0-3', d: 'o 2-3 dropped 2 (2 in all)/8' });
      expectSubscriptions(o.subscriptions).toBe('^--!');
      expectSubscriptions(e1.subscriptions).toBe('^--!');
    });
  });

  it('a burst of drops is one record, given when the lane next takes an event', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const o = cold('-----o|', { o: results.none() });
      const observers = [commandHook('o', { observe: true })];
      const at = (seq: number) => observation(seq, observers);
      const e1 = hot('  abcd----e---------|', { a: at(1), b: at(2), c: at(3), d: at(4), e: at(5) });
      const expected = '-----A--d----E----|';
      expectObservable(
        e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler }, 1), map(brief)),
      ).toBe(expected, { A: 'o 1 ok@0-5', d: 'o 2-4 dropped 3 (3 in all)/1', E: 'o 5 ok@8-13' });
    });
  });

  it('observers of one event run side by side; a failure is a result like any other', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const slow = cold('---s|', { s: results.none() });
      const broken = cold('-b|', { b: results.fail('exit', 'exited with status 1') });
      const observers = [commandHook('slow', { observe: true }), commandHook('broken', { observe: true })];
      const e1 = hot('  a-----|', { a: observation(1, observers) });
      const expected = '-b-s--|';
      expectObservable(
        e1.pipe(runObservers({ executor: fakeExecutor({ slow, broken }), scheduler }), map(brief)),
      ).toBe(expected, { b: 'broken 1 exit@0-1', s: 'slow 1 ok@0-3' });
    });
  });

  it('gives an observer without redact the event as the host sent it (docs/protocol.md#secrets)', () => {
    const scheduler = createTestScheduler();
    const seen: HookEvent[] = [];
    scheduler.run(({ hot, cold, expectObservable }) => {
      const o = (sent: HookEvent) => {
        seen.push(sent);
        return cold('o|', { o: results.allow() });
      };
      const e1 = hot('a|', { a: observation(1, [commandHook('o', { observe: true })]) });
      expectObservable(e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler }), map(brief))).toBe(
        'a|',
        { a: 'o 1 ok@0-0' },
      );
    });
    expect(JSON.stringify(seen[0])).toContain('AKIAIOSFODNN7EXAMPLE');
  });

  it('gives a redact = true observer the event redacted, with the decision as cosh_decision', () => {
    const scheduler = createTestScheduler();
    const seen: HookEvent[] = [];
    scheduler.run(({ hot, cold, expectObservable }) => {
      const o = (sent: HookEvent) => {
        seen.push(sent);
        return cold('o|', { o: results.block('ignored') });
      };
      const e1 = hot('a|', { a: observation(1, [commandHook('o', { observe: true, redact: true })]) });
      expectObservable(e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler }), map(brief))).toBe(
        'a|',
        {
          a: 'o 1 ok@0-0',
        },
      );
    });
    expect(seen).toHaveLength(1);
    const sent = seen[0] as unknown as Record<string, unknown>;
    expect(JSON.stringify(sent)).not.toContain('IOSFODNN7EXAMPLE');
    expect(JSON.stringify(sent)).toContain('"command":"echo 1"');
    expect(sent['cosh_decision']).toStrictEqual({
      seq: 1,
      hook_event_name: 'PreToolUse',
      session_id: 's',
      decision: 'block',
      reason: 'no',
      hooks: [{ name: 'guard', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 }],
    });
  });

  it('passes on an error of the source (#), cancelling the running observer', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const o = cold('-----o|', { o: results.none() });
      const e1 = hot(
        '  --a--#',
        { a: observation(1, [commandHook('o', { observe: true })]) },
        new Error('gone'),
      );
      const e1subs = '  ^----!';
      const expected = '-----#';
      expectObservable(e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler }))).toBe(
        expected,
        undefined,
        new Error('gone'),
      );
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(o.subscriptions).toBe('--^--!');
    });
  });

  it('unsubscribing cancels the running observer', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const o = cold('-----o|', { o: results.none() });
      const e1 = hot('  a------|', { a: observation(1, [commandHook('o', { observe: true })]) });
      const unsub = '   ^--!    ';
      expectObservable(e1.pipe(runObservers({ executor: fakeExecutor({ o }), scheduler })), unsub).toBe(
        '---',
      );
      expectSubscriptions(e1.subscriptions).toBe('^--!');
      expectSubscriptions(o.subscriptions).toBe('^--!');
    });
  });

  it('types: observations in, observer records out', () => {
    const scheduler = createTestScheduler();
    expectTypeOf(runObservers({ executor: fakeExecutor({}), scheduler })).toEqualTypeOf<
      OperatorFunction<Observation, ObserverRecord>
    >();
  });
});
