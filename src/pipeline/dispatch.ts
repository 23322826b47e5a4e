import { Subject, type Observable, type Subscription } from 'rxjs';
import type { AuditRecord } from '../audit/records.js';
import { describeThrown } from '../events/untrusted.js';
import type { HookDecision, HookNotification, OutputLine } from '../output/lines.js';
import type { Registry } from '../registry/hook.js';
import { hookPipeline, type PipelineDeps, type PipelineOptions } from './pipeline.js';

/** The answer to one `dispatch`: the decision and the notifications that came before it. */
export interface DispatchResult {
  readonly decision: HookDecision;
  readonly notifications: readonly HookNotification[];
}

/** Thrown (as a rejection) by `dispatch` for an input that is not a valid event. */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
}

/** A promise-style front end of the engine, made by `createDispatcher`. */
export interface Dispatcher {
  /** Runs one event through the chain; resolves with its decision. Calls are queued in order. */
  dispatch(event: unknown): Promise<DispatchResult>;
  /** Cancels running hooks and rejects pending calls. */
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
  const input = new Subject<unknown>();
  const pending: Pending[] = [];
  const settle = (line: OutputLine) => {
    const head = pending[0];
    if (head === undefined) return;
    if (line.type === 'stream_event') {
      head.notifications.push(line);
      return;
    }
    pending.shift();
    if (line.type === 'hook_decision') head.resolve({ decision: line, notifications: head.notifications });
    else head.reject(new InvalidEventError(line.message));
  };
  const rejectAll = (reason: string) => {
    for (const call of pending.splice(0)) call.reject(new Error(reason));
  };
  // With an error handler: an error inside the engine must reach the pending calls as rejections,
  // never the host as an uncaught exception (SPEC §7). The pipeline answers every event, so this
  // handler is the last line of defence, not a path taken in normal operation.
  const streams = hookPipeline(registry, deps, { ...options, concurrency: 'sequential' })(input);
  const subscription: Subscription = streams.output$.subscribe({
    next: settle,
    error: (error: unknown) => rejectAll(`dispatcher stopped by an internal error: ${describeThrown(error)}`),
  });
  return {
    dispatch: (event) =>
      new Promise<DispatchResult>((resolve, reject) => {
        // Closed by close(), or ended by an internal error: either way nothing would answer.
        if (subscription.closed) {
          reject(new Error('dispatcher is closed'));
          return;
        }
        pending.push({ resolve, reject, notifications: [] });
        input.next(event);
      }),
    close: () => {
      subscription.unsubscribe();
      rejectAll('dispatcher closed before the decision');
    },
    audit$: streams.audit$,
  };
};
