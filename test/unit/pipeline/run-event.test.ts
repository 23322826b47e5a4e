import { from, map, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { MatchedEvent } from '../../../operators/matchHooks.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookExecutor } from '../../../src/exec/port.js';
import type { OutputLine } from '../../../src/output/lines.js';
import { runEvent } from '../../../src/pipeline/pipeline.js';
import { defineHooks, type Hook } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'rm -rf /' },
};

const job = (chain: readonly Hook[]): MatchedEvent => ({ kind: 'event', seq: 1, event: pre, chain });

/** A line as a short marble value: `N:hook:decision` or `D:decision[hook=outcome,…]`. */
const brief = (line: OutputLine): string =>
  line.type === 'hook_decision'
    ? `D:${line.decision}[${line.hooks.map((hook) => `${hook.name}=${hook.outcome}`).join(',')}]`
    : line.type === 'stream_event'
      ? `N:${line.event.hook_name}:${line.event.decision}`
      : 'E';

const deps = (executor: HookExecutor, scheduler: ReturnType<typeof createTestScheduler>) => ({
  executor,
  scheduler,
  now: () => new Date(0),
  cwd: () => '/',
});

describe('runEvent: one event through runHooks, stopOnBlock and foldDecision', () => {
  const a = commandHook('a');
  const b = commandHook('b');
  const c = commandHook('c');

  it('[a allow, b block, c]: a notification per hook that ran, then the decision; c never starts', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const behaviours = {
        a: cold('--A|', { A: results.allow({ reason: 'fine' }) }),
        b: cold('---B|', { B: results.block('no') }),
        c: cold('-C|', { C: results.allow() }),
      };
      const lines = from(runEvent(job([a, b, c]), deps(fakeExecutor(behaviours), scheduler)));
      expectObservable(lines.pipe(map(brief))).toBe('--x--(yv|)', {
        x: 'N:a:allow',
        y: 'N:b:block',
        v: 'D:block[a=ok,b=ok,c=skipped]',
      });
      expectSubscriptions(behaviours.c.subscriptions).toBe([]);
    });
  });

  it('an executor that throws for the second hook: the lines out stay out, then the internal-failure answer', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const fake = fakeExecutor({ a: cold('-A|', { A: results.allow({ reason: 'fine' }) }) });
      const executor: HookExecutor = (hook, event) => {
        if (hook.name === 'b') throw new Error('executor broke');
        return fake(hook, event);
      };
      const closed = commandHook('b', { fail_closed: true });
      const lines = from(runEvent(job([a, closed, c]), deps(executor, scheduler)));
      // The internal failure counts for every hook: b is fail_closed, so it blocks and c is skipped.
      expectObservable(lines.pipe(map(brief))).toBe('-(aev|)', {
        a: 'N:a:allow',
        e: 'N:cosh-hooks:error',
        v: 'D:block[a=exception,b=exception,c=skipped]',
      });
    });
  });

  it('runs 10,000 hooks that answer at once without growing the stack', () => {
    const many = defineHooks({
      PreToolUse: Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, run: () => ({}) })),
    }).PreToolUse;
    const lines: OutputLine[] = [];
    (
      from(runEvent(job(many), deps(fakeExecutor({}), createTestScheduler()))) as Observable<OutputLine>
    ).subscribe((line) => lines.push(line));
    expect(lines.at(-1)).toMatchObject({ type: 'hook_decision', decision: 'none' });
    expect((lines.at(-1) as unknown as { hooks: unknown[] }).hooks).toHaveLength(10_000);
  });
});
