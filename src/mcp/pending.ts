import { AsyncSubject, defer, finalize, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { JsonObject } from '../events/untrusted.js';
import { ERROR, errorResponse, idKey, progressTokenOf, type RequestId } from './mapping.js';

/** A request sent upstream and not answered yet. */
export interface PendingRequest {
  readonly id: RequestId;
  readonly method: string;
}

interface Entry extends PendingRequest {
  /** Where its answer goes: the upstream's response, or an error response made here. */
  readonly settle: (response: JsonObject) => void;
  readonly progressToken: RequestId | undefined;
  timer: Subscription | undefined;
}

export interface PendingOptions {
  /** Where deadlines are kept: virtual time in tests. */
  readonly scheduler: SchedulerLike;
  /** How long the upstream may take to answer; a progress notification restarts it. */
  readonly timeoutMs: number;
  /** A request whose deadline passed, after it got its `-32001` (to tell the upstream to stop). */
  readonly timedOut: (request: PendingRequest, message: string) => void;
}

/**
 * The requests the upstream owes an answer, as the SDK's `Protocol` keeps its response handlers,
 * progress handlers and timeouts: correlation by id (`1` and `"1"` are two requests), progress
 * tokens, and a deadline per request on the scheduler. Each request is settled exactly once:
 * with the upstream's answer, or with an error response made here.
 */
export class PendingRequests {
  private readonly byId = new Map<string, Entry>();
  /** Progress token → the key of the request it belongs to. */
  private readonly byToken = new Map<string, string>();

  constructor(private readonly options: PendingOptions) {}

  get size(): number {
    return this.byId.size;
  }

  has(id: RequestId): boolean {
    return this.byId.has(idKey(id));
  }

  /** Waits for the answer to `message` (sent with `id`); `settle` gets it, or the error made here. */
  add(id: RequestId, message: JsonObject, settle: (response: JsonObject) => void): void {
    const entry: Entry = {
      id,
      method: String(message['method']),
      settle,
      progressToken: progressTokenOf(message['params']),
      timer: undefined,
    };
    const key = idKey(id);
    this.byId.set(key, entry);
    if (entry.progressToken !== undefined) this.byToken.set(idKey(entry.progressToken), key);
    this.arm(entry);
  }

  /**
   * Takes `id` out: the caller settles it (with the upstream's answer) or drops it (cancelled).
   * Undefined when nothing waits for it: an answer after a cancellation or a timeout.
   */
  take(id: RequestId): ((response: JsonObject) => void) | undefined {
    const key = idKey(id);
    const entry = this.byId.get(key);
    if (entry === undefined) return undefined;
    this.byId.delete(key);
    entry.timer?.unsubscribe();
    if (entry.progressToken !== undefined) this.byToken.delete(idKey(entry.progressToken));
    return entry.settle;
  }

  /** A progress notification's token: restarts that request's deadline; its id, when one waits. */
  progressed(token: RequestId): RequestId | undefined {
    const key = this.byToken.get(idKey(token));
    const entry = key === undefined ? undefined : this.byId.get(key);
    if (entry === undefined) return undefined;
    this.arm(entry);
    return entry.id;
  }

  /**
   * `send` (which calls `add` and sends) when subscribed; emits the answer to `id`. Unsubscribed
   * before it (the call was cancelled), the answer is no longer awaited.
   */
  awaiting(id: RequestId, send: (settle: (response: JsonObject) => void) => void): Observable<JsonObject> {
    return defer(() => {
      const answer = new AsyncSubject<JsonObject>();
      send((response) => {
        answer.next(response);
        answer.complete();
      });
      return answer.pipe(finalize(() => this.take(id)));
    });
  }

  /** The one request waiting, if there is exactly one: where a server's message belongs on HTTP. */
  only(): RequestId | undefined {
    if (this.byId.size !== 1) return undefined;
    for (const entry of this.byId.values()) return entry.id;
    return undefined;
  }

  /** Settles `id` with an error response made here (the upstream cannot answer it). */
  fail(id: RequestId, code: number, message: string): void {
    this.take(id)?.(errorResponse(id, code, message));
  }

  /** Settles every waiting request with an error response (the connection ends). */
  failAll(code: number, message: string): void {
    for (const { id } of [...this.byId.values()]) this.fail(id, code, message);
  }

  private arm(entry: Entry): void {
    entry.timer?.unsubscribe();
    entry.timer = this.options.scheduler.schedule(() => {
      const message = `the upstream server did not answer within ${this.options.timeoutMs} ms`;
      this.fail(entry.id, ERROR.requestTimeout, message);
      this.options.timedOut(entry, message);
    }, this.options.timeoutMs);
  }
}
