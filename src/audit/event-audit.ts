import { from, Observable, type ObservableInput } from 'rxjs';
import { DirectObserver } from '../chain/direct-observer.js';
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
  // An event without hooks is answered with an array: a generator delivers it, then, asked for
  // the next item, does the audit (cheaper than an Observable pipeline on the no-hook path).
  if (Array.isArray(lines)) return linesThen(lines as readonly OutputLine[], afterDecision);
  return linesThenObservable(lines, (decided) => afterDecision(decided, false));
};

/**
 * The lines of a chain, then `after` with its decision once every line (the decision last) was
 * delivered, before the output completes. Written by hand (docs/performance.md, "Hand-written hot
 * paths"): a `tap` around the chain was an operator subscription per audited event (row 9b).
 * The observer is linked to the output before subscribing, so an output closed while the chain
 * emits synchronously stops the chain at once, as under an operator.
 */
const linesThenObservable = (
  lines: ObservableInput<OutputLine>,
  after: (decided: HookDecision) => void,
): Observable<OutputLine> =>
  new Observable<OutputLine>((subscriber) => {
    let decided: HookDecision | undefined;
    const chain = new DirectObserver<OutputLine>({
      next: (line) => {
        if (line.type === 'hook_decision') decided = line;
        subscriber.next(line);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        // A DirectObserver does not catch for its handlers: what the audit step throws ends this
        // stream with an error, as a `tap` did, and never escapes into the chain's timer.
        try {
          if (decided !== undefined) after(decided);
        } catch (error) {
          return subscriber.error(error);
        }
        subscriber.complete();
      },
    });
    subscriber.add(chain);
    from(lines).subscribe(chain);
  });

function* linesThen(
  lines: readonly OutputLine[],
  after: (decided: HookDecision, answeredAtOnce: true) => void,
): Generator<OutputLine> {
  let decided: HookDecision | undefined;
  for (const line of lines) {
    if (line.type === 'hook_decision') decided = line;
    yield line;
  }
  if (decided !== undefined) after(decided, true);
}
