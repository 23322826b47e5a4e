import { lastValueFrom } from 'rxjs';
import type { EventInput } from '../events/codecs.js';
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

/** The hook calls of one agent run. */
export interface AgentHooks {
  /** Any event of the run, with the run's ids filled in. */
  decide(event: EventInput): Promise<Decided>;
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

/** The hook calls of one agent run on `options.session`. */
export const agentHooks = (options: AgentHooksOptions): AgentHooks => {
  const ids = {
    session_id: options.sessionId,
    cwd: options.cwd ?? process.cwd(),
    ...(options.agentId === undefined ? {} : { agent_id: options.agentId }),
    ...(options.agentType === undefined ? {} : { agent_type: options.agentType }),
  };
  const decide = (event: EventInput): Promise<Decided> =>
    decisionOf(options.session, { ...ids, ...event } as EventInput);
  const toolUse = (toolUseId: string | undefined) =>
    toolUseId === undefined ? {} : { tool_use_id: toolUseId };
  return {
    decide,
    beforeTool: async (toolName, input, toolUseId) => {
      // The hooks judge a plain JSON copy; the tool runs with the framework's own value unless a
      // hook patched it. A value the hooks cannot see (too deep, a BigInt, a throwing getter) is
      // never run: what no hook could judge is not allowed.
      const copy = jsonOf(asObject(input));
      if (!copy.ok) return { action: 'deny', reason: `${ENGINE}: invalid event: tool_input: ${copy.error}` };
      const decided = await decide({
        hook_event_name: 'PreToolUse',
        tool_name: toolName,
        tool_input: asObject(copy.value),
        ...toolUse(toolUseId),
      } as EventInput);
      return toolGate(asObject(input), decided);
    },
    afterTool: async (toolName, input, response, toolUseId) =>
      resultGate(
        await decide({
          hook_event_name: 'PostToolUse',
          tool_name: toolName,
          tool_input: asObject(asJson(input)),
          tool_response: asJson(response),
          ...toolUse(toolUseId),
        } as EventInput),
      ),
    toolFailed: async (toolName, input, error, toolUseId) => {
      await decide({
        hook_event_name: 'PostToolUseFailure',
        tool_name: toolName,
        tool_input: asObject(asJson(input)),
        error: describeThrown(error),
        ...toolUse(toolUseId),
      } as EventInput);
    },
    beforeModel: (request) =>
      decide({ hook_event_name: 'BeforeModel', llm_request: asObject(asJson(request)) } as EventInput),
    afterModel: (response, request) =>
      decide({
        hook_event_name: 'AfterModel',
        llm_response: asObject(asJson(response)),
        ...(request === undefined ? {} : { llm_request: asObject(asJson(request)) }),
      } as EventInput),
    userPrompt: (prompt) => decide({ hook_event_name: 'UserPromptSubmit', prompt } as EventInput),
    sessionStart: (source) =>
      decide({ hook_event_name: 'SessionStart', ...(source === undefined ? {} : { source }) } as EventInput),
    stop: (lastAssistantMessage) =>
      decide({
        hook_event_name: 'Stop',
        ...(lastAssistantMessage === undefined ? {} : { last_assistant_message: lastAssistantMessage }),
      } as EventInput),
  };
};
