/**
 * Events answered at once (no hook) queued behind one whose hook is still running: when that hook
 * answers, every queued event is decided in the same frame and the stream completes. RxJS 7's
 * `concatMap` drains its buffer recursively, inside the finished inner's teardown: about 800 such
 * events overflow the stack and the stream stops with no error and no completion (issue 37,
 * ../shared/ENGINE.md "Three traps"). Virtual time, fake executor: milliseconds.
 */
import { map, mergeMap, of, toArray, type Observable } from 'rxjs';
import { describe, it } from 'vitest';
import type { OutputLine } from '../../../src/output/index.js';
import { createSession, hookPipeline, type PipelineOptions } from '../../../src/pipeline/index.js';
import { registryOf } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

const QUEUED = 20_000;

const pre = { hook_event_name: 'PreToolUse' as const, session_id: 's1', tool_name: 'shell', tool_input: {} };
/** No hook runs for Stop in this registry: its decision is made at once, when its turn comes. */
const stop = (id: number) => ({ hook_event_name: 'Stop' as const, session_id: 's1', tool_use_id: `q${id}` });
const events = () => [pre, ...Array.from({ length: QUEUED }, (_, id) => stop(id))];
const registry = registryOf((name) => (name === 'PreToolUse' ? [commandHook('guard')] : []));

/** How many decisions, the first, the second and the last (seq and decision). */
const summary = (lines$: Observable<OutputLine>) =>
  lines$.pipe(
    toArray(),
    map((lines) => {
      const decisions = lines.filter((line) => line.type === 'hook_decision');
      const brief = (at: number) => {
        const line = decisions[at];
        return line === undefined ? 'missing' : `${line.seq} ${line.decision}`;
      };
      return { count: decisions.length, first: brief(0), second: brief(1), last: brief(QUEUED) };
    }),
  );

const expected = { count: QUEUED + 1, first: '1 allow', second: '2 none', last: `${QUEUED + 1} none` };

describe(`${QUEUED.toLocaleString('en')} events queued behind a pending hook`, () => {
  const modes: readonly NonNullable<PipelineOptions['concurrency']>[] = ['sequential', 'per-session'];

  it.each(modes)(
    'hookPipeline (%s): all decided when the hook answers, then the stream completes',
    (concurrency) => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const guard = cold('--(r|)', { r: results.allow() });
        const deps = testDeps(scheduler, fakeExecutor({ guard }));
        const { output$ } = hookPipeline(registry, deps, { concurrency })(of(...events()));
        expectObservable(summary(output$)).toBe('--(a|)', { a: expected });
        expectSubscriptions(guard.subscriptions).toBe(['^-!']);
      });
    },
  );

  // Sequential createSession is session.test.ts's "20,000 decides queued behind a running one" (the
  // same shape, seconds under load): not run twice.
  it.each(['per-session'] as const)(
    'createSession (%s): all decided when the hook answers, then the loop completes',
    (concurrency) => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const guard = cold('--(r|)', { r: results.allow() });
        const session = createSession(registry, testDeps(scheduler, fakeExecutor({ guard })), {
          concurrency,
        });
        const loop$ = of(...events()).pipe(mergeMap((event) => session.decide(event)));
        expectObservable(summary(loop$)).toBe('--(a|)', { a: expected });
        expectSubscriptions(guard.subscriptions).toBe(['^-!']);
      });
    },
  );
});
