import type { EventInput } from '../events/codecs.js';
import { isJsonObject, type JsonObject } from '../events/untrusted.js';

/**
 * What the MCP proxy maps, as pure functions (docs/mcp.md, the mapping table): a `tools/call`
 * becomes the events of a tool, and a decision becomes what the client receives. JSON-RPC is
 * written here as plain objects, so this module needs nothing from the SDK.
 */

/** A JSON-RPC request id (MCP: a string or an integer). */
export type RequestId = string | number;

/** Who answers: the event field `mcp_server` (`source: "proxy"` tells hooks the call came through the proxy). */
export interface McpServer {
  readonly name: string;
  readonly source: 'proxy';
}

/** The ids every event of one MCP session carries. */
export interface CallContext {
  readonly server: McpServer;
  readonly sessionId: string;
  readonly cwd: string;
}

/** JSON-RPC error codes the proxy answers with itself (MCP's and JSON-RPC's). */
export const ERROR = {
  invalidRequest: -32600,
  invalidParams: -32602,
  /** The upstream went away (the SDK's `ErrorCode.ConnectionClosed`). */
  connectionClosed: -32000,
  /** The upstream did not answer in time (the SDK's `ErrorCode.RequestTimeout`). */
  requestTimeout: -32001,
} as const;

/** Claude Code's name of an MCP tool, so a matcher like `mcp__github__.*` works unchanged. */
export const toolName = (server: string, tool: string): string => `mcp__${server}__${tool}`;

/**
 * A server name that fits in `mcp__<name>__<tool>`: what Claude Code does to a configured name
 * (every character outside `[A-Za-z0-9_-]` becomes `_`).
 */
export const serverNameOf = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');

export const isId = (value: unknown): value is RequestId =>
  typeof value === 'string' || typeof value === 'number';

/** The key of a request id in a map: `1` and `"1"` are different requests. */
export const idKey = (id: RequestId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

/** A `tools/call`'s tool and arguments, or why it cannot be guarded. */
export const callOf = (
  params: unknown,
): { ok: true; tool: string; input: JsonObject } | { ok: false; message: string } => {
  if (!isJsonObject(params) || typeof params['name'] !== 'string')
    return { ok: false, message: 'tools/call: params.name must be a string' };
  const args = params['arguments'];
  if (args !== undefined && !isJsonObject(args))
    return { ok: false, message: 'tools/call: params.arguments must be an object' };
  return { ok: true, tool: params['name'], input: args ?? {} };
};

const base = (context: CallContext, tool: string, input: JsonObject, id: RequestId) => ({
  session_id: context.sessionId,
  cwd: context.cwd,
  tool_name: toolName(context.server.name, tool),
  tool_input: input,
  tool_use_id: String(id),
  mcp_server: context.server,
});

export const preToolUse = (
  context: CallContext,
  tool: string,
  input: JsonObject,
  id: RequestId,
): EventInput => ({ hook_event_name: 'PreToolUse', ...base(context, tool, input, id) }) as EventInput;

export const postToolUse = (
  context: CallContext,
  tool: string,
  input: JsonObject,
  id: RequestId,
  response: unknown,
): EventInput =>
  ({
    hook_event_name: 'PostToolUse',
    ...base(context, tool, input, id),
    tool_response: response,
  }) as EventInput;

export const postToolUseFailure = (
  context: CallContext,
  tool: string,
  input: JsonObject,
  id: RequestId,
  error: string,
): EventInput =>
  ({ hook_event_name: 'PostToolUseFailure', ...base(context, tool, input, id), error }) as EventInput;

export const sessionStart = (context: CallContext): EventInput =>
  ({
    hook_event_name: 'SessionStart',
    session_id: context.sessionId,
    cwd: context.cwd,
    source: 'startup',
    mcp_server: context.server,
  }) as EventInput;

export const sessionEnd = (context: CallContext, reason: string): EventInput =>
  ({
    hook_event_name: 'SessionEnd',
    session_id: context.sessionId,
    cwd: context.cwd,
    reason,
    mcp_server: context.server,
  }) as EventInput;

/** A tool result the model reads as a failure: what a block becomes. */
export const errorResult = (text: string): JsonObject => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/**
 * The result the client sees in place of the tool's, from a hook's `updated_tool_response`: an
 * object with a `content` array is a tool result as is; anything else is shown as text.
 */
export const replacementResult = (response: unknown): JsonObject => {
  if (isJsonObject(response) && Array.isArray(response['content'])) return response;
  const text = typeof response === 'string' ? response : JSON.stringify(response);
  return { content: [{ type: 'text', text }] };
};

/** A JSON-RPC result response. */
export const resultResponse = (id: RequestId, result: JsonObject): JsonObject => ({
  jsonrpc: '2.0',
  id,
  result,
});

/** A JSON-RPC error response. */
export const errorResponse = (id: RequestId, code: number, message: string): JsonObject => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** The `notifications/cancelled` that tells a peer to stop working on `id`. */
export const cancelled = (id: RequestId, reason: string): JsonObject => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: id, reason },
});

/** Whether a client can answer a form elicitation (its `initialize` capabilities). */
export const canElicit = (initializeParams: unknown): boolean => {
  if (!isJsonObject(initializeParams)) return false;
  const capabilities = initializeParams['capabilities'];
  if (!isJsonObject(capabilities)) return false;
  const elicitation = capabilities['elicitation'];
  if (!isJsonObject(elicitation)) return false;
  // `{}` is the form mode (the only one before 2025-11-25); a client that lists modes must list form.
  return elicitation['form'] !== undefined || elicitation['url'] === undefined;
};

/** The arguments as shown to the user: a huge input is cut, so the question stays readable. */
const SHOWN_INPUT_CHARS = 2_000;
const excerpt = (text: string): string =>
  text.length <= SHOWN_INPUT_CHARS
    ? text
    : `${text.slice(0, SHOWN_INPUT_CHARS)}… (${text.length} characters)`;

/** The `elicitation/create` that asks the user to confirm a call a hook wants confirmed. */
export const confirmation = (id: RequestId, tool: string, input: JsonObject, reason: string): JsonObject => ({
  jsonrpc: '2.0',
  id,
  method: 'elicitation/create',
  params: {
    message: `${reason}\n\nAllow ${tool} with ${excerpt(JSON.stringify(input))}?`,
    requestedSchema: { type: 'object', properties: {} },
  },
});

/** The answer to a confirmation: accepted, or the reason the call is refused. */
export const confirmed = (
  response: JsonObject,
  reason: string,
): { ok: true } | { ok: false; reason: string } => {
  const result = response['result'];
  if (isJsonObject(result) && result['action'] === 'accept') return { ok: true };
  if (isJsonObject(result) && typeof result['action'] === 'string')
    return { ok: false, reason: `the user did not confirm (${result['action']}): ${reason}` };
  const error = response['error'];
  const message =
    isJsonObject(error) && typeof error['message'] === 'string' ? error['message'] : 'no answer';
  return { ok: false, reason: `confirmation failed (${message}): ${reason}` };
};

/** The reason given to the model when a hook asks and the client cannot ask its user. */
export const confirmationRequired = (reason: string): string =>
  `confirmation was required and this client cannot ask for it (no elicitation support): ${reason}`;

/** The message of a JSON-RPC error response, for PostToolUseFailure. */
export const errorMessage = (response: JsonObject): string => {
  const error = response['error'];
  if (!isJsonObject(error)) return 'error';
  const message = typeof error['message'] === 'string' ? error['message'] : 'error';
  return typeof error['code'] === 'number' ? `${message} (${error['code']})` : message;
};

/** The progress token a request carries (`params._meta.progressToken`), if any. */
export const progressTokenOf = (params: unknown): RequestId | undefined => {
  if (!isJsonObject(params)) return undefined;
  const meta = params['_meta'];
  if (!isJsonObject(meta)) return undefined;
  const token = meta['progressToken'];
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
};

/** The request a `notifications/cancelled` cancels, if it names one. */
export const cancelledId = (message: JsonObject): RequestId | undefined => {
  const params = message['params'];
  const id = isJsonObject(params) ? params['requestId'] : undefined;
  return isId(id) ? id : undefined;
};

/** The protocol version of an `initialize` answer, if any. */
export const protocolVersionOf = (response: JsonObject): string | undefined => {
  const result = response['result'];
  return isJsonObject(result) && typeof result['protocolVersion'] === 'string'
    ? result['protocolVersion']
    : undefined;
};

/** The tool names of a `tools/list` answer; undefined when it is not one. */
export const toolsOf = (response: JsonObject): string[] | undefined => {
  const result = response['result'];
  const tools = isJsonObject(result) ? result['tools'] : undefined;
  if (!Array.isArray(tools)) return undefined;
  return tools.flatMap((tool) =>
    isJsonObject(tool) && typeof tool['name'] === 'string' ? [tool['name']] : [],
  );
};
