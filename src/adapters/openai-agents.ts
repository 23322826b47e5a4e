import {
  InputGuardrailTripwireTriggered,
  run as runAgent,
  tool as defineTool,
  type Agent,
  type AgentInputItem,
  type FunctionTool,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type NonStreamRunOptions,
  type RunContext,
  type Runner,
  type RunResult,
  type RunState,
  type StreamEvent,
  type ToolInputGuardrailDefinition,
} from '@openai/agents';
import { agentHooks, asObject, type AgentHooksOptions } from '../host/agent-hooks.js';
import type { ToolGate } from '../host/gates.js';
import { sameData } from '../host/same-data.js';

/**
 * `cosh-hooks/openai-agents`: the hooks in an OpenAI Agents JS loop (docs/hosts.md). Only this
 * module imports `@openai/agents`.
 *
 * - Tools (`tool()` in place of the framework's, or `guard()` for a function tool already built):
 *   PreToolUse is decided once per call, when the runner asks the tool's `needsApproval`. Block →
 *   the tool's first input guardrail rejects the call (`rejectContent`: the tool never runs and the
 *   model gets the reason); ask → `needsApproval` is true (the run stops with an interruption, and
 *   the host's `state.approve`/`state.reject` decide); allow or pass → `invoke` runs with the
 *   hooks' input. Then PostToolUse with the output (withheld or replaced in what `invoke`
 *   returns), or PostToolUseFailure when the tool throws (the error then goes on to the
 *   framework's error function, as without hooks).
 * - Models (`model()`, `modelProvider()`): BeforeModel and AfterModel around each model call.
 * - `run()` in place of the framework's: SessionStart and UserPromptSubmit before the run (block →
 *   `InputGuardrailTripwireTriggered`, the framework's own "input refused" error, and no model
 *   call), Stop after it (block → the reason is the next user message and the run goes on).
 */

/** The options of `openaiAgentsHooks`: those of every adapter (docs/hosts.md). */
export type OpenAIAgentsHooksOptions = AgentHooksOptions;

// The framework's own generic defaults are `any`: a tool or agent of any context, input, output.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyFunctionTool = FunctionTool<any, any, any>;
type AnyAgent = Agent<any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** What the runner tells a tool's `invoke` about the call (not exported by the framework). */
type ToolCallDetails = Parameters<AnyFunctionTool['invoke']>[2];

/** What `openaiAgentsHooks` gives a host: the framework's parts with the hooks in them. */
export interface OpenAIAgentsHooks {
  /** The framework's `tool()`, with the hooks around every call of the tool it makes. */
  readonly tool: typeof defineTool;
  /**
   * A function tool already built (an MCP tool, another library's), with the hooks around every
   * call. PostToolUseFailure comes only for errors the tool lets out: one made by the framework's
   * `tool()` turns its errors into output first (use this adapter's `tool()` for those).
   */
  guard<T extends AnyFunctionTool>(tool: T): T;
  /** A model with BeforeModel and AfterModel around each call, streamed or not. */
  model(model: Model): Model;
  /** A model provider whose every model is wrapped as `model()` does. */
  modelProvider(provider: ModelProvider): ModelProvider;
  /**
   * The framework's `run()` (or `runner.run()` when `options.runner` is given), not streamed, with
   * SessionStart, UserPromptSubmit and Stop. A `RunState` input (resuming after an approval) sends
   * neither SessionStart nor UserPromptSubmit; a run that ends on an interruption sends no Stop.
   */
  run<TAgent extends AnyAgent, TContext = undefined>(
    agent: TAgent,
    input: string | AgentInputItem[] | RunState<TContext, TAgent>,
    options?: NonStreamRunOptions<TContext, TAgent> & { readonly runner?: Runner },
  ): Promise<RunResult<TContext, TAgent>>;
}

const ENGINE = 'cosh-hooks';

/** A model request as a hook sees it: no signal, no tracing handle. */
const requestOf = (request: ModelRequest): Record<string, unknown> => ({
  ...(request.systemInstructions === undefined ? {} : { system: request.systemInstructions }),
  input: request.input,
  tools: request.tools.map((tool) => ({ name: tool.name, type: tool.type })),
  ...(request.previousResponseId === undefined ? {} : { previous_response_id: request.previousResponseId }),
});

const responseOf = (response: ModelResponse): Record<string, unknown> => ({
  output: response.output,
  ...(response.responseId === undefined ? {} : { response_id: response.responseId }),
});

/** The text of the user's last message: the prompt of UserPromptSubmit. */
const promptOf = (input: string | AgentInputItem[]): string | undefined => {
  if (typeof input === 'string') return input;
  const last = [...input].reverse().find((item) => 'role' in item && item.role === 'user');
  if (last === undefined || !('content' in last)) return undefined;
  const { content } = last;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content.map((part: unknown) => (isText(part) ? part.text : '')).join('')
    : undefined;
};

const isText = (part: unknown): part is { text: string } =>
  typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string';

const refused = (reason: string): InputGuardrailTripwireTriggered =>
  new InputGuardrailTripwireTriggered(`Input refused: ${reason}`, {
    guardrail: { type: 'input', name: ENGINE },
    output: { tripwireTriggered: true, outputInfo: { reason } },
  });

/** The hooks of `options.session` in OpenAI Agents JS: wrap the tools, the model, and the run. */
export const openaiAgentsHooks = (options: OpenAIAgentsHooksOptions): OpenAIAgentsHooks => {
  const hooks = agentHooks(options);
  // Each call's PreToolUse gate, per run context and call id: decided once, where the runner first
  // asks (needsApproval, else the input guardrail, else invoke), and kept across an approval.
  const gates = new WeakMap<object, Map<string, Promise<ToolGate>>>();
  // Calls whose tool threw (PostToolUseFailure sent), per run context and call id: their output is
  // the framework's error text, not a result for PostToolUse.
  const failures = new WeakMap<object, Set<string>>();
  const markFailed = (context: object | undefined, callId: string | undefined): void => {
    if (context === undefined || callId === undefined) return;
    const calls = failures.get(context) ?? new Set<string>();
    calls.add(callId);
    failures.set(context, calls);
  };
  const wasFailed = (context: object, callId: string | undefined): boolean => {
    if (callId === undefined) return false;
    const calls = failures.get(context);
    const found = calls?.delete(callId) ?? false;
    return found;
  };

  // A verdict belongs to its call: found again only for the same tool name, call id and input
  // (as data, against the copy the hooks judged); anything else is decided afresh.
  const gateOf = async (
    context: object,
    toolName: string,
    callId: string | undefined,
    input: unknown,
  ): Promise<ToolGate> => {
    if (callId === undefined) return hooks.beforeTool(toolName, input);
    let calls = gates.get(context);
    if (calls === undefined) {
      calls = new Map();
      gates.set(context, calls);
    }
    const key = `${callId}\u0000${toolName}`;
    const pending = calls.get(key);
    // A first ask sets its promise before any await: a second ask meanwhile waits for that one.
    const known = pending === undefined ? undefined : await pending;
    if (known?.judged !== undefined && sameData(asObject(input), known.judged)) return known;
    const gate = hooks.beforeTool(toolName, input, callId);
    calls.set(key, gate);
    return gate;
  };
  const forget = (context: object, toolName: string, callId: string | undefined): void => {
    if (callId !== undefined) gates.get(context)?.delete(`${callId}\u0000${toolName}`);
  };

  const guard = <T extends AnyFunctionTool>(tool: T): T => {
    const refuse: ToolInputGuardrailDefinition = {
      type: 'tool_input',
      name: ENGINE,
      run: async ({ context, toolCall }) => {
        const gate = await gateOf(context, tool.name, toolCall.callId, toolCall.arguments);
        if (gate.action !== 'deny') return { behavior: { type: 'allow' } };
        forget(context, tool.name, toolCall.callId);
        return { behavior: { type: 'rejectContent', message: gate.reason } };
      },
    };
    const guarded: AnyFunctionTool = {
      ...tool,
      needsApproval: async (context: RunContext, input: unknown, callId?: string) => {
        const gate = await gateOf(context, tool.name, callId, input);
        if (gate.action === 'ask') return true;
        // A denied call is refused by the input guardrail, without asking anyone first.
        return gate.action === 'run' && (await tool.needsApproval(context, input, callId));
      },
      inputGuardrails: [refuse, ...(tool.inputGuardrails ?? [])],
      invoke: async (context: RunContext, input: string, details?: ToolCallDetails) => {
        const callId = details?.toolCall?.callId;
        const gate = await gateOf(context, tool.name, callId, input);
        forget(context, tool.name, callId);
        // Reached only past the guardrail and the approval; checked again so no path runs a refused call.
        if (gate.action === 'deny') return gate.reason;
        if (
          gate.action === 'ask' &&
          (callId === undefined || context.isToolApproved({ toolName: tool.name, callId }) !== true)
        ) {
          return `${gate.reason} (${ENGINE}: not approved)`;
        }
        // A hook changed the input (`updated_input`, `tool_input`): the tool gets the hooks' input.
        const patched = gate.judged !== undefined && !sameData(gate.input, gate.judged);
        let output: unknown;
        try {
          output = await tool.invoke(context, patched ? JSON.stringify(gate.input) : input, details);
        } catch (error) {
          if (!wasFailed(context, callId)) await hooks.toolFailed(tool.name, gate.input, error, callId);
          throw error;
        }
        if (wasFailed(context, callId)) return output;
        const after = await hooks.afterTool(tool.name, gate.input, output, callId);
        if (after.action === 'withhold') return after.reason;
        if (after.action === 'replace') return after.response;
        return output;
      },
    };
    return guarded as T;
  };

  const tool = ((toolOptions: Parameters<typeof defineTool>[0]) => {
    const { execute } = toolOptions;
    let name = toolOptions.name ?? execute.name;
    // The framework's tool() turns a thrown error into output for the model; PostToolUseFailure is
    // sent here, where the error is still an error, and then it goes on to that error function.
    const reporting = async (
      input: unknown,
      context?: RunContext,
      details?: ToolCallDetails,
    ): Promise<unknown> => {
      try {
        return await (execute as (i: unknown, c?: RunContext, d?: ToolCallDetails) => unknown)(
          input,
          context,
          details,
        );
      } catch (error) {
        markFailed(context, details?.toolCall?.callId);
        await hooks.toolFailed(name, input, error, details?.toolCall?.callId);
        throw error;
      }
    };
    const made = defineTool({ ...toolOptions, execute: reporting } as Parameters<typeof defineTool>[0]);
    // The name the model calls, as the framework normalised it.
    name = made.name;
    return guard(made);
  }) as typeof defineTool;

  const model = (inner: Model): Model => ({
    ...(inner.supportsPromptModelSelection === undefined
      ? {}
      : { supportsPromptModelSelection: inner.supportsPromptModelSelection }),
    getResponse: async (request) => {
      const llmRequest = requestOf(request);
      await hooks.beforeModel(llmRequest);
      const response = await inner.getResponse(request);
      await hooks.afterModel(responseOf(response), llmRequest);
      return response;
    },
    getStreamedResponse: async function* (request) {
      const llmRequest = requestOf(request);
      await hooks.beforeModel(llmRequest);
      let done: StreamEvent | undefined;
      for await (const event of inner.getStreamedResponse(request)) {
        if (event.type === 'response_done') done = event;
        yield event;
      }
      await hooks.afterModel(
        done?.type === 'response_done' ? { output: done.response.output } : {},
        llmRequest,
      );
    },
    ...(inner.getRetryAdvice === undefined ? {} : { getRetryAdvice: inner.getRetryAdvice.bind(inner) }),
  });

  const run: OpenAIAgentsHooks['run'] = async (agent, input, runOptions = {}) => {
    const { runner, ...rest } = runOptions;
    const start = (next: typeof input) =>
      runner === undefined ? runAgent(agent, next, rest) : runner.run(agent, next, rest);
    if (typeof input === 'string' || Array.isArray(input)) {
      await hooks.sessionStart('startup');
      const prompt = promptOf(input);
      if (prompt !== undefined) {
        const decided = await hooks.userPrompt(prompt);
        if (!decided.ok) throw refused(decided.failure);
        if (decided.decision?.decision === 'block' || decided.decision?.decision === 'ask') {
          throw refused(decided.decision.reason ?? 'blocked by a hook');
        }
      }
    }
    let result = await start(input);
    for (;;) {
      if (result.interruptions.length > 0) return result;
      const answer = result.finalOutput;
      const decided = await hooks.stop(typeof answer === 'string' ? answer : JSON.stringify(answer ?? null));
      if (!decided.ok || decided.decision?.decision !== 'block') return result;
      const more: AgentInputItem = {
        role: 'user',
        content: decided.decision.reason ?? 'A Stop hook asks the agent to go on.',
      };
      // With a memory session the framework adds the history itself; otherwise it is resent.
      result = await start(rest.session === undefined ? [...result.history, more] : [more]);
    }
  };

  return {
    tool,
    guard,
    model,
    modelProvider: (provider) => ({ getModel: async (name) => model(await provider.getModel(name)) }),
    run,
  };
};
