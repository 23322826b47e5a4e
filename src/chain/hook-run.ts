/**
 * One hook's run as the chain counts it, and the verdict of a chain: pure functions of answers,
 * under the operators that run hooks (`runHooks`, `stopOnBlock`, `foldDecision` in operators/).
 */
import type { SchedulerLike } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import type { HookExecutor } from '../exec/port.js';
import { aggregate, type HookRun, type Verdict } from '../protocol/aggregate.js';
import type { HookResult } from '../protocol/result.js';
import { effectiveDecision } from '../protocol/effective.js';
import { redactResult } from '../protocol/redact/index.js';
import { readCoshAnswer } from '../dialects/foreign-words.js';
import { isForeign } from '../registry/dialect.js';
import { checkToolRewrites } from '../protocol/tool-declarations.js';
import type { Hook } from '../registry/hook.js';

/** What running hooks needs from the outside world. */
export interface RunDeps {
  /** The executor port: runs every hook, command or function (`processExecutor()`, `fakeExecutor`). */
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
}

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

/**
 * A hook's answer as its run: a cosh hook's answer in another agent's words read (never a silent
 * pass-through, docs/compat.md; a hook in a dialect was read as its agent reads it), redacted, tool
 * rewrites of a `BeforeModel` answer checked, its effective decision taken (fail_closed, what the
 * event can intercept), its duration counted from `startedAt`.
 */
export const runOf = (
  hook: Hook,
  event: HookEvent,
  scheduler: SchedulerLike,
  startedAt: number,
  answer: HookResult,
): HookRun => {
  const redacted = redactResult(isForeign(hook.dialect) ? answer : readCoshAnswer(answer, hook.name));
  const result =
    event.hook_event_name === 'BeforeModel' ? checkToolRewrites(event.llm_request, redacted) : redacted;
  return {
    hook,
    result,
    effective: effectiveDecision(event.hook_event_name, hook, result),
    durationMs: Math.max(0, Math.round(scheduler.now() - startedAt)),
  };
};
