import { concatWith, defer, EMPTY, from, tap, type Observable, type ObservableInput } from 'rxjs';
import type { MatchedEvent } from '../../operators/matchHooks.js';
import type { Observation } from '../../operators/runObservers.js';
import type { HookEvent } from '../events/codecs.js';
import type { HookDecision, OutputLine } from '../output/lines.js';
import type { HookRun } from '../protocol/aggregate.js';
import type { Hook } from '../registry/hook.js';
import { auditIds, decisionRecords, eventReceivedRecord, hookResultRecord } from './build.js';
import type { AuditRecord } from './records.js';

/** What auditing one event needs from the run around it. */
export interface EventAudit {
  /** Whether anyone listens to the audit stream now (records are built only then). */
  readonly auditing: () => boolean;
  /** Puts a record on the audit stream, at once, in order. */
  readonly emit: (record: AuditRecord) => void;
  /** The observers of an event (`observersFor`, or none when the registry has none). */
  readonly observersOf: (event: HookEvent) => readonly Hook[];
  /** Hands a decided event to its observers. */
  readonly observe: (observation: Observation) => void;
  /** `event_received` carries the tool input and prompt, redacted. */
  readonly content: boolean;
  /** The scheduler's clock. */
  readonly now: () => number;
}

/** Runs one event's chain; `onRun` is called with each hook run as it finishes. */
export type RunChain = (onRun?: (run: HookRun) => void) => ObservableInput<OutputLine>;

/**
 * One event's lines with its audit around them (docs/audit.md): `event_received` before the
 * chain starts, a `hook_result` as each hook ends (before its notification), and, once the
 * decision line has been delivered, a `hook_skipped` per unstarted hook and the `decision` record;
 * then the event goes to its observers. Nothing here waits: records are pushed as they are made,
 * and observers start only after the host has its decision. With no listener and no observer the
 * chain runs exactly as without this wrapper.
 */
export const auditEvent = (job: MatchedEvent, runChain: RunChain, audit: EventAudit): ObservableInput<OutputLine> => {
  const auditing = audit.auditing();
  const observers = audit.observersOf(job.event);
  if (!auditing && observers.length === 0) return runChain();
  const ids = auditIds(job.seq, job.event);
  const receivedAt = audit.now();
  let position = 0;
  if (auditing) {
    audit.emit(eventReceivedRecord(job.seq, job.event, job.chain, observers, receivedAt, audit.content));
  }
  const onRun = auditing
    ? (run: HookRun) => audit.emit(hookResultRecord(ids, run, position++, audit.now()))
    : undefined;
  let decided: HookDecision | undefined;
  const lines$: Observable<OutputLine> = from(runChain(onRun));
  return lines$.pipe(
    tap((line) => {
      if (line.type === 'hook_decision') decided = line;
    }),
    concatWith(
      defer(() => {
        if (decided === undefined) return EMPTY;
        if (auditing) for (const record of decisionRecords(ids, decided, receivedAt, audit.now())) audit.emit(record);
        if (observers.length > 0) audit.observe({ ids, event: job.event, decision: decided, observers });
        return EMPTY;
      }),
    ),
  );
};
