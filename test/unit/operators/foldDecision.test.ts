import { from, map, of, type Observable, type OperatorFunction } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { foldDecision, runHooks, stopOnBlock } from '../../../operators/index.js';
import type { ChainStep } from '../../../operators/foldDecision.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookResult, HookRun } from '../../../src/protocol/index.js';
import type { Hook } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'ls' },
};

const chain = ['a', 'b', 'c'].map((name) => commandHook(name));

/** The run of chain hook `name`, as `runHooks` emits it. */
const run = (name: string, result: HookResult, durationMs = 1): HookRun => ({
  hook: { name, source: 'config' },
  result,
  effective:
    result.outcome === 'ok' && result.output.decision !== 'none'
      ? {
          decision: result.output.decision,
          ...(result.output.reason !== undefined && { reason: result.output.reason }),
        }
      : { decision: 'none' },
  durationMs,
});

const runs = {
  a: run('a', results.allow({ hookSpecificOutput: { additional_context: 'ctx' } })),
  b: run('b', results.ask({ reason: 'sure?' }), 2),
  B: run('b', results.block('rm -rf', { systemMessage: 'Blocked' })),
};
const step = (value: HookRun): ChainStep => ({ type: 'run', run: value });
const steps = {
  a: step(runs.a),
  b: step(runs.b),
  B: step(runs.B),
  /** a and b ran; c never started. */
  v: {
    type: 'verdict',
    verdict: {
      decision: 'ask',
      reason: 'sure?',
      additionalContext: 'ctx',
      hooks: [
        { name: 'a', source: 'config', decision: 'allow', outcome: 'ok', duration_ms: 1 },
        { name: 'b', source: 'config', decision: 'ask', outcome: 'ok', duration_ms: 2 },
        { name: 'c', source: 'config', outcome: 'skipped' },
      ],
    },
  },
  /** a ran, then b blocked; c was skipped. */
  V: {
    type: 'verdict',
    verdict: {
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
} satisfies Record<string, ChainStep>;

describe('foldDecision', () => {
  it('re-emits each run at once, then the verdict when the runs complete, unstarted hooks skipped', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a---b--|', runs);
      const e1subs = '  ^--------!';
      const expected = '--a---b--(v|)';
      expectObservable(e1.pipe(foldDecision(chain))).toBe(expected, steps);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('an empty chain folds to none, in the frame the runs complete', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const e1 = cold<HookRun>('---|');
      const e1subs = '          ^--!';
      const expected = '        ---(v|)';
      expectObservable(e1.pipe(foldDecision([]))).toBe(expected, {
        v: { type: 'verdict', verdict: { decision: 'none', hooks: [] } },
      });
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('passes on an error of the runs (#) without a verdict: an error is not a decision', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a--#', runs, new Error('broken chain'));
      const e1subs = '  ^----!';
      const expected = '--a--#';
      expectObservable(e1.pipe(foldDecision(chain))).toBe(expected, steps, new Error('broken chain'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('does not break the unsubscription chain when the result is unsubscribed explicitly: no verdict', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const e1 = hot('  --a----b--|', runs);
      const unsub = '   ^-----!    ';
      const e1subs = '  ^-----!    ';
      const expected = '--a----    ';
      expectObservable(e1.pipe(foldDecision(chain)), unsub).toBe(expected, steps);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
    });
  });

  it('folds each subscription on its own: a second subscriber does not see the first one’s runs', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const e1 = cold('-a|', runs);
      const folded = e1.pipe(foldDecision([chain[0]!]));
      const once = {
        a: steps.a,
        v: {
          type: 'verdict',
          verdict: {
            decision: 'allow',
            additionalContext: 'ctx',
            hooks: [{ name: 'a', source: 'config', decision: 'allow', outcome: 'ok', duration_ms: 1 }],
          },
        },
      };
      expectObservable(folded).toBe('-a(v|)', once);
      expectObservable(folded).toBe('-a(v|)', once);
    });
  });

  it('after runHooks and stopOnBlock: the block decides and the rest of the chain is skipped', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-a|', { a: runs.a.result });
      const b = cold('-b|', { b: runs.B.result });
      const c = cold('-c|', { c: results.allow() });
      const out = from(chain).pipe(
        runHooks(pre, { executor: fakeExecutor({ a, b, c }), scheduler }),
        stopOnBlock(),
        foldDecision(chain),
        map((value) => (value.type === 'run' ? value.run.hook.name : value.verdict)),
      );
      expectObservable(out).toBe('-a(bV|)', { a: 'a', b: 'b', V: steps.V.verdict });
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('types: HookRun in, ChainStep out; the chain is a list of hooks', () => {
    expectTypeOf(foldDecision).parameter(0).toEqualTypeOf<readonly Hook[]>();
    expectTypeOf(foldDecision(chain)).toEqualTypeOf<OperatorFunction<HookRun, ChainStep>>();
    expectTypeOf(of<HookRun>().pipe(foldDecision(chain))).toEqualTypeOf<Observable<ChainStep>>();
    const last = (value: ChainStep) =>
      value.type === 'verdict' ? value.verdict.decision : value.run.durationMs;
    expectTypeOf(last).returns.toEqualTypeOf<'allow' | 'block' | 'ask' | 'none' | number>();
  });
});
