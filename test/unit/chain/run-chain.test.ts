import { from, map, NEVER, type Observable } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { foldDecision, runHooks, stopOnBlock } from '../../../operators/index.js';
import { runChain, type ChainStep } from '../../../src/chain/run-chain.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookEmission, HookExecutor } from '../../../src/exec/port.js';
import type { Hook } from '../../../src/registry/index.js';
import { defineHooks } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'rm -rf /' },
};

/** A step as a short marble value: `name:effective@duration` for a run, the verdict's decision and hook outcomes. */
const brief = (step: ChainStep): string =>
  step.type === 'run'
    ? `${step.run.hook.name}:${step.run.effective.decision}@${step.run.durationMs}`
    : `${step.verdict.decision}[${step.verdict.hooks.map((hook) => `${hook.name}=${hook.outcome}`).join(',')}]`;

/** The composed form runChain must equal, frame for frame. */
const composed = (
  chain: readonly Hook[],
  executor: HookExecutor,
  scheduler: ReturnType<typeof createTestScheduler>,
) => from(chain).pipe(runHooks(pre, { executor, scheduler }), stopOnBlock(), foldDecision(chain));

describe('runChain', () => {
  const a = commandHook('a');
  const b = commandHook('b', { timeout: 5 });
  const c = commandHook('c');

  it('[A allow, B block, C]: A, B, then the verdict with C skipped, at their virtual times (its doc marble)', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const behaviours = {
        a: cold('--A|', { A: results.allow() }),
        b: cold('---B|', { B: results.block('no') }),
        c: cold('-C|', { C: results.allow() }),
      };
      const executor = fakeExecutor(behaviours);
      const values = { x: 'a:allow@2', y: 'b:block@3', v: 'block[a=ok,b=ok,c=skipped]' };
      expectObservable(runChain([a, b, c], pre, { executor, scheduler }).pipe(map(brief))).toBe(
        '--x--(yv|)',
        values,
      );
      expectObservable(composed([a, b, c], executor, scheduler).pipe(map(brief))).toBe('--x--(yv|)', values);
      expectSubscriptions(behaviours.a.subscriptions).toBe(['^-!', '^-!']);
      expectSubscriptions(behaviours.b.subscriptions).toBe(['--^--!', '--^--!']);
      expectSubscriptions(behaviours.c.subscriptions).toBe([]);
    });
  });

  it("gives exactly the composed operators' steps: timeouts, failures, a hook that never answers, in-process hooks", () => {
    const scheduler = createTestScheduler();
    const seen: Record<'chain' | 'composed', unknown[]> = { chain: [], composed: [] };
    const fns = defineHooks({
      PreToolUse: [
        { name: 'sync', run: () => ({ decision: 'allow' as const }) },
        {
          name: 'throws',
          run: () => {
            throw new Error('boom');
          },
        },
        { name: 'empty', run: () => undefined },
      ],
    }).PreToolUse;
    scheduler.run(({ cold }) => {
      const behaviours = {
        a: cold('-A|', { A: results.none() }),
        b: NEVER as Observable<never>,
        c: cold<HookEmission>('#'),
        d: cold<HookEmission>('|'),
      };
      const chain = [
        a,
        ...fns,
        b,
        commandHook('c'),
        commandHook('d'),
        commandHook('e', { fail_closed: true }),
      ];
      const executor = fakeExecutor({
        ...behaviours,
        e: cold('---E|', { E: results.fail('exit', 'exit 3') }),
      });
      const record = (into: unknown[]) => (step: ChainStep) => into.push([scheduler.now(), brief(step)]);
      runChain(chain, pre, { executor, scheduler }).subscribe({
        next: record(seen.chain),
        complete: () => seen.chain.push('|'),
      });
      composed(chain, executor, scheduler).subscribe({
        next: record(seen.composed),
        complete: () => seen.composed.push('|'),
      });
    });
    expect(seen.chain).toEqual(seen.composed);
    expect(seen.chain.at(-2)).toEqual([
      9,
      'block[a=ok,sync=ok,throws=exception,empty=ok,b=timeout,c=exception,d=exception,e=exit]',
    ]);
  });

  it('an executor that throws when called errors the output (#), with no verdict, like the composed form', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const executor: HookExecutor = () => {
        throw new Error('executor broke');
      };
      expectObservable(runChain([a], pre, { executor, scheduler })).toBe(
        '#',
        undefined,
        new Error('executor broke'),
      );
      expectObservable(composed([a], executor, scheduler)).toBe('#', undefined, new Error('executor broke'));
    });
  });

  it('an explicit unsubscribe cancels the running hook and starts no other', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const behaviours = {
        a: cold('-A|', { A: results.allow() }),
        b: cold('-----B|', { B: results.allow() }),
        c: cold('C|', { C: results.allow() }),
      };
      const executor = fakeExecutor(behaviours);
      expectObservable(runChain([a, b, c], pre, { executor, scheduler }).pipe(map(brief)), '^--!').toBe(
        '-x-',
        { x: 'a:allow@1' },
      );
      expectSubscriptions(behaviours.b.subscriptions).toBe('-^-!');
      expectSubscriptions(behaviours.c.subscriptions).toBe([]);
    });
  });

  it('recover ends the output with what it makes of an error, in place of the error', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const fake = fakeExecutor({ a: cold('-A|', { A: results.allow() }) });
      // An executor that throws when called for b: the chain's stream errors there.
      const executor: HookExecutor = (hook, event) => {
        if (hook.name === 'b') throw new Error('executor broke');
        return fake(hook, event);
      };
      const deps = { executor, scheduler };
      const names = (step: ChainStep) => (step.type === 'run' ? step.run.hook.name : 'verdict');
      const failing = (step: ChainStep) => {
        if (step.type === 'verdict') throw new Error('no verdict');
        return names(step);
      };
      expectObservable(
        runChain([a, commandHook('b'), c], pre, deps, names, (error) => [(error as Error).message, 'x']),
      ).toBe('-(arx|)', { a: 'a', r: 'executor broke', x: 'x' });
      expectObservable(runChain([a], pre, deps, failing, (error) => [(error as Error).message])).toBe(
        '-(an|)',
        { a: 'a', n: 'no verdict' },
      );
    });
  });

  it('runs 10,000 hooks that answer at once in a loop, without growing the stack', () => {
    const many = defineHooks({
      PreToolUse: Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, run: () => ({}) })),
    }).PreToolUse;
    const steps: ChainStep[] = [];
    runChain(many, pre, { executor: fakeExecutor({}), scheduler: createTestScheduler() }).subscribe((step) =>
      steps.push(step),
    );
    expect(steps).toHaveLength(10_001);
    expect(steps.at(-1)).toMatchObject({ type: 'verdict', verdict: { decision: 'none' } });
  });

  it('types: hooks and an event in, chain steps out, or what project makes of them', () => {
    const deps = { executor: fakeExecutor({}), scheduler: createTestScheduler() };
    expectTypeOf(runChain([a], pre, deps)).toEqualTypeOf<Observable<ChainStep>>();
    expectTypeOf(runChain([a], pre, deps, (step) => step.type)).toEqualTypeOf<
      Observable<'run' | 'verdict'>
    >();
  });

  it('project shapes each step and leaves out the ones it maps to undefined; a throw in it errors the output', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const executor = fakeExecutor({
        a: cold('-A|', { A: results.allow() }),
        b: cold('-B|', { B: results.none() }),
      });
      const deps = { executor, scheduler };
      const names = (step: ChainStep) => (step.type === 'run' ? step.run.hook.name : undefined);
      expectObservable(runChain([a, commandHook('b')], pre, deps, names)).toBe('-a(b|)', { a: 'a', b: 'b' });
      const broken = (step: ChainStep) => {
        if (step.type === 'verdict') throw new Error('project broke');
        return step.type;
      };
      expectObservable(runChain([a], pre, deps, broken)).toBe(
        '-(r#)',
        { r: 'run' },
        new Error('project broke'),
      );
    });
  });
});
