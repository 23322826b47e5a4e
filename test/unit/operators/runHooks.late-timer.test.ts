/**
 * A deadline timer that runs late (the event loop was busy) waits as long again as it was late
 * before it is judged, so a result that arrived in the meantime wins (docs/execution.md; issue 37,
 * the mutant "a late deadline timer loses its grace"). Virtual time: a scheduler that holds every
 * timer due while the loop is busy until the loop is free, as Node's event loop does.
 */
import { map, of, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { describe, it } from 'vitest';
import { runHooks } from '../../../operators/index.js';
import type { HookEvent } from '../../../src/events/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

/** `scheduler`, with its event loop busy from frame `from` to `until`: a timer due in between runs at `until`. */
const busy = (scheduler: SchedulerLike, from: number, until: number): SchedulerLike => {
  const schedule = <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T) => {
    const due = scheduler.now() + delay;
    return scheduler.schedule(work, due >= from && due < until ? until - scheduler.now() : delay, state);
  };
  return { now: () => scheduler.now(), schedule };
};

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'ls' },
};
const guard = commandHook('guard', { timeout: 3 });

describe('runHooks: a deadline timer that runs late keeps its grace', () => {
  // timeout 3: due at 3; the loop is busy 2–5, so the timer runs at 5, 2 frames late; it then
  // waits 2 frames more: the hook times out at 7 unless its result came first.
  it.each([
    ['a result at 6, after the late timer ran, is taken', '------(r|)', false, '------(a|)', 'ok'],
    ['a result at 8, past the grace, is a timeout at 7', '--------(r|)', false, '-------(a|)', 'timeout'],
    [
      'without the busy loop, the same result at 6 is a timeout at 3',
      '------(r|)',
      true,
      '---(a|)',
      'timeout',
    ],
  ])('%s', (_name, script, onTime, expected, outcome) => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const executor = fakeExecutor({ guard: cold(script, { r: results.allow() }) });
      const deps = { executor, scheduler: onTime ? scheduler : busy(scheduler, 2, 5) };
      const outcome$ = of(guard).pipe(
        runHooks(pre, deps),
        map((run) => run.result.outcome),
      );
      expectObservable(outcome$).toBe(expected, { a: outcome });
    });
  });
});
