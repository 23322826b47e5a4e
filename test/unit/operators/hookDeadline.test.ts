import { map, Observable, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { hookDeadline } from '../../../operators/hookDeadline.js';
import type { HookEmission } from '../../../src/exec/port.js';
import type { HookResult } from '../../../src/protocol/index.js';
import { createTestScheduler, progress, results } from '../../../src/testing/index.js';

/** outcome, or outcome:message for a failure. */
const brief = (result: HookResult) =>
  'message' in result ? `${result.outcome}:${result.message}` : result.outcome;

describe('hookDeadline', () => {
  it('its doc marble: the wait after queued is not the hook time; the run counts from started', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const run = cold<HookEmission>('-q---s-------r|', {
        q: progress.queued(),
        s: progress.started(),
        r: results.allow(),
      });
      expectObservable(run.pipe(hookDeadline(8, scheduler), map(brief))).toBe('-------------(r|)', {
        r: 'ok',
      });
      expectSubscriptions(run.subscriptions).toBe('^------------!');
    });
  });

  it('a result in the frame its deadline passes wins (the deadline is judged one turn later)', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const run = cold<HookEmission>('-----r|', { r: results.allow() });
      expectObservable(run.pipe(hookDeadline(5, scheduler), map(brief))).toBe('-----(r|)', { r: 'ok' });
    });
  });

  it('timeout with the first stderr line; the run unsubscribed (cancelled) at the deadline', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const run = cold<HookEmission>('-e-------r|', {
        e: progress.stderr('policy down'),
        r: results.allow(),
      });
      expectObservable(run.pipe(hookDeadline(4, scheduler), map(brief))).toBe('----(t|)', {
        t: 'timeout:timed out after 4 ms',
      });
      expectSubscriptions(run.subscriptions).toBe('^---!');
    });
  });

  it('queue_timeout when the wait outlasts the bound; a late queued moves nothing; exited stops the clock', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const stuck = cold<HookEmission>('q------', { q: progress.queued('a process slot') });
      expectObservable(
        stuck.pipe(
          hookDeadline(3, scheduler),
          map((r) => r.outcome),
        ),
      ).toBe('---(q|)', {
        q: 'queue_timeout',
      });
      const late = cold<HookEmission>('s-q-----r|', {
        s: progress.started(),
        q: progress.queued(),
        r: results.allow(),
      });
      expectObservable(
        late.pipe(
          hookDeadline(4, scheduler),
          map((r) => r.outcome),
        ),
      ).toBe('----(t|)', {
        t: 'timeout',
      });
      const drained = cold<HookEmission>('--x------r|', { x: progress.exited(), r: results.allow() });
      expectObservable(
        drained.pipe(
          hookDeadline(4, scheduler),
          map((r) => r.outcome),
        ),
      ).toBe('---------(r|)', {
        r: 'ok',
      });
    });
  });

  it('an error or an empty completion of the executor is an exception result, never an error', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const broken = cold<HookEmission>('--#', undefined, new Error('boom'));
      expectObservable(broken.pipe(hookDeadline(9, scheduler), map(brief))).toBe('--(x|)', {
        x: 'exception:threw: boom',
      });
      const empty = cold<HookEmission>('--|');
      expectObservable(empty.pipe(hookDeadline(9, scheduler), map(brief))).toBe('--(x|)', {
        x: 'exception:completed without a result',
      });
    });
  });

  it('a deadline starts once the executor was subscribed: a slow spawn is not the hook time', () => {
    const scheduler = new VirtualTimeScheduler();
    // A spawn that takes 30 ms of the clock while subscribing, then a hook that answers 90 ms later.
    const slowSpawn = new Observable<HookEmission>((subscriber) => {
      scheduler.frame += 30;
      return scheduler.schedule(() => {
        subscriber.next(results.allow());
        subscriber.complete();
      }, 90);
    });
    const seen: string[] = [];
    slowSpawn
      .pipe(hookDeadline(100, scheduler))
      .subscribe((result) => seen.push(`${result.outcome}@${scheduler.now()}`));
    scheduler.flush();
    expect(seen).toEqual(['ok@120']);
  });

  it('unsubscribing cancels the run and its deadline', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const run = cold<HookEmission>('------r|', { r: results.allow() });
      expectObservable(run.pipe(hookDeadline(9, scheduler)), '^--!').toBe('---');
      expectSubscriptions(run.subscriptions).toBe('^--!');
    });
  });

  it('types: emissions in, one HookResult out', () => {
    const scheduler = createTestScheduler();
    expectTypeOf(hookDeadline(5, scheduler)).returns.toEqualTypeOf<Observable<HookResult>>();
  });
});
