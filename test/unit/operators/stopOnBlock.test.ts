import { from, map, type MonoTypeOperatorFunction, type Observable } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { runHooks, stopOnBlock } from '../../../operators/index.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { EffectiveDecision, HookRun } from '../../../src/protocol/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'ls' },
};
const start: HookEvent = {
  hook_event_name: 'SessionStart',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
};

/** name:outcome:effective@duration — compact marble values. */
const brief = (hookRun: HookRun) =>
  `${hookRun.hook.name}:${hookRun.result.outcome}:${hookRun.effective.decision}@${hookRun.durationMs}`;

/** A finished hook run as `runHooks` emits it; only `effective` matters to `stopOnBlock`. */
const run = (name: string, effective: EffectiveDecision['decision'], reason?: string): HookRun => ({
  hook: { name, source: 'config' },
  result: results.allow(),
  effective: { decision: effective, ...(reason !== undefined && { reason }) },
  durationMs: 1,
});

const runs = {
  a: run('a', 'allow'),
  n: run('n', 'none'),
  q: run('q', 'ask'),
  B: run('B', 'block', 'no'),
  c: run('c', 'allow'),
};

describe('stopOnBlock', () => {
  it('passes runs through and completes right after the first effective block (inclusive)', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--n--B--c--|', runs);
      const e1subs = '  ^-------!      ';
      const expected = '--a--n--(B|)   ';
      expectObservable(e1.pipe(stopOnBlock())).toBe(expected, runs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('mirrors a chain without a block to its completion', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -a-q-n-|', runs);
      const e1subs = '  ^------!';
      const expected = '-a-q-n-|';
      expectObservable(e1.pipe(stopOnBlock())).toBe(expected, runs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('a block as the very first run: emitted, then complete, in the same frame', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  ---B-a-|', runs);
      const e1subs = '  ^--!    ';
      const expected = '---(B|) ';
      expectObservable(e1.pipe(stopOnBlock())).toBe(expected, runs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('passes on an error of the source (#) before any block', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--#', runs, new Error('chain broke'));
      const e1subs = '  ^----!';
      const expected = '--a--#';
      expectObservable(e1.pipe(stopOnBlock())).toBe(expected, runs, new Error('chain broke'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not see an error that comes after the block: the source is already unsubscribed', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -a-B-#', runs);
      const e1subs = '  ^--!  ';
      const expected = '-a-(B|)';
      expectObservable(e1.pipe(stopOnBlock())).toBe(expected, runs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  -a-n-----B-|', runs);
      const unsub = '   ^----!      ';
      const e1subs = '  ^----!      ';
      const expected = '-a-n--      ';
      expectObservable(e1.pipe(stopOnBlock()), unsub).toBe(expected, runs);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('placed after runHooks, never subscribes the hooks after a block', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-a|', { a: results.allow() });
      const b = cold('--b|', { b: results.block('no') });
      const c = cold('-c|', { c: results.allow() });
      const out = from(['a', 'b', 'c'].map((name) => commandHook(name))).pipe(
        runHooks(pre, { executor: fakeExecutor({ a, b, c }), scheduler }),
        stopOnBlock(),
      );
      expectObservable(out.pipe(map(brief))).toBe('-a-(b|)', { a: 'a:ok:allow@1', b: 'b:ok:block@2' });
      expectSubscriptions(a.subscriptions).toBe('^!');
      expectSubscriptions(b.subscriptions).toBe('-^-!');
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('a fail_closed failure is a block and stops the chain', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const guard = cold('-g|', { g: results.fail('exit', 'exited with code 2', 'forbidden') });
      const later = cold('-l|', { l: results.allow() });
      const out = from([commandHook('guard', { fail_closed: true }), commandHook('later')]).pipe(
        runHooks(pre, { executor: fakeExecutor({ guard, later }), scheduler }),
        stopOnBlock(),
      );
      expectObservable(out.pipe(map(brief))).toBe('-(g|)', { g: 'guard:exit:block@1' });
      expectSubscriptions(later.subscriptions).toBe([]);
    });
  });

  it('on a non-interceptable event a block does not stop anything: every hook runs', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-a|', { a: results.block('no') });
      const b = cold('-b|', { b: results.block('no') });
      const out = from([commandHook('a'), commandHook('b', { fail_closed: true })]).pipe(
        runHooks(start, { executor: fakeExecutor({ a, b }), scheduler }),
        stopOnBlock(),
      );
      expectObservable(out.pipe(map(brief))).toBe('-a(b|)', { a: 'a:ok:none@1', b: 'b:ok:none@1' });
      expectSubscriptions(b.subscriptions).toBe('-^!');
    });
  });

  it('types: a MonoTypeOperatorFunction of HookRun', () => {
    expectTypeOf(stopOnBlock).parameters.toEqualTypeOf<[]>();
    expectTypeOf(stopOnBlock()).toEqualTypeOf<MonoTypeOperatorFunction<HookRun>>();
    expectTypeOf(stopOnBlock()).returns.toEqualTypeOf<Observable<HookRun>>();
    // @ts-expect-error -- it folds hook runs, not arbitrary values
    from([1, 2]).pipe(stopOnBlock());
  });
});
