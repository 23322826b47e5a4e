import { BehaviorSubject, concatMap, map, Subject } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { OutputLine } from '../../../src/output/index.js';
import { createDispatcher, createSession, hookPipeline } from '../../../src/pipeline/index.js';
import { registryOf, type Registry } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

/*
 * The swap rules of a registry$ (docs/configuration.md, reload): a new configuration applies to
 * events that start after it; an event that started finishes on the chain it started with; no
 * event is lost or answered twice.
 */

const pre = (id: string) => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command: id },
});
/** A registry whose PreToolUse chain is the named hooks. */
const chain = (...names: string[]): Registry =>
  registryOf((event) => (event === 'PreToolUse' ? names.map((name) => commandHook(name)) : []));
const brief = (line: OutputLine): string =>
  line.type === 'hook_decision'
    ? `D${line.seq}:${line.decision}[${line.hooks.map((h) => `${h.name}=${h.outcome}`).join(',')}]`
    : line.type === 'stream_event'
      ? `N:${line.event.hook_name}`
      : `E`;

describe('hookPipeline with a registry$ (marbles)', () => {
  it('a swap while an event runs: that event finishes on its chain; the event waiting behind it runs on the new one', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const old1 = cold('----o|', { o: results.allow() });
      const old2 = cold('-p|', { p: results.none() });
      const fresh = cold('--n|', { n: results.block('new rule') });
      const registry$ = hot('a--b-----------', { a: chain('old1', 'old2'), b: chain('fresh') });
      const input = hot('   -xy-----------|', { x: pre('x'), y: pre('y') });
      const { output$ } = hookPipeline(
        registry$,
        testDeps(scheduler, fakeExecutor({ old1, old2, fresh })),
      )(input);
      // x: old1 from 1 to 5, old2 from 5 to 6 (the swap at 3 changes nothing for x); y, read at 2,
      // starts at 6 on b. Hooks that answer without a message have no notification.
      expectObservable(output$.pipe(map(brief))).toBe('------a-(bc)--|', {
        a: 'D1:allow[old1=ok,old2=ok]',
        b: 'N:fresh',
        c: 'D2:block[fresh=ok]',
      });
      expectSubscriptions(old1.subscriptions).toBe('-^---!');
      expectSubscriptions(old2.subscriptions).toBe('-----^!');
      expectSubscriptions(fresh.subscriptions).toBe('------^-!');
    });
  });

  it('events before the first registry wait for it; none is lost', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const guard = cold('-g|', { g: results.allow() });
      const registry$ = hot('---a---', { a: chain('guard') });
      const input = hot('   -x-----|', { x: pre('x') });
      const { output$ } = hookPipeline(registry$, testDeps(scheduler, fakeExecutor({ guard })))(input);
      expectObservable(output$.pipe(map(brief))).toBe('----a--|', { a: 'D1:allow[guard=ok]' });
    });
  });

  it('unsubscribing the outputs unsubscribes registry$', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const registry$ = hot('a------', { a: chain() });
      const input = hot('   -x-----', { x: pre('x') });
      const { output$ } = hookPipeline(registry$, testDeps(scheduler, fakeExecutor({})))(input);
      expectObservable(output$.pipe(map(brief)), '---!').toBe('-a-', { a: 'D1:none[]' });
      expectSubscriptions(registry$.subscriptions).toBe('^--!');
    });
  });
});

describe('createSession and createDispatcher with a registry$', () => {
  it('a session takes the registry current when each event starts', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const one = cold('---a|', { a: results.allow() });
      const two = cold('-b|', { b: results.block('two') });
      const registry$ = hot('a-b------', { a: chain('one'), b: chain('two') });
      const session = createSession(registry$, testDeps(scheduler, fakeExecutor({ one, two })));
      const events = hot('   x-y------|', { x: pre('x'), y: pre('y') });
      const out = events.pipe(concatMap((event) => session.decide(event)));
      expectObservable(out.pipe(map(brief))).toBe('---a(bc)-|', {
        a: 'D1:allow[one=ok]',
        b: 'N:two',
        c: 'D2:block[two=ok]',
      });
    });
  });

  it('a dispatcher follows a BehaviorSubject: each dispatch runs on the registry current when it starts', async () => {
    const registry$ = new BehaviorSubject<Registry>(chain('first'));
    const executor = fakeExecutor({
      first: new BehaviorSubject(results.allow()).pipe(map((r) => r)),
      second: new BehaviorSubject(results.block('second')).pipe(map((r) => r)),
    });
    const dispatcher = createDispatcher(registry$, testDeps(asyncScheduler, executor));
    const a = await dispatcher.dispatch(pre('a'));
    registry$.next(chain('second'));
    const b = await dispatcher.dispatch(pre('b'));
    dispatcher.close();
    expect(a.decision?.hooks.map((h) => h.name)).toEqual(['first']);
    expect(b.decision).toMatchObject({ decision: 'block', reason: 'second' });
    expect(registry$.observed).toBe(false);
  });

  it('closing a session unsubscribes its registry$', () => {
    const registry$ = new Subject<Registry>();
    const session = createSession(registry$, testDeps(asyncScheduler, fakeExecutor({})));
    expect(registry$.observed).toBe(true);
    session.close();
    expect(registry$.observed).toBe(false);
  });
});
