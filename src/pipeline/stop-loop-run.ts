import { from, type ObservableInput } from 'rxjs';
import { guardStopLoops } from '../../operators/guardStopLoops.js';
import type { MatchedEvent } from '../../operators/matchHooks.js';
import type { OutputLine } from '../output/lines.js';
import {
  blockedInARow,
  forgetSession,
  recordStopDecision,
  withStopHookActive,
  type StopLoopLedger,
} from '../protocol/stop-loop.js';

/** Whether the guard watches an event's decision: a Stop or SubagentStop with hooks to block it. */
const watched = (job: MatchedEvent): boolean =>
  (job.event.hook_event_name === 'Stop' || job.event.hook_event_name === 'SubagentStop') &&
  job.chain.length > 0;

/**
 * The Stop-loop guard before an event runs (docs/protocol.md, "Stop loops"), at its turn: a new
 * prompt and the end of a session forget the session's count; a Stop or SubagentStop without
 * hooks ends a loop; one with hooks gets `stop_hook_active` when its session is in a loop. Every
 * other event is returned as it is. One ledger per engine: one session's events never overlap, so
 * its count is always that of the events before it.
 */
export const prepareStop = (ledger: StopLoopLedger, job: MatchedEvent): MatchedEvent => {
  const name = job.event.hook_event_name;
  if (name === 'UserPromptSubmit' || name === 'SessionEnd') {
    if (ledger.sessions.size > 0) forgetSession(ledger, job.event.session_id);
    return job;
  }
  if (name !== 'Stop' && name !== 'SubagentStop') return job;
  if (job.chain.length === 0) {
    // No hook, no block: the loop (if any) ends here, and nothing needs watching.
    if (blockedInARow(ledger, job.event) > 0) recordStopDecision(ledger, job.event, { decision: 'none' });
    return job;
  }
  const event = withStopHookActive(ledger, job.event);
  return event === job.event ? job : { ...job, event };
};

/** The guard after: a watched event's decision is recorded, and a block past the limit let through. */
export const settleStop = (
  ledger: StopLoopLedger,
  job: MatchedEvent,
  lines: ObservableInput<OutputLine>,
): ObservableInput<OutputLine> =>
  watched(job) ? from(lines).pipe(guardStopLoops(ledger, job.event)) : lines;
