import { Subject, type Observable, type Subscription } from 'rxjs';
import type { AuditRecord } from '../audit/records.js';
import { describeThrown } from '../events/untrusted.js';
import type { EventInput } from '../events/codecs.js';
import type { JsonLine } from '../events/input.js';
import type { HookDecision, HookError, HookNotification, OutputLine } from '../output/lines.js';
import type { Registry } from '../registry/hook.js';
import { hookPipeline, type PipelineDeps, type PipelineOptions } from './pipeline.js';
import { SessionClosedError } from './session.js';

/**
 * The answer to one `dispatch`, as a value whatever the input (docs/architecture.md, "Failures are
 * values"): the event's `decision` and the notifications that came before it, or, for an input
 * that is not a valid event, the `error` line naming the problem (no hook ran). Tell them apart by
 * `error`: `if (result.error) …`.
 */
export type DispatchResult =
  | {
      readonly decision: HookDecision;
      readonly notifications: readonly HookNotification[];
      readonly error?: undefined;
    }
  | {
      readonly error: HookError;
      readonly decision?: undefined;
      readonly notifications: readonly HookNotification[];
    };

/** A promise-style front end of the engine, made by `createDispatcher`. */
export interface Dispatcher {
  /**
   * Runs one event through the chain; resolves with its decision, or with the `error` of an input
   * that is not a valid event. Calls are queued in order. Rejects only when nothing can answer:
   * with `SessionClosedError` once the dispatcher is closed.
   */
  dispatch(event: EventInput | JsonLine): Promise<DispatchResult>;
  /** Cancels running hooks; pending and later calls reject with `SessionClosedError`. Idempotent. */
  close(): void;
  /** The audit stream (docs/audit.md): subscribe before dispatching; records are built only while someone does. */
  readonly audit$: Observable<AuditRecord>;
}

interface Pending {
  readonly resolve: (result: DispatchResult) => void;
  readonly reject: (error: Error) => void;
  readonly notifications: HookNotification[];
}

/**
 * A promise-style front end for hosts that are not reactive, built on the same pipeline: each
 * `dispatch` pushes the event into the stream and resolves when its decision comes out. With the
 * default sequential concurrency, answers come in call order. (Per-session concurrency is not
 * offered here: a decision is matched to its call by order.)
 */
export const createDispatcher = (
  registry: Registry | Observable<Registry>,
  deps: PipelineDeps,
  options: Omit<PipelineOptions, 'concurrency'> = {},
): Dispatcher => {
  const input = new Subject<EventInput | JsonLine>();
  const pending: Pending[] = [];
  const settle = (line: OutputLine) => {
    const head = pending[0];
    if (head === undefined) return;
    if (line.type === 'stream_event') {
      head.notifications.push(line);
      return;
    }
    pending.shift();
    head.resolve(
      line.type === 'hook_decision'
        ? { decision: line, notifications: head.notifications }
        : { error: line, notifications: head.notifications },
    );
  };
  const rejectAll = (error: Error) => {
    for (const call of pending.splice(0)) call.reject(error);
  };
  // With an error handler: an error inside the engine must reach the pending calls as rejections,
  // never the host as an uncaught exception (spec §7). The pipeline answers every event, so this
  // handler is the last line of defence, not a path taken in normal operation.
  const streams = hookPipeline(registry, deps, { ...options, concurrency: 'sequential' })(input);
  const subscription: Subscription = streams.output$.subscribe({
    next: settle,
    error: (error: unknown) =>
      rejectAll(new Error(`dispatcher stopped by an internal error: ${describeThrown(error)}`)),
  });
  return {
    dispatch: (event) =>
      new Promise<DispatchResult>((resolve, reject) => {
        // Closed by close(), or ended by an internal error: either way nothing would answer.
        if (subscription.closed) {
          reject(new SessionClosedError('dispatcher is closed'));
          return;
        }
        pending.push({ resolve, reject, notifications: [] });
        input.next(event);
      }),
    close: () => {
      subscription.unsubscribe();
      rejectAll(new SessionClosedError('dispatcher closed before the decision'));
    },
    audit$: streams.audit$,
  };
};
