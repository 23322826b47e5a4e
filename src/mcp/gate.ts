import { catchError, map, of, reduce, switchMap, tap, type Observable, type Subscription } from 'rxjs';
import { decidedFrom, engineFailure, resultGate, toolGate, type Decided } from '../host/gates.js';
import type { EventInput } from '../events/codecs.js';
import { isJsonObject, type JsonObject } from '../events/untrusted.js';
import type { OutputLine } from '../output/lines.js';
import type { Session } from '../pipeline/session.js';
import {
  confirmationRequired,
  confirmed,
  errorMessage,
  errorResult,
  idKey,
  postToolUse,
  postToolUseFailure,
  preToolUse,
  replacementResult,
  resultResponse,
  toolName,
  type CallContext,
  type RequestId,
} from './mapping.js';

/** A `tools/call` from the client, its arguments read. */
export interface ToolCall {
  readonly id: RequestId;
  readonly tool: string;
  readonly input: JsonObject;
  /** The request as the client wrote it: what is forwarded, its arguments replaced. */
  readonly message: JsonObject;
}

/** What a gate needs from its connection. */
export interface GateDeps {
  readonly context: CallContext;
  /** One event's decision (exactly one value; an engine failure is a `Decided` too). */
  readonly decide: (event: EventInput) => Observable<Decided>;
  /** Asks the user to confirm: the client's answer; undefined when the client cannot be asked. */
  readonly confirm: (
    callId: RequestId,
    tool: string,
    input: JsonObject,
    reason: string,
  ) => Observable<JsonObject> | undefined;
  /** Sends the request `id` upstream: its answer, or the error response the proxy made for it. */
  readonly upstream: (id: RequestId, message: JsonObject) => Observable<JsonObject>;
  /** An event whose decision changes nothing here (PostToolUseFailure). */
  readonly background: (event: EventInput) => void;
}

/** A session's decisions as `Decided` values: the last line of each event, an engine failure a value. */
export const deciding =
  (session: Session, onLine?: (line: OutputLine) => void) =>
  (event: EventInput): Observable<Decided> =>
    session.decide(event).pipe(
      tap((line) => onLine?.(line)),
      reduce<OutputLine, OutputLine | undefined>((_, line) => line, undefined),
      map(decidedFrom),
      catchError((error: unknown) => of(engineFailure(error))),
    );

/**
 * One `tools/call`, pre → ask → upstream → post (docs/mcp.md, the decision tables): the one
 * message its client gets. The verdict is this call's own: its PreToolUse carries its tool, id
 * and input, and nothing else reads it. Unsubscribing stops the call wherever it is (a running
 * hook is killed, a confirmation withdrawn, the upstream's answer no longer awaited).
 */
export const gate = (call: ToolCall, deps: GateDeps): Observable<JsonObject> => {
  const { context } = deps;
  const { id, tool } = call;
  const denied = (reason: string) => of(resultResponse(id, errorResult(reason)));

  const post = (input: JsonObject, response: JsonObject): Observable<JsonObject> => {
    if (response['error'] !== undefined) {
      deps.background(postToolUseFailure(context, tool, input, id, errorMessage(response)));
      return of(response);
    }
    return deps.decide(postToolUse(context, tool, input, id, response['result'])).pipe(
      map((decided) => {
        const result = resultGate(decided);
        if (result.action === 'keep') return response;
        if (result.action === 'replace') return resultResponse(id, replacementResult(result.response));
        return resultResponse(id, errorResult(result.reason));
      }),
    );
  };

  const run = (input: JsonObject): Observable<JsonObject> => {
    const params = isJsonObject(call.message['params']) ? call.message['params'] : {};
    return deps
      .upstream(id, { ...call.message, params: { ...params, arguments: input } })
      .pipe(switchMap((response) => post(input, response)));
  };

  return deps.decide(preToolUse(context, tool, call.input, id)).pipe(
    map((decided) => toolGate(call.input, decided)),
    switchMap((verdict) => {
      if (verdict.action === 'deny') return denied(verdict.reason);
      if (verdict.action === 'run') return run(verdict.input);
      const { input, reason } = verdict;
      const asked = deps.confirm(id, toolName(context.server.name, tool), input, reason);
      if (asked === undefined) return denied(confirmationRequired(reason));
      return asked.pipe(
        switchMap((answer) => {
          const confirmation = confirmed(answer, reason);
          return confirmation.ok ? run(input) : denied(confirmation.reason);
        }),
      );
    }),
  );
};

/** The gates of the calls in progress, by request id: each ends in one message to the client. */
export class Gates {
  private readonly running = new Map<string, { readonly id: RequestId; readonly gate: Subscription }>();

  constructor(
    private readonly deps: GateDeps,
    private readonly reply: (message: JsonObject) => void,
  ) {}

  get size(): number {
    return this.running.size;
  }

  has(id: RequestId): boolean {
    return this.running.has(idKey(id));
  }

  open(call: ToolCall): void {
    const key = idKey(call.id);
    let done = false;
    const subscription = gate(call, this.deps).subscribe((message) => {
      done = true;
      this.running.delete(key);
      this.reply(message);
    });
    // A call decided before `subscribe` returns (a function hook's block) holds nothing.
    if (!done) this.running.set(key, { id: call.id, gate: subscription });
  }

  /** Stops the gate of `id` (a running hook is killed): whether there was one. */
  stop(id: RequestId): boolean {
    const running = this.running.get(idKey(id));
    this.running.delete(idKey(id));
    running?.gate.unsubscribe();
    return running !== undefined;
  }

  /** Stops every gate: the ids of the calls that got no answer. */
  stopAll(): RequestId[] {
    const ids = [...this.running.values()].map(({ id }) => id);
    for (const id of ids) this.stop(id);
    return ids;
  }
}

/** Events whose decision changes nothing here (SessionStart, PostToolUseFailure), until they end or are stopped. */
export class Background {
  private readonly running = new Set<Subscription>();

  constructor(private readonly decide: (event: EventInput) => Observable<Decided>) {}

  run(event: EventInput): void {
    let done = false;
    const subscription = this.decide(event).subscribe({ complete: () => (done = true) });
    // An event without hooks is decided before `subscribe` returns: nothing to hold then.
    if (done) return;
    this.running.add(subscription);
    subscription.add(() => this.running.delete(subscription));
  }

  stop(): void {
    for (const subscription of [...this.running]) subscription.unsubscribe();
  }
}
