import { concatMap, type MonoTypeOperatorFunction } from 'rxjs';
import type { HookEvent } from '../src/events/codecs.js';
import type { HookDecision, HookNotification, OutputLine } from '../src/output/lines.js';
import {
  recordStopDecision,
  stopLoopMessage,
  type StopLoopIntervention,
  type StopLoopLedger,
} from '../src/protocol/stop-loop.js';

/** The name the guard's notification carries: the engine, not a hook. */
const GUARD_NAME = 'cosh-hooks';

const notificationOf = (
  event: HookEvent,
  decision: HookDecision,
  intervention: StopLoopIntervention,
): HookNotification => ({
  type: 'stream_event',
  event: {
    subtype: 'hook_notification',
    hook_name: GUARD_NAME,
    message: stopLoopMessage(event, intervention),
    decision: 'none',
    hook_event_name: decision.hook_event_name,
    session_id: decision.session_id,
    ...(decision.tool_use_id !== undefined && { tool_use_id: decision.tool_use_id }),
    stop_loop_guard: intervention,
  },
});

/** The decision with the block let through: pass-through, its reason and message kept as data. */
const passedThrough = (decision: HookDecision, intervention: StopLoopIntervention): HookDecision => {
  const { reason: _reason, systemMessage: _message, ...rest } = decision;
  return { ...rest, decision: 'none', stop_loop_guard: intervention };
};

const settle = (ledger: StopLoopLedger, event: HookEvent, line: OutputLine): OutputLine[] => {
  if (line.type !== 'hook_decision') return [line];
  const intervention = recordStopDecision(ledger, event, line);
  return intervention === undefined
    ? [line]
    : [notificationOf(event, line, intervention), passedThrough(line, intervention)];
};

/**
 * The Stop-loop guard on the lines of one `Stop` or `SubagentStop` event (docs/protocol.md, "Stop
 * loops"). Notifications pass as they come; the decision is recorded in `ledger` (blocks in a row
 * per session, per sub-agent on SubagentStop). When it is a block and the loop already holds
 * `ledger.limit` blocks, the decision is let through instead: the guard's notification (hook
 * `cosh-hooks`, decision `none`) comes first, then the decision as pass-through, both carrying
 * `stop_loop_guard` (the limit, the count and the block it overrode). Any decision but block ends
 * the loop. Synchronous: nothing is delayed; errors and completion pass through.
 *
 * ```
 * lines:   --n--d---|    d = a block, the 9th in a row of its session (limit 8)
 * output:  --n--(gD)|    g = the guard's notification, D = d as pass-through with stop_loop_guard
 * ```
 *
 * Example: `from(runEvent(job, deps)).pipe(guardStopLoops(ledger, job.event))`
 */
export const guardStopLoops = (
  ledger: StopLoopLedger,
  event: HookEvent,
): MonoTypeOperatorFunction<OutputLine> => concatMap((line: OutputLine) => settle(ledger, event, line));
