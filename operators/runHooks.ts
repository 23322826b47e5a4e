import { concatMap, defer, map, type Observable, type OperatorFunction } from 'rxjs';
import { runOf, type RunDeps } from '../src/chain/hook-run.js';
import { translateDialect } from '../src/chain/translate-dialect.js';
import type { HookEvent } from '../src/events/codecs.js';
import type { HookRun } from '../src/protocol/aggregate.js';
import { redactedEvent } from '../src/protocol/redact/index.js';
import type { HookResult } from '../src/protocol/result.js';
import type { Hook } from '../src/registry/hook.js';
import { hookDeadline } from './hookDeadline.js';

export type { RunDeps };

/** One hook for one event: the executor port under the hook's deadlines (`hookDeadline`). */
export const runHook = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  deps.executor(hook, event).pipe(hookDeadline(hook.timeoutMs, deps.scheduler));

/**
 * One hook's answer in its dialect (`translateDialect`): the event is translated before it is
 * redacted for a `redact = true` hook, and the answer read in the dialect before it counts.
 */
export const hookAnswer = (hook: Hook, event: HookEvent, deps: RunDeps): Observable<HookResult> =>
  translateDialect(hook, event, (one, sent) =>
    runHook(one, one.redact === true ? redactedEvent(sent) : sent, deps),
  );

/**
 * Runs the hooks of one event's chain one after another (`concatMap`), each in its dialect under
 * its own deadlines (`hookDeadline`: a `timeout` per phase), and emits a `HookRun` per hook as it
 * finishes. A hook starts only after the previous one finished; a failure is a value (outcome =
 * failure kind), so the next hook still runs. A hook's duration counts from its turn.
 *
 * Secrets (docs/protocol.md): a hook receives the event as the host sent it; one that sets
 * `redact = true` (an observer) gets a redacted copy, in which only single tokens are replaced
 * (it never hides code). Every result is redacted before it counts: output, failure message,
 * fail_closed reason.
 *
 * ```
 * hooks:   (ab|)               a and b are hooks; b has timeout 3
 * a:       --A|                a answers at frame 2 (a's subscription: ^-!)
 * b:         ------B|          b would answer at 2+6 (b's subscription: --^--!)
 * output:  --a--(t|)           a = run of a; t = b's `timeout` run at frame 2+3
 * ```
 *
 * Example: `from(chain).pipe(runHooks(event, { executor, scheduler }))`
 */
export const runHooks = (event: HookEvent, deps: RunDeps): OperatorFunction<Hook, HookRun> =>
  concatMap((hook) =>
    defer(() => {
      const startedAt = deps.scheduler.now();
      return hookAnswer(hook, event, deps).pipe(
        map((answer) => runOf(hook, event, deps.scheduler, startedAt, answer)),
      );
    }),
  );
