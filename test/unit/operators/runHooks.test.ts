import { from, map, of, throwError, NEVER, EMPTY } from 'rxjs';
import { describe, it } from 'vitest';
import { runHooks, stopOnBlock, foldDecision } from '../../../operators/index.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookRun } from '../../../src/protocol/index.js';
import { defineHooks } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  progress,
  results,
} from '../../../src/testing/index.js';

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
const brief = (run: HookRun) =>
  `${run.hook.name}:${run.result.outcome}:${run.effective.decision}@${run.durationMs}`;

describe('runHooks', () => {
  it('runs hooks one after another, each starting when the previous one has answered', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--a|', { a: results.allow() });
      const b = cold('---b|', { b: results.none() });
      const executor = fakeExecutor({ a, b });
      const out = from([commandHook('a'), commandHook('b')]).pipe(runHooks(pre, { executor, scheduler }));
      expectObservable(out.pipe(map(brief))).toBe('--x--(y|)', { x: 'a:ok:allow@2', y: 'b:ok:none@3' });
      expectSubscriptions(a.subscriptions).toBe('^-!');
      expectSubscriptions(b.subscriptions).toBe('--^--!');
    });
  });

  it('turns a hook that misses its deadline into a timeout result at the exact frame, unsubscribing it', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('----------s|', { s: results.allow() });
      const next = cold('-n|', { n: results.allow() });
      const executor = fakeExecutor({ slow, next });
      const out = from([commandHook('slow', { timeoutMs: 4 }), commandHook('next')]).pipe(
        runHooks(pre, { executor, scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('----t(n|)', {
        t: 'slow:timeout:none@4',
        n: 'next:ok:allow@1',
      });
      expectSubscriptions(slow.subscriptions).toBe('^---!');
      expectSubscriptions(next.subscriptions).toBe('----^!');
    });
  });

  it('a hook that exited before its deadline is not a timeout, even if its drain ends after it', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const late = cold('---x--r|', { x: progress.exited(), r: results.block('decided in time') });
      const out = from([commandHook('late', { timeoutMs: 4 })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ late }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('------(r|)', { r: 'late:ok:block@6' });
      expectSubscriptions(late.subscriptions).toBe('^-----!');
    });
  });

  it('a fail_closed hook that times out blocks with the stderr line it printed', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const hang = cold('-a-b----', {
        a: progress.stderr('checking'),
        b: progress.stderr('policy server down'),
      });
      const out = from([commandHook('hang', { timeoutMs: 5, failClosed: true })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ hang }), scheduler }),
        map((run) => [run.effective, run.result.outcome]),
      );
      // stderr notices do not count as an answer: the deadline still fires at frame 5.
      expectObservable(out).toBe('-----(t|)', {
        t: [{ decision: 'block', reason: 'policy server down' }, 'timeout'],
      });
    });
  });

  it('a hook that never answers times out too', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const executor = fakeExecutor({ stuck: NEVER });
      const out = from([commandHook('stuck', { timeoutMs: 3, failClosed: true })]).pipe(
        runHooks(pre, { executor, scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('---(t|)', { t: 'stuck:timeout:block@3' });
    });
  });

  it('failures are values: an erroring, an empty and a failing hook are followed by the next hook', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const executor = fakeExecutor({
        boom: throwError(() => new Error('kaput')),
        empty: EMPTY,
        exit: cold('-----e|', { e: results.fail('exit', 'exited with code 1') }),
        ok: cold('-o|', { o: results.ask() }),
      });
      const hooks = ['boom', 'empty', 'exit', 'ok'].map((name) => commandHook(name));
      const out = from(hooks).pipe(runHooks(pre, { executor, scheduler }));
      expectObservable(out.pipe(map(brief))).toBe('(ab)-c(d|)', {
        a: 'boom:exception:none@0',
        b: 'empty:exception:none@0',
        c: 'exit:exit:none@5',
        d: 'ok:ok:ask@1',
      });
    });
  });

  it('runs in-process function hooks (sync, Promise, Observable) under the same timeout', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const registry = defineHooks({
        PreToolUse: [
          { name: 'sync', run: () => ({ decision: 'approve', reason: 'fine' }) },
          // @ts-expect-error: the type lists lowercase spellings; at run time any case counts (a JS host)
          { name: 'observable', run: () => cold('--x|', { x: { decision: 'ASK' } }) },
          { name: 'slow', timeout: 2, run: () => cold('-----x|', { x: { decision: 'block' } }) },
          // @ts-expect-error: not a decision; the compiler rejects it, a JS host gets invalid_output
          { name: 'bad', run: () => ({ decision: 'sometimes' }) },
          {
            name: 'throws',
            run: () => {
              throw new Error('bug');
            },
          },
          { name: 'nothing', run: () => undefined },
        ],
      });
      const out = from(registry.PreToolUse).pipe(runHooks(pre, { executor: fakeExecutor({}), scheduler }));
      expectObservable(out.pipe(map(brief))).toBe('a-b-(cdef|)', {
        a: 'sync:ok:allow@0',
        b: 'observable:ok:ask@2',
        c: 'slow:timeout:none@2',
        d: 'bad:invalid_output:none@0',
        e: 'throws:exception:none@0',
        f: 'nothing:ok:none@0',
      });
    });
  });
});

describe('stopOnBlock', () => {
  it('completes right after the first effective block; later hooks are never subscribed', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-a|', { a: results.allow() });
      const b = cold('--b|', { b: results.block('no') });
      const c = cold('-c|', { c: results.allow() });
      const executor = fakeExecutor({ a, b, c });
      const out = from(['a', 'b', 'c'].map((name) => commandHook(name))).pipe(
        runHooks(pre, { executor, scheduler }),
        stopOnBlock(),
      );
      expectObservable(out.pipe(map(brief))).toBe('-a-(b|)', { a: 'a:ok:allow@1', b: 'b:ok:block@2' });
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('a fail_closed failure is a block and stops the chain', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const guard = cold('-g|', { g: results.fail('exit', 'exited with code 2', 'forbidden') });
      const later = cold('-l|', { l: results.allow() });
      const out = from([commandHook('guard', { failClosed: true }), commandHook('later')]).pipe(
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
      const out = from([commandHook('a'), commandHook('b', { failClosed: true })]).pipe(
        runHooks(start, { executor: fakeExecutor({ a, b }), scheduler }),
        stopOnBlock(),
      );
      expectObservable(out.pipe(map(brief))).toBe('-a(b|)', { a: 'a:ok:none@1', b: 'b:ok:none@1' });
      expectSubscriptions(b.subscriptions).toBe('-^!');
    });
  });
});

describe('foldDecision', () => {
  it('re-emits runs, then the verdict with skipped hooks', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const chain = ['a', 'b', 'c'].map((name) => commandHook(name));
      const executor = fakeExecutor({
        a: cold('-a|', { a: results.allow({ hookSpecificOutput: { additional_context: 'ctx' } }) }),
        b: cold('-b|', { b: results.block('rm -rf', { systemMessage: 'Blocked' }) }),
      });
      const out = from(chain).pipe(
        runHooks(pre, { executor, scheduler }),
        stopOnBlock(),
        foldDecision(chain),
      );
      expectObservable(out.pipe(map((step) => (step.type === 'run' ? brief(step.run) : step.verdict)))).toBe(
        '-a(bv|)',
        {
          a: 'a:ok:allow@1',
          b: 'b:ok:block@1',
          v: {
            decision: 'block',
            reason: 'rm -rf',
            systemMessage: 'Blocked',
            additionalContext: 'ctx',
            hooks: [
              { name: 'a', source: 'config', decision: 'allow', outcome: 'ok', duration_ms: 1 },
              { name: 'b', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 },
              { name: 'c', source: 'config', outcome: 'skipped' },
            ],
          },
        },
      );
    });
  });

  it('an empty chain folds to none at once', () => {
    createTestScheduler().run(({ expectObservable }) => {
      expectObservable(of<HookRun>().pipe(foldDecision([]))).toBe('(v|)', {
        v: { type: 'verdict', verdict: { decision: 'none', hooks: [] } },
      });
    });
  });
});
