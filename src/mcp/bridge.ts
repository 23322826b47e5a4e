import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { asyncScheduler, firstValueFrom, type SchedulerLike } from 'rxjs';
import { describeThrown, type JsonObject } from '../events/untrusted.js';
import type { OutputLine } from '../output/lines.js';
import type { Session } from '../pipeline/session.js';
import { Confirmations } from './confirmations.js';
import { Background, deciding, Gates } from './gate.js';
import {
  callOf,
  canElicit,
  cancelled,
  cancelledId,
  ERROR,
  errorResponse,
  isId,
  progressTokenOf,
  protocolVersionOf,
  sessionEnd,
  sessionStart,
  toolsOf,
  type CallContext,
  type RequestId,
} from './mapping.js';
import { IdleDeadline } from './idle.js';
import { Outbox } from './outbox.js';
import { PendingRequests } from './pending.js';

/** What one client connection needs: its ids, the engine, its limits, and where warnings go. */
export interface BridgeOptions {
  readonly context: CallContext;
  /** The engine, made with `concurrency: 'per-session'`: connections go side by side. */
  readonly session: Session;
  /** How long the upstream may take to answer a request (a progress notification restarts it). */
  readonly requestTimeoutMs: number;
  /** A line for the proxy's stderr. */
  readonly warn: (text: string) => void;
  /** Every line the engine gives (notifications, decisions): for the foreign-dialect warnings. */
  readonly onLine?: (line: OutputLine) => void;
  /** Where deadlines are kept (default: the async scheduler); virtual time in tests. */
  readonly scheduler?: SchedulerLike;
  /** With nothing pending and nothing from the client for this long, the connection ends (HTTP). */
  readonly idleMs?: number;
  /** The tools of each `tools/list` answer, by the upstream's names. */
  readonly onTools?: (tools: readonly string[]) => void;
  /** A `tools/call` without an id (a notification), which is never forwarded. */
  readonly onUnansweredCall?: (tool: string) => void;
}

/** One client connection, bridged to its upstream. */
export interface Bridge {
  /** Resolves once the connection is over, with why it ended and whether the upstream ended it. */
  readonly ended: Promise<{ readonly reason: string; readonly byUpstream: boolean }>;
  /** Ends the connection (the proxy stops): pending requests get an error, SessionEnd runs. */
  close(reason: string): Promise<void>;
}

/**
 * Bridges an MCP client and its upstream server, message by message: the router. Everything passes
 * through as written, ids included (docs/mcp.md), except: a `tools/call` goes through its gate
 * (`gate.ts`: pre → ask → upstream → post); a request sent upstream waits in `PendingRequests`
 * (`pending.ts`: ids, progress, deadlines); an `initialize` also starts SessionStart; a
 * cancellation of a call the upstream has not seen stops its gate instead of being forwarded.
 */
export const bridge = (client: Transport, upstream: Transport, options: BridgeOptions): Bridge => {
  const { context } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  const outbox = new Outbox(client, upstream, options.warn, scheduler);
  const decide = deciding(options.session, options.onLine);
  const background = new Background(decide);
  const pending = new PendingRequests({
    scheduler,
    timeoutMs: options.requestTimeoutMs,
    timedOut: (request, message) =>
      void upstream.send(cancelled(request.id, message) as JSONRPCMessage).catch(() => undefined),
  });
  let started = false;
  let upstreamError: string | undefined;
  let heard = false; // whether the client has said anything (see `end`)
  let firstWord: (() => void) | undefined;
  let endMessage = '';
  let ending: Promise<void> | undefined;
  let resolveEnded: (value: { reason: string; byUpstream: boolean }) => void = () => undefined;
  const ended = new Promise<{ reason: string; byUpstream: boolean }>((resolve) => (resolveEnded = resolve));

  const toClient = (message: JsonObject, related?: RequestId): void => {
    // An answer counts as activity; the server's own notifications do not keep a session alive.
    if (message['method'] === undefined) idle.touch();
    outbox.send(message, related);
  };
  const confirms = new Confirmations(toClient);

  const toUpstream = (message: JsonObject): void => {
    upstream.send(message as JSONRPCMessage).catch((error: unknown) => void end(describeThrown(error), true));
  };

  /** Sends a request upstream; `settle` gets the answer, or the error response made for it here. */
  const forward = (message: JsonObject, id: RequestId, settle: (response: JsonObject) => void): void => {
    if (ending !== undefined) return settle(errorResponse(id, ERROR.connectionClosed, endMessage));
    pending.add(id, message, settle);
    upstream.send(message as JSONRPCMessage).catch((error: unknown) => {
      // An upstream that cannot be reached (its transport names it and the cause) ends the connection.
      const reason = describeThrown(error);
      pending.fail(id, ERROR.connectionClosed, `cosh-hooks mcp-proxy: ${reason}`);
      void end(reason, true);
    });
  };

  const gates = new Gates(
    {
      context,
      decide,
      background: (event) => background.run(event),
      upstream: (id, message) => pending.awaiting(id, (settle) => forward(message, id, settle)),
      confirm: (callId, tool, input, reason) => confirms.ask(callId, tool, input, reason),
    },
    toClient,
  );
  const idle = new IdleDeadline(
    scheduler,
    options.idleMs,
    () => gates.size + pending.size > 0,
    (ms) => void end(`the session was idle for ${ms} ms`, false),
  );

  /** The answer to a request other than `tools/call`. */
  const answered = (method: string, response: JsonObject): void => {
    const tools = method === 'tools/list' ? toolsOf(response) : undefined;
    if (tools !== undefined) options.onTools?.(tools);
    // An HTTP upstream sends the version on every request after this (its SDK client would).
    const version = method === 'initialize' ? protocolVersionOf(response) : undefined;
    if (version !== undefined) upstream.setProtocolVersion?.(version);
    toClient(response);
  };

  const cancel = (message: JsonObject): void => {
    const requestId = cancelledId(message);
    if (requestId === undefined) return toUpstream(message);
    // Only what the upstream has seen is cancelled there; a call's gate is stopped (its hook killed).
    const seen = pending.take(requestId) !== undefined;
    if (!gates.stop(requestId) || seen) toUpstream(message);
  };

  const request = (message: JsonObject, method: string, id: RequestId): void => {
    // An id still in use would cross two answers: the second request is refused.
    if (gates.has(id) || pending.has(id))
      return toClient(
        errorResponse(id, ERROR.invalidRequest, `request id ${JSON.stringify(id)} is already in use`),
      );
    if (method === 'tools/call') {
      const parsed = callOf(message['params']);
      if (!parsed.ok) return toClient(errorResponse(id, ERROR.invalidParams, parsed.message));
      return gates.open({ id, tool: parsed.tool, input: parsed.input, message });
    }
    if (method === 'initialize') {
      confirms.enabled = canElicit(message['params']);
      if (!started) background.run(sessionStart(context));
      started = true;
    }
    forward(message, id, (response) => answered(method, response));
  };

  const fromClient = (message: JsonObject): void => {
    const { method, id } = message;
    heard = true;
    if (ending !== undefined) {
      // A request that comes while the connection ends still gets its answer: why it ended.
      if (typeof method === 'string' && isId(id))
        toClient(errorResponse(id, ERROR.connectionClosed, endMessage));
      return firstWord?.();
    }
    idle.touch();
    if (typeof method === 'string' && isId(id)) return request(message, method, id);
    if (method === 'tools/call') {
      // A notification has no answer to withhold: the call is never forwarded, and it is said.
      const parsed = callOf(message['params']);
      return options.onUnansweredCall?.(parsed.ok ? parsed.tool : '(no tool name)');
    }
    if (method === 'notifications/cancelled') return cancel(message);
    if (method === undefined && isId(id) && confirms.answer(id, message)) return;
    toUpstream(message);
  };

  const fromUpstream = (message: JsonObject): void => {
    if (ending !== undefined) return;
    const { method, id } = message;
    if (method === 'notifications/progress') {
      const token = progressTokenOf({ _meta: message['params'] });
      return toClient(message, token === undefined ? undefined : pending.progressed(token));
    }
    if (typeof method === 'string') return toClient(message, pending.only());
    if (!isId(id)) return toClient(message);
    // An answer after its request was cancelled or timed out: the client no longer waits for it.
    pending.take(id)?.(message);
  };

  const end = (reason: string, byUpstream: boolean): Promise<void> => {
    if (ending !== undefined) return ending;
    idle.stop();
    endMessage = `cosh-hooks mcp-proxy: ${reason}`;
    ending = (async () => {
      // `ending` is set before any step runs: closing a transport calls back into `end` at once.
      await Promise.resolve();
      try {
        pending.failAll(ERROR.connectionClosed, endMessage);
        for (const id of gates.stopAll()) toClient(errorResponse(id, ERROR.connectionClosed, endMessage));
        await upstream.close().catch(() => undefined);
        if (started) await firstValueFrom(decide(sessionEnd(context, reason)), { defaultValue: undefined });
        background.stop();
        // An upstream that failed before the client said anything: its first request gets the reason.
        await outbox.close(
          new Promise<void>((resolve) => (byUpstream && !heard ? (firstWord = resolve) : resolve())),
        );
      } finally {
        resolveEnded({ reason, byUpstream });
      }
    })();
    return ending;
  };

  upstream.onmessage = (message) => fromUpstream(message as JsonObject);
  // The upstream's last error is why it closed, when it closes after one.
  upstream.onerror = (error) => options.warn((upstreamError = error.message));
  upstream.onclose = () => void end(upstreamError ?? 'the upstream server closed the connection', true);
  client.onmessage = (message) => fromClient(message as JsonObject);
  client.onerror = (error) => options.warn(`client: ${error.message}`);
  client.onclose = () => {
    firstWord?.();
    void end('the client closed the connection', false);
  };

  idle.touch();
  const starting = (async () => {
    try {
      await upstream.start();
      await client.start();
    } catch (error) {
      await end(`cannot start: ${describeThrown(error)}`, true);
    }
  })();

  return {
    ended,
    close: async (reason) => {
      await starting;
      await end(reason, false);
    },
  };
};
