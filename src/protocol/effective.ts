import { isInterceptable, type Decision, type EventName } from '../events/names.js';
import { firstNonBlankLine } from './first-line.js';
import { isFailure, type EffectiveDecision, type HookFailure, type HookResult } from './result.js';

export { firstNonBlankLine } from './first-line.js';

/** The block reason of a fail_closed hook: its first stderr line, else a sentence naming the failure. */
export const failClosedReason = (hookName: string, result: HookFailure): string =>
  firstNonBlankLine(result.stderr) ?? `hook "${hookName}" failed closed: ${result.message}`;

/**
 * The decision a hook's result counts as for `event` (spec §4.5, §4.6): a decision the event does
 * not intercept is pass-through; a failure is pass-through, or block when the hook is fail_closed
 * (or the failure is another agent's block, `foreign`: a cosh hook's exit 2 with a reason on
 * stderr, docs/compat.md) and the event intercepts block.
 */
export const effectiveDecision = (
  event: EventName,
  hook: { readonly name: string; readonly failClosed: boolean },
  result: HookResult,
): EffectiveDecision => {
  if (isFailure(result)) {
    return (hook.failClosed || result.foreign !== undefined) && isInterceptable(event, 'block')
      ? { decision: 'block', reason: failClosedReason(hook.name, result) }
      : { decision: 'none' };
  }
  const decision: Decision = isInterceptable(event, result.output.decision) ? result.output.decision : 'none';
  return result.output.reason === undefined ? { decision } : { decision, reason: result.output.reason };
};
