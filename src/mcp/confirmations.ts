import { AsyncSubject, defer, finalize, type Observable } from 'rxjs';
import type { JsonObject } from '../events/untrusted.js';
import { cancelled, confirmation, idKey, type RequestId } from './mapping.js';

/**
 * The proxy's own `elicitation/create` requests to the client (ids `cosh-hooks-confirm-N`), each
 * asking the user to confirm a call a hook wants confirmed.
 */
export class Confirmations {
  private readonly waiting = new Map<string, AsyncSubject<JsonObject>>();
  private count = 0;
  /** Whether the client declared it can answer a form elicitation (its `initialize`). */
  enabled = false;

  /** `send` writes to the client, with the call the message belongs to. */
  constructor(private readonly send: (message: JsonObject, related: RequestId) => void) {}

  /**
   * Asks when subscribed; emits the client's answer (undefined when the client cannot be asked). Unsubscribed first (the call was cancelled),
   * the question is withdrawn with a `notifications/cancelled`.
   */
  ask(
    callId: RequestId,
    tool: string,
    input: JsonObject,
    reason: string,
  ): Observable<JsonObject> | undefined {
    if (!this.enabled) return undefined;
    return defer(() => {
      this.count += 1;
      const id = `cosh-hooks-confirm-${this.count}`;
      const answer = new AsyncSubject<JsonObject>();
      this.waiting.set(idKey(id), answer);
      this.send(confirmation(id, tool, input, reason), callId);
      return answer.pipe(
        finalize(() => {
          if (this.waiting.delete(idKey(id))) this.send(cancelled(id, 'the tool call was cancelled'), callId);
        }),
      );
    });
  }

  /** A response from the client: true when it answers one of ours (then it goes no further). */
  answer(id: RequestId, response: JsonObject): boolean {
    const waiting = this.waiting.get(idKey(id));
    if (waiting === undefined) return false;
    this.waiting.delete(idKey(id));
    waiting.next(response);
    waiting.complete();
    return true;
  }
}
