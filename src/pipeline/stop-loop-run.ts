import { from, type ObservableInput } from 'rxjs';
import { guardStopLoops } from '../../operators/guardStopLoops.js';
import type { MatchedEvent } from '../../operators/matchHooks.js';
import type { OutputLine } from '../output/lines.js';
import {
  blockedInARow,
  createStopLoopLedger,
  forgetSession,
  recordStopDecision,
  withStopHookActive,
  type StopLoopLedger,
} from '../protocol/stop-loop.js';

/**
 * One event's lines with the Stop-loop guard around them (docs/protocol.md, "Stop loops"). Only
 * the events the guard reads cost anything: a new prompt and the end of a session forget the
 * session's count, a Stop or SubagentStop gets `stop_hook_active` and its decision recorded. Every
 * other event goes to `run` as it is. One ledger per run of the engine (`guardedRunner`), read and
 * written as events are decided: one session's events never overlap (docs/protocol.md), so its count is
 * always that of the events before it.
 */
export const runGuarded = (
  ledger: StopLoopLedger,
  job: MatchedEvent,
  run: (job: MatchedEvent) => ObservableInput<OutputLine>,
): ObservableInput<OutputLine> => {
  const name = job.event.hook_event_name;
  if (name === 'UserPromptSubmit' || name === 'SessionEnd') {
    if (ledger.sessions.size > 0) forgetSession(ledger, job.event.session_id);
    return run(job);
  }
  if (name !== 'Stop' && name !== 'SubagentStop') return run(job);
  if (job.chain.length === 0) {
    // No hook, no block: the loop (if any) ends here, and nothing needs watching.
    if (blockedInARow(ledger, job.event) > 0) recordStopDecision(ledger, job.event, { decision: 'none' });
    return run(job);
  }
  const event = withStopHookActive(ledger, job.event);
  const prepared = event === job.event ? job : { ...job, event };
  return from(run(prepared)).pipe(guardStopLoops(ledger, event));
};

/** The guard with a fresh ledger (one per run of the pipeline or per session): `run` runs the job it is given. */
export const guardedRunner = (
  limit: number | undefined,
): ((
  job: MatchedEvent,
  run: (job: MatchedEvent) => ObservableInput<OutputLine>,
) => ObservableInput<OutputLine>) => {
  const ledger = createStopLoopLedger(limit);
  return (job, run) => runGuarded(ledger, job, run);
};
