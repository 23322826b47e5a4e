import { concatMap, type OperatorFunction } from 'rxjs';
import { hookRun } from '../src/chain/run-chain.js';
import type { RunDeps } from '../src/chain/run-hook.js';
import type { HookEvent } from '../src/events/codecs.js';
import type { HookRun } from '../src/protocol/aggregate.js';
import type { Hook } from '../src/registry/hook.js';

export type { RunDeps };

/**
 * Runs the hooks of one event's chain one after another (`concatMap`), each under its own
 * timeout, and emits a `HookRun` per hook as it finishes. A hook starts only after the previous one
 * finished; a failure is a value (outcome = failure kind), so the next hook still runs.
 *
 * Secrets (docs/protocol.md): a hook receives the event as the host sent it; one that sets
 * `redact = true` (an observer) gets a redacted copy, made once per event when the first such
 * hook starts, in which only single tokens are replaced (it never hides code). Every result is
 * redacted before it counts: output, failure message, fail_closed reason.
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
export const runHooks =
  (event: HookEvent, deps: RunDeps): OperatorFunction<Hook, HookRun> =>
  (hooks) =>
    // concatMap subscribes each hook's run when its turn starts (the previous one finished).
    hooks.pipe(concatMap((hook) => hookRun(hook, event, deps)));
