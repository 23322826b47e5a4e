import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SchedulerLike } from 'rxjs';
import { describeThrown, type JsonObject } from '../events/untrusted.js';
import type { RequestId } from './mapping.js';
import type { Flow } from './stdio-upstream.js';

const hasFlow = (transport: Transport): transport is Transport & Flow =>
  typeof (transport as Partial<Flow>).flow === 'function';

/** How long the end of a connection waits for a client's first word, or for the client to read. */
const GRACE_MS = 5_000;

/** `promise`, or at most `ms` on the scheduler: nothing at the end of a connection waits forever. */
export const within = (scheduler: SchedulerLike, ms: number, promise: Promise<unknown>): Promise<void> =>
  new Promise<void>((resolve) => {
    const timer = scheduler.schedule(() => resolve(), ms);
    void promise.then(() => {
      timer.unsubscribe();
      resolve();
    });
  });

/**
 * The writes to the client: each message with the request it belongs to (`relatedRequestId`, the
 * stream it goes on over HTTP), and backpressure: past `maxPending` writes the client has not
 * taken, the upstream is no longer read, so a slow reader never costs unbounded memory.
 */
export class Outbox {
  private readonly sends = new Set<Promise<void>>();

  constructor(
    private readonly client: Transport,
    private readonly upstream: Transport,
    private readonly warn: (text: string) => void,
    private readonly scheduler: SchedulerLike,
    private readonly maxPending = 256,
  ) {}

  send(message: JsonObject, related?: RequestId): void {
    const options: TransportSendOptions | undefined =
      related === undefined ? undefined : { relatedRequestId: related };
    if (this.sends.size + 1 === this.maxPending && hasFlow(this.upstream)) this.upstream.flow(false);
    const sent = this.client
      .send(message as JSONRPCMessage, options)
      .catch((error: unknown) => this.warn(`cannot send to the client: ${describeThrown(error)}`))
      .finally(() => {
        this.sends.delete(sent);
        if (this.sends.size === this.maxPending - 1 && hasFlow(this.upstream)) this.upstream.flow(true);
      });
    this.sends.add(sent);
  }

  /**
   * Closes the client's transport once `before` resolves (the client's first request answered) and
   * every write so far is taken, each waited for at most GRACE_MS.
   */
  async close(before: Promise<void>): Promise<void> {
    await within(this.scheduler, GRACE_MS, before);
    await within(this.scheduler, GRACE_MS, Promise.all(this.sends));
    await this.client.close().catch(() => undefined);
  }
}
