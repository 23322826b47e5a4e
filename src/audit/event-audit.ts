import { concatWith, defer, EMPTY, from, tap, type ObservableInput } from 'rxjs';
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
 * One event's lines with its audit after them (docs/audit.md). While the chain runs, only times
 * are taken (the event's arrival, each hook's end); once the decision line has been delivered,
 * the records are built and pushed in order: `event_received`, a `hook_result` per hook that ran,
 * a `hook_skipped` per hook a block left unstarted, the `decision`. Then the event goes to its
 * observers. So a record never delays a decision, whatever its subscriber does, and observers start
 * only after the host has its answer. With no listener and no observer the chain runs exactly as
 * without this wrapper.
 */
export const auditEvent = (
  job: MatchedEvent,
  runChain: RunChain,
  audit: EventAudit,
): ObservableInput<OutputLine> => {
  const auditing = audit.auditing();
  // Without a listener, the observers decide whether there is anything to do; with one, which
  // observers the event meets is looked up after its decision, off the decision's path (row 9).
  let observers: readonly Hook[] | undefined = auditing ? undefined : audit.observersOf(job.event);
  if (observers !== undefined && observers.length === 0) return runChain();
  const ended: { readonly run: HookRun; readonly endMs: number }[] = [];
  const onRun =
    auditing && job.chain.length > 0
      ? (run: HookRun) => void ended.push({ run, endMs: audit.now() })
      : undefined;
  // A chain's stream has not started when `runChain` returns; an array is the whole answer, made
  // in the microseconds before: one clock reading is the event's arrival and, for an array, its
  // decision too (docs/audit.md).
  const lines = runChain(onRun);
  const receivedAt = audit.now();
  const afterDecision = (decided: HookDecision, answeredAtOnce: boolean): void => {
    observers ??= audit.observersOf(job.event);
    const ids = auditIds(job.seq, job.event);
    if (auditing) {
      const decidedAt = answeredAtOnce ? receivedAt : audit.now();
      audit.emit(eventReceivedRecord(ids, job.event, job.chain, observers, receivedAt, audit.content));
      ended.forEach(({ run, endMs }, position) => audit.emit(hookResultRecord(ids, run, position, endMs)));
      for (const record of decisionRecords(ids, decided, receivedAt, decidedAt)) audit.emit(record);
    }
    if (observers.length > 0) audit.observe({ ids, event: job.event, decision: decided, observers });
  };
  // An array is the whole answer, made before the clock was read: decided when received.
  const answeredAtOnce = Array.isArray(lines);
  let decided: HookDecision | undefined;
  return from(lines).pipe(
    tap((line) => {
      if (line.type === 'hook_decision') decided = line;
    }),
    // What the audit step throws ends the event's stream with an error (the per-event boundary).
    concatWith(
      defer(() => {
        if (decided !== undefined) afterDecision(decided, answeredAtOnce);
        return EMPTY;
      }),
    ),
  );
};
