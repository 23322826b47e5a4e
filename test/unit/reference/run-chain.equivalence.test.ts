/**
 * The live chain (`from(chain).pipe(runHooks(event, deps), stopOnBlock(), foldDecision(chain))`)
 * against the hand-written `runChain` of test/reference/ (issue 37, stage 0), frame for frame: for
 * chains of 0–5 hooks with generated timeouts, fail_closed flags and scripts of executor emissions,
 * three kinds of event (block and ask intercepted or not), deadline timers on time or late, and an
 * unsubscription at any frame, both emit the same steps at the same frames, end the same way, and
 * start and stop each hook's executor at the same frames. With the pipeline's `project`/`recover`,
 * the reference matches the live chain followed by `map`, `filter` and `catchError`. Imports only
 * public operators for the live side.
 */
import fc from 'fast-check';
import { catchError, filter, from, map, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { foldDecision, runHooks, stopOnBlock } from '../../../operators/index.js';
import type { ChainStep } from '../../../operators/foldDecision.js';
import { runChain } from '../../reference/run-chain.js';
import { createTestScheduler } from '../../../src/testing/index.js';
import {
  eventName,
  eventOf,
  hookSpec,
  hooksOf,
  lateness,
  lateScheduler,
  lifetimes,
  record,
  scriptedExecutor,
  type HookSpec,
  type Recording,
} from './scenarios.js';

interface Scenario {
  readonly chain: readonly HookSpec[];
  readonly event: 'PreToolUse' | 'PostToolUse' | 'Stop';
  readonly late: number;
  readonly cut: number | undefined;
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  chain: fc.array(hookSpec, { maxLength: 5 }),
  event: eventName,
  late: lateness,
  cut: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
});

const show = (step: ChainStep): string => JSON.stringify(step);

/** What the pipeline makes of each step (a step it maps to undefined is not emitted), and of an error. */
const project = (step: ChainStep): string | undefined =>
  step.type === 'run' && step.run.result.outcome === 'ok' && step.run.result.output.decision === 'none'
    ? undefined
    : show(step);
const recover = (error: unknown): readonly string[] => [`recovered: ${(error as Error).message}`];

const played = (s: Scenario, live: boolean, projected: boolean): Recording => {
  const scheduler = createTestScheduler();
  const life: string[] = [];
  let out: string[] = [];
  scheduler.run(() => {
    const chain = hooksOf(s.chain);
    const scripts = new Map(chain.map((hook, i) => [hook.name, s.chain[i]!.script]));
    const deps = {
      executor: scriptedExecutor(scripts, scheduler, life),
      scheduler: lateScheduler(scheduler, s.late),
    };
    const event = eventOf(s.event);
    const steps$ = (): Observable<ChainStep> =>
      from(chain).pipe(runHooks(event, deps), stopOnBlock(), foldDecision(chain));
    const out$: Observable<string> = projected
      ? live
        ? steps$().pipe(
            map(project),
            filter((line): line is string => line !== undefined),
            catchError((error: unknown) => from(recover(error))),
          )
        : runChain(chain, event, deps, project, recover)
      : (live ? steps$() : runChain(chain, event, deps)).pipe(map(show));
    out = record(scheduler, out$, s.cut, (line) => line);
  });
  return { out, life: lifetimes(life) };
};

describe('runChain (test/reference) against runHooks → stopOnBlock → foldDecision, generated scenarios', () => {
  it('the same steps at the same frames, the same end, each executor started and stopped at the same frames', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(played(s, true, false)).toStrictEqual(played(s, false, false));
      }),
      { numRuns: 250 },
    );
  });

  it("with the pipeline's project and recover: the live chain then map, filter and catchError", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        expect(played(s, true, true)).toStrictEqual(played(s, false, true));
      }),
      { numRuns: 150 },
    );
  });

  it('the scenarios reach a block that skips hooks, a fail_closed failure, an executor that throws, a cut', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        for (const line of played(s, false, false).out) {
          const rest = line.slice(line.indexOf(':') + 1);
          if (rest === 'cut' || rest.startsWith('error ')) seen.add(rest.split(' ')[0]!);
          if (!rest.startsWith('{')) continue;
          const step = JSON.parse(rest) as ChainStep;
          if (step.type === 'verdict' && step.verdict.hooks.some((h) => h.outcome === 'skipped'))
            seen.add('skipped');
          if (
            step.type === 'run' &&
            step.run.result.outcome !== 'ok' &&
            step.run.effective.decision === 'block'
          )
            seen.add('fail_closed');
        }
      }),
      { numRuns: 250, seed: 37 },
    );
    expect([...seen].sort()).toStrictEqual(['cut', 'error', 'fail_closed', 'skipped']);
  });
});
