import {
  asapScheduler,
  from,
  map,
  throwError,
  NEVER,
  EMPTY,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { runHooks } from '../../../operators/index.js';
import type { RunDeps } from '../../../operators/runHooks.js';
import { runHook } from '../../../operators/runHooks.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookResult, HookRun } from '../../../src/protocol/index.js';
import { defineHooks, type Hook } from '../../../src/registry/index.js';
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
/** name:outcome:effective@duration — compact marble values. */
const brief = (run: HookRun) =>
  `${run.hook.name}:${run.result.outcome}:${run.effective.decision}@${run.durationMs}`;

describe('runHooks', () => {
  const hooks = { a: commandHook('a'), b: commandHook('b') };

  it('runs each hook of the source when it arrives and the previous one is done; completes with the source', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--A|', { A: results.allow() });
      const b = cold('-B|', { B: results.none() });
      const e1 = hot('  -a--b---|', hooks);
      const e1subs = '  ^-------!';
      const expected = '---x-y--|';
      const out = e1.pipe(runHooks(pre, { executor: fakeExecutor({ a, b }), scheduler }));
      expectObservable(out.pipe(map(brief))).toBe(expected, { x: 'a:ok:allow@2', y: 'b:ok:none@1' });
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
      expectSubscriptions(b.subscriptions).toBe('----^!');
    });
  });

  it('passes on an error of the source (#) and cancels the running hook', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const a = cold('------A|', { A: results.allow() });
      const e1 = hot('  -a--#', hooks, new Error('chain source broke'));
      const e1subs = '  ^---!';
      const expected = '----#';
      const out = e1.pipe(runHooks(pre, { executor: fakeExecutor({ a }), scheduler }));
      expectObservable(out).toBe(expected, undefined, new Error('chain source broke'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly: the running hook is cancelled', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const a = cold('----A|', { A: results.allow() });
      const b = cold('-B|', { B: results.allow() });
      const e1 = hot('  -a-b----|', hooks);
      const unsub = '   ^--!     ';
      const e1subs = '  ^--!     ';
      const expected = '---      ';
      const out = e1.pipe(runHooks(pre, { executor: fakeExecutor({ a, b }), scheduler }));
      expectObservable(out.pipe(map(brief)), unsub).toBe(expected);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('types: hooks in, HookRun out; runHook is one hook to one HookResult', () => {
    const deps: RunDeps = { executor: fakeExecutor({}), scheduler: asapScheduler };
    expectTypeOf(runHooks).parameters.toEqualTypeOf<[HookEvent, RunDeps]>();
    expectTypeOf(runHooks(pre, deps)).toEqualTypeOf<OperatorFunction<Hook, HookRun>>();
    expectTypeOf(from([commandHook('a')]).pipe(runHooks(pre, deps))).toEqualTypeOf<Observable<HookRun>>();
    expectTypeOf(runHook(commandHook('a'), pre, deps)).toEqualTypeOf<Observable<HookResult>>();
    // @ts-expect-error -- the deadline needs an injected scheduler
    runHooks(pre, { executor: deps.executor });
    // @ts-expect-error -- the source is hooks, not their names
    from(['a']).pipe(runHooks(pre, deps));
  });

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
      const out = from([commandHook('slow', { timeout: 4 }), commandHook('next')]).pipe(
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
      const out = from([commandHook('late', { timeout: 4 })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ late }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('------(r|)', { r: 'late:ok:block@6' });
      expectSubscriptions(late.subscriptions).toBe('^-----!');
    });
  });

  describe("the hook's own time: a wait for its turn does not count against its deadline", () => {
    /** name:outcome:effective:message — the failure's message, for the kinds of deadline. */
    const told = (run: HookRun) =>
      `${run.hook.name}:${run.result.outcome}:${run.effective.decision}:${
        run.result.outcome === 'ok' ? '' : run.result.message
      }`;

    it('queued, then started: the deadline starts at the start (the marble of its doc)', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const waited = cold('-q---s-------r|', {
          q: progress.queued(),
          s: progress.started(),
          r: results.block('no'),
        });
        const out = from([commandHook('waited', { timeout: 8 })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ waited }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('-------------(r|)', { r: 'waited:ok:block:' });
        expectSubscriptions(waited.subscriptions).toBe('^------------!');
      });
    });

    it('a run that starts late still gets its whole timeout, and times out a whole timeout after its start', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const hang = cold('q---s--------', { q: progress.queued(), s: progress.started() });
        const out = from([commandHook('hang', { timeout: 5 })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ hang }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('---------(t|)', {
          t: 'hang:timeout:none:timed out after 5 ms',
        });
        expectSubscriptions(hang.subscriptions).toBe('^--------!');
      });
    });

    it("a wait that outlasts its bound (the hook's timeout) is queue_timeout, and fail_closed blocks on it", () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const starved = cold('--q--------s--r|', {
          q: progress.queued(),
          s: progress.started(),
          r: results.allow(),
        });
        const out = from([commandHook('starved', { timeout: 6, fail_closed: true })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ starved }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('--------(t|)', {
          t: 'starved:queue_timeout:block:waited 6 ms for a process slot, never started',
        });
        expectSubscriptions(starved.subscriptions).toBe('^-------!');
      });
    });

    it('the wait names what it waited for; without fail_closed it passes', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const helper = cold('q', { q: progress.queued('its process to start') });
        const out = from([commandHook('helper', { timeout: 3 })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ helper }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('---(t|)', {
          t: 'helper:queue_timeout:none:waited 3 ms for its process to start, never started',
        });
      });
    });

    it('a stderr line while queued or running does not move a deadline; started without queued changes nothing', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const noisy = cold('-e-s-e--', { e: progress.stderr('busy'), s: progress.started() });
        const out = from([commandHook('noisy', { timeout: 5, fail_closed: true })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ noisy }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('-----(t|)', {
          t: 'noisy:timeout:block:timed out after 5 ms',
        });
      });
    });

    it('a result already there when the deadline passes is taken, not turned into a timeout', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const onTheDot = cold('-----r|', { r: results.block('caught it') });
        const out = from([commandHook('onTheDot', { timeout: 5 })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ onTheDot }), scheduler }),
        );
        expectObservable(out.pipe(map(told))).toBe('-----(r|)', { r: 'onTheDot:ok:block:' });
      });
    });
  });

  it('a fail_closed hook that times out blocks with the stderr line it printed', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const hang = cold('-a-b----', {
        a: progress.stderr('checking'),
        b: progress.stderr('policy server down'),
      });
      const out = from([commandHook('hang', { timeout: 5, fail_closed: true })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ hang }), scheduler }),
        map((run) => [run.effective, run.result.outcome]),
      );
      // stderr notices do not count as an answer: the deadline still fires at frame 5.
      expectObservable(out).toBe('-----(t|)', {
        t: [{ decision: 'block', reason: 'policy server down' }, 'timeout'],
      });
    });
  });

  describe('the wait for its turn (queued, then started)', () => {
    // The diagrams of withDeadlines' doc comment (operators/runHooks.ts), run as written.
    it('does not count the queue against the hook timeout: the timeout counts from started', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const busy = cold('q---s-----R|', {
          q: progress.queued(),
          s: progress.started(),
          R: results.allow(),
        });
        const out = runHook(commandHook('busy', { timeout: 7 }), pre, {
          executor: fakeExecutor({ busy }),
          scheduler,
        });
        expectObservable(out.pipe(map((result) => result.outcome))).toBe('----------(R|)', { R: 'ok' });
        expectSubscriptions(busy.subscriptions).toBe('^---------!');
      });
    });

    it('bounds the wait on its own: queue_timeout at the exact frame, the hook unsubscribed (withdrawn)', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const stuck = cold('q--------s-R|', {
          q: progress.queued(),
          s: progress.started(),
          R: results.allow(),
        });
        const out = from([commandHook('stuck', { timeout: 7, fail_closed: true })]).pipe(
          runHooks(pre, { executor: fakeExecutor({ stuck }), scheduler }),
        );
        expectObservable(
          out.pipe(
            map((run) => [brief(run), 'message' in run.result ? run.result.message : '', run.effective]),
          ),
        ).toBe('-------(Q|)', {
          Q: [
            'stuck:queue_timeout:block@7',
            'waited 7 ms for a process slot, never started',
            {
              decision: 'block',
              reason: 'hook "stuck" failed closed: waited 7 ms for a process slot, never started',
            },
          ],
        });
        expectSubscriptions(stuck.subscriptions).toBe('^------!');
      });
    });

    it('times out a started hook at started + timeout, not at subscribe + timeout', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const slow = cold('q-----s--------R|', {
          q: progress.queued(),
          s: progress.started(),
          R: results.allow(),
        });
        const out = runHook(commandHook('slow', { timeout: 7 }), pre, {
          executor: fakeExecutor({ slow }),
          scheduler,
        });
        expectObservable(out.pipe(map((result) => result.outcome))).toBe('-------------(T|)', {
          T: 'timeout',
        });
        expectSubscriptions(slow.subscriptions).toBe('^------------!');
      });
    });

    it('ignores a queued notice that is not the first emission, and a started without a queued', () => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const late = cold('s--q--s-----R|', {
          q: progress.queued(),
          s: progress.started(),
          R: results.allow(),
        });
        const out = runHook(commandHook('late', { timeout: 7 }), pre, {
          executor: fakeExecutor({ late }),
          scheduler,
        });
        // The hook's own clock ran from subscribe: it is a timeout at frame 7.
        expectObservable(out.pipe(map((result) => result.outcome))).toBe('-------(T|)', { T: 'timeout' });
      });
    });
  });

  it('a hook that never answers times out too', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const executor = fakeExecutor({ stuck: NEVER });
      const out = from([commandHook('stuck', { timeout: 3, fail_closed: true })]).pipe(
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
