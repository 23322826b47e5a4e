/*
 * REFERENCE COPY (issue 37, stage 0) of `src/chain/run-chain.ts` on main @ 0e9ce46: verbatim but for
 * the import paths (runHook and DirectObserver: the copies beside it). The oracle the composed engine is checked
 * against, frame for frame, by test/unit/reference/*.test.ts. Never edit it to make a test pass.
 */
/**
 * Running one event's chain: each hook in turn (`hookRun`), stopping after the first effective
 * block, then the verdict. The pipeline's form of `from(chain).pipe(runHooks, stopOnBlock,
 * foldDecision)` (operators/), written as one stream.
 */
import { map, Observable, type Subscription } from 'rxjs';
import type { HookEvent } from '../../src/events/codecs.js';
import { aggregate, type HookRun, type Verdict } from '../../src/protocol/aggregate.js';
import type { HookResult } from '../../src/protocol/result.js';
import { effectiveDecision } from '../../src/protocol/effective.js';
import { redactedEvent, redactResult } from '../../src/protocol/redact/index.js';
import { readCoshAnswer } from '../../src/dialects/foreign-words.js';
import { isForeign } from '../../src/registry/dialect.js';
import { checkToolRewrites } from '../../src/protocol/tool-declarations.js';
import type { Hook } from '../../src/registry/hook.js';
import { DirectObserver } from './direct-observer.js';
import { runHook, type RunDeps } from './run-hook.js';
import { translateDialect } from '../../src/chain/translate-dialect.js';

/** Progress of one chain: each hook run as it finishes, then the verdict. */
export type ChainStep =
  { readonly type: 'run'; readonly run: HookRun } | { readonly type: 'verdict'; readonly verdict: Verdict };

/** Whether a run ends its chain: its effective decision is `block` (spec §4.6). */
export const endsChain = (run: HookRun): boolean => run.effective.decision === 'block';

/** The verdict of a chain whose hooks ran as `runs`: the hooks after them are `skipped`. */
export const chainVerdict = (chain: readonly Hook[], runs: readonly HookRun[]): ChainStep => ({
  type: 'verdict',
  verdict: aggregate(runs, chain.slice(runs.length)),
});

/** A hook's answer: the hook in its dialect under its deadlines (what `hookRun` maps). */
const hookAnswer = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  // The event is translated before it is redacted, and the answer read in the hook's dialect before
  // it is redacted (translateDialect reads the raw printed text).
  translateDialect(hook, event, (one, sent) =>
    runHook(one, one.redact === true ? redactedEvent(sent) : sent, deps),
  );

/**
 * A hook's answer as its run: another agent's words in a cosh hook's answer read, redacted, tool
 * rewrites checked, its effective decision taken.
 */
const runOf = (
  hook: Hook,
  event: HookEvent,
  deps: RunDeps,
  startedAt: number,
  answer: HookResult,
): HookRun => {
  // A cosh hook's answer in another agent's words is read before it counts (never a silent
  // pass-through, docs/compat.md); a hook in a dialect was read as its agent reads it.
  const redacted = redactResult(isForeign(hook.dialect) ? answer : readCoshAnswer(answer, hook.name));
  const result =
    event.hook_event_name === 'BeforeModel' ? checkToolRewrites(event.llm_request, redacted) : redacted;
  return {
    hook,
    result,
    effective: effectiveDecision(event.hook_event_name, hook, result),
    durationMs: Math.max(0, Math.round(deps.scheduler.now() - startedAt)),
  };
};

/**
 * One hook of a chain as its `HookRun`, to be called when the hook's turn starts (its duration
 * counts from the call) and subscribed at once: the hook runs in its dialect under its deadlines
 * (`runHook`); its answer is redacted before it counts, tool rewrites of a `BeforeModel` answer are
 * checked, and its effective decision is taken (fail_closed, what the event can intercept).
 *
 * Secrets (docs/protocol.md): a hook receives the event as the host sent it; one that sets
 * `redact = true` (an observer) gets a redacted copy, in which only single tokens are replaced.
 */
export const hookRun = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookRun> => {
  const startedAt = deps.scheduler.now();
  return hookAnswer(hook, event, deps).pipe(map((answer) => runOf(hook, event, deps, startedAt, answer)));
};

/**
 * Runs an event's chain hook by hook and emits each `HookRun` as a `run` step when it finishes,
 * then a `verdict` step (spec §4.6) and completes. The next hook starts when the previous one's
 * stream completed; the first effective block ends the chain (its step, then the verdict, the
 * hooks after it `skipped` and never started). Exactly what
 * `from(chain).pipe(runHooks(event, deps), stopOnBlock(), foldDecision(chain))` emits, frame for
 * frame (its spec checks both), in one stream: the operators per hook and per chain were most of
 * an in-process hook's cost (docs/performance.md, "Hand-written hot paths"). Hooks that answer
 * while subscribed (function hooks returning a value) run in a loop, not by recursion.
 *
 * `project` (optional) makes each step what the caller needs, in place of a `map` and a `filter`
 * after it: a step it maps to `undefined` is not emitted. Anything that throws on the way (making
 * a run, the verdict, `project`), and an error of a hook's stream (an executor that throws when
 * called), errors the output, with no verdict; or, given `recover` (in place of a `catchError`),
 * the output ends with the items it makes of the error. Unsubscribing cancels the running hook.
 *
 * ```
 * chain:   [a, b, c]          a allows at 2; b blocks 3 frames after it starts
 * output:  --a--(Bv|)         v = verdict: a allow, b block, c skipped
 * ```
 */
export function runChain(chain: readonly Hook[], event: HookEvent, deps: RunDeps): Observable<ChainStep>;
export function runChain<T>(
  chain: readonly Hook[],
  event: HookEvent,
  deps: RunDeps,
  project: (step: ChainStep) => T | undefined,
  recover?: (error: unknown) => readonly T[],
): Observable<T>;
export function runChain<T>(
  chain: readonly Hook[],
  event: HookEvent,
  deps: RunDeps,
  project?: (step: ChainStep) => T | undefined,
  recover?: (error: unknown) => readonly T[],
): Observable<T | ChainStep> {
  return new Observable<T | ChainStep>((subscriber) => {
    const runs: HookRun[] = [];
    let next = 0;
    let running: Subscription | undefined;

    /** Something threw: the output ends with what `recover` makes of it, or errors without it. */
    const fail = (error: unknown): void => {
      running?.unsubscribe();
      running = undefined;
      if (recover === undefined) return subscriber.error(error);
      let items: readonly T[];
      try {
        items = recover(error);
      } catch (thrown) {
        return subscriber.error(thrown);
      }
      for (const item of items) subscriber.next(item);
      subscriber.complete();
    };

    /** Emits a step (projected); false when something threw and the output ended. */
    const emit = (make: () => ChainStep): boolean => {
      try {
        const step = make();
        const out = project === undefined ? step : project(step);
        if (out !== undefined) subscriber.next(out);
        return true;
      } catch (error) {
        fail(error);
        return false;
      }
    };

    const end = (): void => {
      running?.unsubscribe();
      running = undefined;
      if (emit(() => chainVerdict(chain, runs))) subscriber.complete();
    };

    /** Starts hooks in order while they finish at once; returns when one is still running. */
    const advance = (): void => {
      while (!subscriber.closed && running === undefined) {
        if (next === chain.length) return end();
        const hook = chain[next++]!;
        const startedAt = deps.scheduler.now();
        // The answer is made a run here rather than by `hookRun`'s map: one operator less per hook.
        const started = hookAnswer(hook, event, deps).subscribe(
          new DirectObserver<HookResult>({
            next: (answer) => {
              let run: HookRun | undefined;
              const made = emit(() => {
                run = runOf(hook, event, deps, startedAt, answer);
                runs.push(run);
                return { type: 'run', run };
              });
              if (made && run !== undefined && endsChain(run)) end();
            },
            error: fail,
            complete: () => {
              // Only a hook that was still running when its subscription returned starts the next
              // one from here; one that ended while subscribing is followed by the loop.
              if (running !== undefined) {
                running = undefined;
                advance();
              }
            },
          }),
        );
        // A DirectObserver is the subscription itself: closed once the hook ended while subscribing.
        if (!started.closed && !subscriber.closed) running = started;
      }
    };

    advance();
    return () => {
      running?.unsubscribe();
      running = undefined;
    };
  });
}
