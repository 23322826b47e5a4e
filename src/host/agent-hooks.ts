import { lastValueFrom } from 'rxjs';
import type { EventInput } from '../events/codecs.js';
import { markFreshJson } from '../events/event-data.js';
import type { EventName } from '../events/names.js';
import {
  describeJsonProblem,
  describeThrown,
  isJsonObject,
  parseJson,
  plainJsonCopy,
  type JsonObject,
} from '../events/untrusted.js';
import type { Session } from '../pipeline/session.js';
import { err, ok, type Result } from '../result.js';
import {
  decidedFrom,
  engineFailure,
  resultGate,
  toolGate,
  type Decided,
  type ResultGate,
  type ToolGate,
} from './gates.js';

/**
 * The framework-free half of every adapter (docs/hosts.md): one agent run's events, built from
 * what a framework hands its hook points, decided by a session, and read back as what the
 * framework must do (gates.ts). Each adapter (src/adapters: `ai-sdk/`, `langchain.ts`,
 * `openai-agents.ts`) only maps its framework's hook points onto these calls.
 *
 * Every failure of the engine (an invalid event, a closed session, an internal error) is an
 * answer here, never a throw: before a tool it is a `deny` whose reason names the failure, so no
 * engine fault lets a tool run.
 */

/** What an adapter needs from its host: the engine and the ids of the run. */
export interface AgentHooksOptions {
  /**
   * The engine, made by `createSession(registry, deps, { concurrency: 'per-session' })`: one
   * session serves any number of agent runs, and runs of different `sessionId`s go side by side.
   */
  readonly session: Session;
  /** The `session_id` of every event of this run. */
  readonly sessionId: string;
  /** Set on every event when the run is a sub-agent's (Claude Code's `agent_id`/`agent_type`). */
  readonly agentId?: string;
  readonly agentType?: string;
  /** The working folder hooks are told about (`cwd`); the process's own when absent. */
  readonly cwd?: string;
}

/**
 * The hook calls of one agent run. An event no enabled hook or observer can match (and nobody
 * audits) is neither built nor sent: its answer is `{ ok: true }` with no decision, as if the hooks
 * had passed (`Session.wants`).
 */
export interface AgentHooks {
  /** Any event of the run, with the run's ids filled in; always sent. */
  decide(event: EventInput): Promise<Decided>;
  /** Whether an event `name` (its matched field `matched`, the tool name on tool events) would be sent. */
  wants(name: EventName, matched?: string): boolean;
  beforeTool(toolName: string, input: unknown, toolUseId?: string): Promise<ToolGate>;
  afterTool(toolName: string, input: unknown, response: unknown, toolUseId?: string): Promise<ResultGate>;
  /** Tells the hooks a tool threw; the error still goes to the framework (the caller rethrows it). */
  toolFailed(toolName: string, input: unknown, error: unknown, toolUseId?: string): Promise<void>;
  /** BeforeModel: a block stops the model call (the caller throws `reason`). */
  beforeModel(request: unknown): Promise<Decided>;
  afterModel(response: unknown, request?: unknown): Promise<Decided>;
  userPrompt(prompt: string): Promise<Decided>;
  sessionStart(source?: string): Promise<Decided>;
  stop(lastAssistantMessage?: string): Promise<Decided>;
}

const ENGINE = 'cosh-hooks';

/**
 * The JSON object a framework's value becomes in an event (`tool_input` must be an object): an
 * object as it is, a string holding a JSON object parsed, anything else wrapped as `{ input }`.
 */
export const asObject = (value: unknown): JsonObject => {
  if (isJsonObject(value)) return value;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    if (parsed.ok && isJsonObject(parsed.value)) return parsed.value;
  }
  return value === undefined ? {} : { input: value as never };
};

/**
 * A value as plain JSON data, or why it has none: what a framework object (a class instance, a
 * `Date`, an Error) is to a hook. Bounded like every copy the engine makes (512 levels, a million
 * values); a getter or Proxy that throws is a failure, never a throw.
 */
export const jsonOf = (value: unknown): Result<unknown> => {
  try {
    const copy = plainJsonCopy(value);
    if (!copy.ok) return err(describeJsonProblem(copy.error, 'value'));
    return ok(copy.value === undefined ? null : copy.value);
  } catch (error) {
    return err(`value: cannot be read: ${describeThrown(error)}`);
  }
};

/** A value as JSON data for a hook to read; a value that has none becomes the text saying why. */
export const asJson = (value: unknown): unknown => {
  const json = jsonOf(value);
  return json.ok ? json.value : `${ENGINE}: the value cannot be written as JSON: ${json.error}`;
};

const decisionOf = async (session: Session, event: EventInput): Promise<Decided> => {
  try {
    return decidedFrom(await lastValueFrom(session.decide(event), { defaultValue: undefined }));
  } catch (error) {
    return engineFailure(error);
  }
};

/** The answer for an event that was not sent: no hook could have changed anything. */
const UNSENT: Decided = { ok: true };

/** The hook calls of one agent run on `options.session`. */
export const agentHooks = (options: AgentHooksOptions): AgentHooks => {
  const { session } = options;
  const ids = {
    session_id: options.sessionId,
    cwd: options.cwd ?? process.cwd(),
    ...(options.agentId === undefined ? {} : { agent_id: options.agentId }),
    ...(options.agentType === undefined ? {} : { agent_type: options.agentType }),
  };
  /**
   * One event of the run: not built at all when the session does not want it; else built by
   * `fields` from values copied here (`asJson`, `jsonOf`) and marked so that admission takes it
   * without a second copy (nobody else holds it).
   */
  const send = (name: EventName, matched: string | undefined, fields: () => object): Promise<Decided> => {
    if (!session.wants(name, matched)) return Promise.resolve(UNSENT);
    const event = { ...ids, hook_event_name: name, ...fields() };
    markFreshJson(event);
    return decisionOf(session, event as EventInput);
  };
  const toolUse = (toolUseId: string | undefined) =>
    toolUseId === undefined ? {} : { tool_use_id: toolUseId };
  const toolEvent = (
    name: EventName,
    toolName: string,
    input: unknown,
    toolUseId: string | undefined,
    rest: () => object,
  ): Promise<Decided> =>
    send(name, toolName, () => ({
      tool_name: toolName,
      tool_input: asObject(asJson(input)),
      ...rest(),
      ...toolUse(toolUseId),
    }));
  return {
    decide: (event) => decisionOf(session, { ...ids, ...event } as EventInput),
    wants: (name, matched) => session.wants(name, matched),
    beforeTool: async (toolName, input, toolUseId) => {
      const object = asObject(input);
      if (!session.wants('PreToolUse', toolName)) return toolGate(object, UNSENT);
      // The hooks judge a plain JSON copy; the tool runs with the framework's own value unless a
      // hook patched it. A value the hooks cannot see (too deep, a BigInt, a throwing getter) is
      // never run: what no hook could judge is not allowed.
      const copy = jsonOf(object);
      if (!copy.ok) return { action: 'deny', reason: `${ENGINE}: invalid event: tool_input: ${copy.error}` };
      const judged = asObject(copy.value);
      const decided = await send('PreToolUse', toolName, () => ({
        tool_name: toolName,
        tool_input: judged,
        ...toolUse(toolUseId),
      }));
      return { ...toolGate(object, decided), judged };
    },
    afterTool: async (toolName, input, response, toolUseId) =>
      resultGate(
        await toolEvent('PostToolUse', toolName, input, toolUseId, () => ({
          tool_response: asJson(response),
        })),
      ),
    toolFailed: async (toolName, input, error, toolUseId) => {
      await toolEvent('PostToolUseFailure', toolName, input, toolUseId, () => ({
        error: describeThrown(error),
      }));
    },
    beforeModel: (request) =>
      send('BeforeModel', undefined, () => ({ llm_request: asObject(asJson(request)) })),
    afterModel: (response, request) =>
      send('AfterModel', undefined, () => ({
        llm_response: asObject(asJson(response)),
        ...(request === undefined ? {} : { llm_request: asObject(asJson(request)) }),
      })),
    userPrompt: (prompt) => send('UserPromptSubmit', undefined, () => ({ prompt })),
    sessionStart: (source) => send('SessionStart', undefined, () => (source === undefined ? {} : { source })),
    stop: (lastAssistantMessage) =>
      send('Stop', undefined, () =>
        lastAssistantMessage === undefined ? {} : { last_assistant_message: lastAssistantMessage },
      ),
  };
};
