import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { catchError, firstValueFrom, map, of, reduce, tap, type Observable, type Subscription } from 'rxjs';
import {
  decidedFrom,
  engineFailure,
  resultGate,
  toolGate,
  type Decided,
  type ToolGate,
} from '../host/gates.js';
import type { EventInput } from '../events/codecs.js';
import { describeThrown, isJsonObject, type JsonObject } from '../events/untrusted.js';
import type { OutputLine } from '../output/lines.js';
import type { Session } from '../pipeline/session.js';
import {
  callOf,
  canElicit,
  cancelled,
  confirmation,
  confirmationRequired,
  confirmed,
  ERROR,
  errorMessage,
  errorResponse,
  errorResult,
  idKey,
  postToolUse,
  postToolUseFailure,
  preToolUse,
  progressTokenOf,
  replacementResult,
  resultResponse,
  sessionEnd,
  sessionStart,
  toolName,
  type CallContext,
  type RequestId,
} from './mapping.js';
import type { Flow } from './stdio-upstream.js';

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
  /** Writes to the client not yet taken by it, past which the upstream is no longer read. */
  readonly maxPendingWrites?: number;
}

/** One client connection, bridged to its upstream. */
export interface Bridge {
  /** Resolves once the connection is over, with why it ended and whether the upstream ended it. */
  readonly ended: Promise<{ readonly reason: string; readonly byUpstream: boolean }>;
  /** Ends the connection (the proxy stops): pending requests get an error, SessionEnd runs. */
  close(reason: string): Promise<void>;
}

/** A `tools/call` the proxy holds: its hooks, its confirmation, or its answer from upstream. */
interface Call {
  readonly id: RequestId;
  readonly tool: string;
  readonly message: JsonObject;
  input: JsonObject;
  phase: 'pre' | 'ask' | 'upstream' | 'post';
  hook: Subscription | undefined;
  confirmId: RequestId | undefined;
}

/** A client request sent upstream and not answered yet. */
interface Forwarded {
  readonly id: RequestId;
  readonly method: string;
  readonly call: Call | undefined;
  readonly progressToken: RequestId | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const isId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

const hasFlow = (transport: Transport): transport is Transport & Flow =>
  typeof (transport as Partial<Flow>).flow === 'function';

/**
 * Bridges an MCP client and its upstream server, message by message, with the hooks in between
 * (docs/mcp.md). Everything passes through as written, ids included, except: a `tools/call` waits
 * for PreToolUse (and a confirmation when a hook asks) and its answer for PostToolUse; an
 * `initialize` also starts SessionStart; a cancellation of a call the upstream has not seen stops
 * its hook instead of being forwarded. Both sides are SDK transports.
 */
export const bridge = (client: Transport, upstream: Transport, options: BridgeOptions): Bridge => {
  const { context, session } = options;
  const maxPendingWrites = options.maxPendingWrites ?? 256;
  const calls = new Map<string, Call>();
  const forwarded = new Map<string, Forwarded>();
  /** Progress token → the forwarded request it belongs to. */
  const progress = new Map<string, string>();
  /** Our own `elicitation/create` requests to the client, by id. */
  const confirms = new Map<string, (response: JsonObject) => void>();
  const background = new Set<Subscription>();
  let elicit = false;
  let started = false;
  let confirmCount = 0;
  let pendingWrites = 0;
  let upstreamError: string | undefined;
  let ending: Promise<void> | undefined;
  let resolveEnded: (value: { reason: string; byUpstream: boolean }) => void = () => undefined;
  const ended = new Promise<{ reason: string; byUpstream: boolean }>((resolve) => (resolveEnded = resolve));

  const decided$ = (event: EventInput): Observable<Decided> =>
    session.decide(event).pipe(
      tap((line) => options.onLine?.(line)),
      reduce<OutputLine, OutputLine | undefined>((_, line) => line, undefined),
      map(decidedFrom),
      catchError((error: unknown) => of(engineFailure(error))),
    );

  /** An event whose decision changes nothing here: runs until it ends or the connection does. */
  const inBackground = (event: EventInput): void => {
    let done = false;
    const subscription = decided$(event).subscribe({ complete: () => (done = true) });
    // An event without hooks is decided before `subscribe` returns: nothing to hold then.
    if (done) return;
    background.add(subscription);
    subscription.add(() => background.delete(subscription));
  };

  const toClient = (message: JsonObject, related?: RequestId): void => {
    const sendOptions: TransportSendOptions | undefined =
      related === undefined ? undefined : { relatedRequestId: related };
    pendingWrites += 1;
    if (pendingWrites === maxPendingWrites && hasFlow(upstream)) upstream.flow(false);
    client
      .send(message as JSONRPCMessage, sendOptions)
      .catch((error: unknown) => options.warn(`cannot send to the client: ${describeThrown(error)}`))
      .finally(() => {
        pendingWrites -= 1;
        if (pendingWrites === maxPendingWrites - 1 && hasFlow(upstream)) upstream.flow(true);
      });
  };

  const take = (key: string): Forwarded | undefined => {
    const entry = forwarded.get(key);
    if (entry === undefined) return undefined;
    forwarded.delete(key);
    clearTimeout(entry.timer);
    if (entry.progressToken !== undefined) progress.delete(idKey(entry.progressToken));
    return entry;
  };

  /** A request that will get no answer from upstream: the client gets `message` instead. */
  const failRequest = (entry: Forwarded, code: number, message: string): void => {
    if (entry.call !== undefined) {
      calls.delete(idKey(entry.id));
      const { call } = entry;
      inBackground(postToolUseFailure(context, call.tool, call.input, call.id, message));
    }
    toClient(errorResponse(entry.id, code, message));
  };

  const arm = (key: string, entry: Forwarded): void => {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (take(key) === undefined) return;
      const message = `the upstream server did not answer within ${options.requestTimeoutMs} ms`;
      void upstream.send(cancelled(entry.id, message) as JSONRPCMessage).catch(() => undefined);
      failRequest(entry, ERROR.requestTimeout, message);
    }, options.requestTimeoutMs);
  };

  const forward = (message: JsonObject, id: RequestId, call?: Call): void => {
    if (ending !== undefined) return;
    const key = idKey(id);
    const entry: Forwarded = {
      id,
      method: String(message['method']),
      call,
      progressToken: progressTokenOf(message['params']),
      timer: undefined,
    };
    forwarded.set(key, entry);
    if (entry.progressToken !== undefined) progress.set(idKey(entry.progressToken), key);
    arm(key, entry);
    upstream.send(message as JSONRPCMessage).catch((error: unknown) => {
      if (take(key) !== undefined)
        failRequest(entry, ERROR.connectionClosed, `the upstream server: ${describeThrown(error)}`);
    });
  };

  const toUpstream = (message: JsonObject): void => {
    upstream
      .send(message as JSONRPCMessage)
      .catch((error: unknown) =>
        options.warn(`cannot send to the upstream server: ${describeThrown(error)}`),
      );
  };

  const deny = (call: Call, reason: string): void => {
    calls.delete(idKey(call.id));
    toClient(resultResponse(call.id, errorResult(reason)));
  };

  const run = (call: Call, input: JsonObject): void => {
    call.phase = 'upstream';
    call.input = input;
    const params = isJsonObject(call.message['params']) ? call.message['params'] : {};
    forward({ ...call.message, params: { ...params, arguments: input } }, call.id, call);
  };

  const ask = (call: Call, input: JsonObject, reason: string): void => {
    if (!elicit) {
      deny(call, confirmationRequired(reason));
      return;
    }
    call.phase = 'ask';
    confirmCount += 1;
    const confirmId = `cosh-hooks-confirm-${confirmCount}`;
    call.confirmId = confirmId;
    confirms.set(idKey(confirmId), (response) => {
      call.confirmId = undefined;
      const answer = confirmed(response, reason);
      if (answer.ok) run(call, input);
      else deny(call, answer.reason);
    });
    toClient(confirmation(confirmId, toolName(context.server.name, call.tool), input, reason), call.id);
  };

  const gated = (call: Call, gate: ToolGate): void => {
    call.hook = undefined;
    if (gate.action === 'deny') deny(call, gate.reason);
    else if (gate.action === 'ask') ask(call, gate.input, gate.reason);
    else run(call, gate.input);
  };

  const toolCall = (message: JsonObject, id: RequestId): void => {
    const parsed = callOf(message['params']);
    if (!parsed.ok) {
      toClient(errorResponse(id, ERROR.invalidParams, parsed.message));
      return;
    }
    const key = idKey(id);
    const call: Call = {
      id,
      tool: parsed.tool,
      message,
      input: parsed.input,
      phase: 'pre',
      hook: undefined,
      confirmId: undefined,
    };
    calls.set(key, call);
    const hook = decided$(preToolUse(context, parsed.tool, parsed.input, id)).subscribe((decided) =>
      gated(call, toolGate(parsed.input, decided)),
    );
    if (!hook.closed) call.hook = hook;
  };

  /** The upstream's answer to a call: PostToolUse (or PostToolUseFailure) before the client sees it. */
  const answered = (call: Call, response: JsonObject): void => {
    call.phase = 'post';
    const key = idKey(call.id);
    if (response['error'] !== undefined) {
      calls.delete(key);
      inBackground(postToolUseFailure(context, call.tool, call.input, call.id, errorMessage(response)));
      toClient(response);
      return;
    }
    const event = postToolUse(context, call.tool, call.input, call.id, response['result']);
    const hook = decided$(event).subscribe((decided) => {
      calls.delete(key);
      const gate = resultGate(decided);
      if (gate.action === 'keep') toClient(response);
      else if (gate.action === 'replace') toClient(resultResponse(call.id, replacementResult(gate.response)));
      else toClient(resultResponse(call.id, errorResult(gate.reason)));
    });
    call.hook = hook.closed ? undefined : hook;
  };

  const cancel = (message: JsonObject): void => {
    const params = message['params'];
    const requestId = isJsonObject(params) ? params['requestId'] : undefined;
    if (!isId(requestId)) {
      toUpstream(message);
      return;
    }
    const key = idKey(requestId);
    const call = calls.get(key);
    if (call !== undefined) {
      // A cancelled call's hook is stopped (a command hook's process group is killed).
      call.hook?.unsubscribe();
      calls.delete(key);
      if (call.confirmId !== undefined) {
        confirms.delete(idKey(call.confirmId));
        toClient(cancelled(call.confirmId, 'the tool call was cancelled'), call.id);
      }
    }
    // Only what the upstream has seen is cancelled there.
    if (take(key) !== undefined || call === undefined) toUpstream(message);
  };

  const fromClient = (message: JsonObject): void => {
    if (ending !== undefined) return;
    const { method, id } = message;
    if (typeof method === 'string' && isId(id)) {
      // An id still in use would cross two answers: the second request is refused.
      if (calls.has(idKey(id)) || forwarded.has(idKey(id)))
        return toClient(
          errorResponse(id, ERROR.invalidRequest, `request id ${JSON.stringify(id)} is already in use`),
        );
      if (method === 'tools/call') return toolCall(message, id);
      if (method === 'initialize') {
        elicit = canElicit(message['params']);
        if (!started) {
          started = true;
          inBackground(sessionStart(context));
        }
      }
      return forward(message, id);
    }
    if (method === 'notifications/cancelled') return cancel(message);
    if (typeof method !== 'string' && isId(id)) {
      const confirm = confirms.get(idKey(id));
      if (confirm !== undefined) {
        confirms.delete(idKey(id));
        return confirm(message);
      }
    }
    toUpstream(message);
  };

  /** The one request waiting for upstream, if there is exactly one: where its server's messages belong on HTTP. */
  const onlyPending = (): RequestId | undefined => {
    if (forwarded.size !== 1) return undefined;
    for (const entry of forwarded.values()) return entry.id;
    return undefined;
  };

  const fromUpstream = (message: JsonObject): void => {
    if (ending !== undefined) return;
    const { method, id } = message;
    if (typeof method === 'string') {
      if (method === 'notifications/progress') {
        const token = progressTokenOf({ _meta: message['params'] });
        const key = token === undefined ? undefined : progress.get(idKey(token));
        const entry = key === undefined ? undefined : forwarded.get(key);
        if (key !== undefined && entry !== undefined) arm(key, entry);
        return toClient(message, entry?.id);
      }
      return toClient(message, onlyPending());
    }
    if (!isId(id)) return toClient(message);
    const entry = take(idKey(id));
    // An answer after its request was cancelled or timed out: the client no longer waits for it.
    if (entry === undefined) return;
    if (entry.call !== undefined) return answered(entry.call, message);
    if (entry.method === 'initialize') {
      // An HTTP upstream sends the version on every request after this (its SDK client would).
      const result = message['result'];
      if (isJsonObject(result) && typeof result['protocolVersion'] === 'string')
        upstream.setProtocolVersion?.(result['protocolVersion']);
    }
    toClient(message);
  };

  const end = (reason: string, byUpstream: boolean): Promise<void> => {
    if (ending !== undefined) return ending;
    let markEnding: () => void = () => undefined;
    // Set before any step below runs: closing a transport calls back into `end` at once.
    ending = new Promise<void>((resolve) => (markEnding = resolve));
    void (async () => {
      try {
        const message = `cosh-hooks mcp-proxy: ${reason}`;
        for (const key of [...forwarded.keys()]) {
          const entry = take(key);
          if (entry !== undefined) failRequest(entry, ERROR.connectionClosed, message);
        }
        for (const call of calls.values()) {
          call.hook?.unsubscribe();
          toClient(errorResponse(call.id, ERROR.connectionClosed, message));
        }
        calls.clear();
        confirms.clear();
        await upstream.close().catch(() => undefined);
        if (started) await firstValueFrom(decided$(sessionEnd(context, reason)), { defaultValue: undefined });
        for (const subscription of background) subscription.unsubscribe();
        background.clear();
        await client.close().catch(() => undefined);
      } finally {
        resolveEnded({ reason, byUpstream });
        markEnding();
      }
    })();
    return ending;
  };

  upstream.onmessage = (message) => fromUpstream(message as JsonObject);
  upstream.onerror = (error) => {
    upstreamError = error.message;
    options.warn(error.message);
  };
  upstream.onclose = () => void end(upstreamError ?? 'the upstream server closed the connection', true);
  client.onmessage = (message) => fromClient(message as JsonObject);
  client.onerror = (error) => options.warn(`client: ${error.message}`);
  client.onclose = () => void end('the client closed the connection', false);

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
