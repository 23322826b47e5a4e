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
import type { HookDecision, OutputLine } from '../output/lines.js';
import type { Session } from '../pipeline/session.js';
import { deepMerge } from '../protocol/merge.js';
import { err, ok, type Result } from '../result.js';

/**
 * The framework-free half of every adapter (docs/hosts.md): one agent run's events, built from
 * what a framework hands its hook points, decided by a session, and read back as what the
 * framework must do. Each adapter (`ai-sdk.ts`, `langchain.ts`, `openai-agents.ts`) only maps its
 * framework's hook points onto these calls.
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

/** What to do with a tool call, from its PreToolUse decision. */
export type ToolGate =
  /** Run the tool with `input`: the model's input with the hooks' `updated_input` and `tool_input` applied. */
  | { readonly action: 'run'; readonly input: JsonObject; readonly decision: HookDecision }
  /** The user must confirm first (the framework's approval flow); on approval run with `input`. */
  | {
      readonly action: 'ask';
      readonly input: JsonObject;
      readonly reason: string;
      readonly decision: HookDecision;
    }
  /** Never run the tool; the model gets `reason`. `decision` is absent when the engine failed. */
  | { readonly action: 'deny'; readonly reason: string; readonly decision?: HookDecision };

/** What to do with a tool's result, from its PostToolUse decision. */
export type ResultGate =
  | { readonly action: 'keep' }
  /** A hook replaced the result the model sees (`updated_tool_response`). */
  | { readonly action: 'replace'; readonly response: unknown }
  /** A hook blocked the result: the model gets `reason` instead of it. */
  | { readonly action: 'withhold'; readonly reason: string };

/** The decision of one event, or why the engine could not give one. */
export type Decided =
  { readonly ok: true; readonly decision: HookDecision } | { readonly ok: false; readonly failure: string };

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

/** The input the tool runs with: `updated_input` replaces, then `tool_input` patches (docs/protocol.md). */
export const effectiveInput = (input: JsonObject, decision: HookDecision): JsonObject => {
  const output = decision.hook_specific_output ?? {};
  const replaced = isJsonObject(output['updated_input']) ? output['updated_input'] : input;
  return isJsonObject(output['tool_input']) ? deepMerge(replaced, output['tool_input']) : replaced;
};

const reasonOf = (decision: HookDecision, fallback: string): string =>
  decision.reason ?? decision.systemMessage ?? fallback;

/** The PreToolUse decision read as what to do with the call. */
export const toolGate = (input: JsonObject, decided: Decided): ToolGate => {
  if (!decided.ok) return { action: 'deny', reason: decided.failure };
  const { decision } = decided;
  switch (decision.decision) {
    case 'block':
      return { action: 'deny', reason: reasonOf(decision, 'blocked by a hook'), decision };
    case 'ask':
      return {
        action: 'ask',
        input: effectiveInput(input, decision),
        reason: reasonOf(decision, 'a hook asks for confirmation'),
        decision,
      };
    default:
      return { action: 'run', input: effectiveInput(input, decision), decision };
  }
};

/**
 * The PostToolUse decision read as what the model sees. An engine failure withholds the result:
 * a result no hook could look at (a closed session, an internal error) does not reach the model.
 */
export const resultGate = (decided: Decided): ResultGate => {
  if (!decided.ok) return { action: 'withhold', reason: decided.failure };
  const { decision } = decided;
  if (decision.decision === 'block')
    return { action: 'withhold', reason: reasonOf(decision, 'withheld by a hook') };
  const output = decision.hook_specific_output ?? {};
  // A hook may replace the result with any JSON value, `null` included.
  for (const key of ['updated_tool_response', 'updatedToolResponse']) {
    if (Object.hasOwn(output, key)) return { action: 'replace', response: output[key] };
  }
  return { action: 'keep' };
};

/** The decision read from the last line of an event's `decide`: a `hook_error` or no line is a failure. */
export const decidedFrom = (last: OutputLine | undefined): Decided => {
  if (last?.type === 'hook_decision') return { ok: true, decision: last };
  if (last?.type === 'hook_error') return { ok: false, failure: `${ENGINE}: invalid event: ${last.message}` };
  return { ok: false, failure: `${ENGINE}: the engine gave no decision` };
};

/** An engine error (a closed session, an internal fault) as a decision that could not be made. */
export const engineFailure = (error: unknown): Decided => ({
  ok: false,
  failure: `${ENGINE}: ${describeThrown(error)}`,
});

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
