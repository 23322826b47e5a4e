import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware, type ToolCallRequest } from 'langchain';
import { agentHooks, type AgentHooks, type AgentHooksOptions } from '../host/agent-hooks.js';
import type { ToolGate } from '../host/gates.js';

/**
 * `cosh-hooks/langchain`: the hooks in a LangChain.js v1 agent (`createAgent`), as one middleware
 * (docs/hosts.md). Only this module imports `langchain` and `@langchain/core`.
 *
 * - `wrapToolCall`: PreToolUse before the tool (block → the tool never runs and the model gets a
 *   `ToolMessage` with `status: "error"` and the reason, the form `humanInTheLoopMiddleware` gives
 *   a rejected call; ask → a LangGraph interrupt in the `humanInTheLoopMiddleware` shape; allow or
 *   pass → the tool runs with the hooks' input), then PostToolUse with its result, or
 *   PostToolUseFailure when it throws (the error is then thrown on to LangChain).
 * - `wrapModelCall`: BeforeModel and AfterModel around each model call.
 * - `beforeAgent`: SessionStart, then UserPromptSubmit with the last human message (block → the
 *   prompt is removed, the reason is the agent's answer and the run ends).
 * - `afterAgent`: Stop with the last answer (block → the reason goes to the model as the next
 *   human message and the loop goes on; the engine's Stop-loop guard bounds it).
 */

/** The options of `langchainHooks`: `agentHooks`' options, the session id possibly per thread. */
export type LangChainHooksOptions = Omit<AgentHooksOptions, 'sessionId'> & {
  /**
   * The `session_id` of the run's events: a string, or read from the run (for one agent serving
   * many threads: `(thread) => thread ?? 'default'`, given `configurable.thread_id`).
   */
  readonly sessionId: string | ((threadId: string | undefined) => string);
};

/** What a reviewer answers to an `ask` interrupt (`humanInTheLoopMiddleware`'s `HITLResponse`). */
interface Review {
  readonly decisions?: readonly { readonly type?: unknown; readonly message?: unknown }[];
}

/** Marks the answer that replaced a blocked prompt, so Stop is not sent for a run that never ran. */
const BLOCKED_PROMPT = 'cosh_hooks_blocked_prompt';

const ENGINE = 'cosh-hooks';

const threadOf = (runtime: {
  readonly configurable?: { readonly thread_id?: unknown };
}): string | undefined => {
  const thread = runtime.configurable?.thread_id;
  return typeof thread === 'string' ? thread : undefined;
};

const textOf = (message: BaseMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content
        .map((part) =>
          typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : '',
        )
        .join('');

/** A message as a hook sees it: role, text, tool calls; not the class instance. */
const messageOf = (message: BaseMessage): Record<string, unknown> => ({
  role: message.type,
  content: textOf(message),
  ...(AIMessage.isInstance(message) && message.tool_calls !== undefined && message.tool_calls.length > 0
    ? { tool_calls: message.tool_calls.map((call) => ({ id: call.id, name: call.name, input: call.args })) }
    : {}),
  ...(ToolMessage.isInstance(message) ? { tool_call_id: message.tool_call_id } : {}),
});

const nameOf = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const name = (value as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
};

/** A model request as a hook sees it; never the model object (it may hold an API key). */
const requestOf = (request: {
  readonly model: unknown;
  readonly messages: readonly BaseMessage[];
  readonly systemPrompt?: string | undefined;
  readonly tools: readonly unknown[];
}): Record<string, unknown> => {
  const model = request.model as { getName?: () => string } | undefined;
  return {
    ...(typeof model?.getName === 'function' ? { model: model.getName() } : {}),
    ...(request.systemPrompt === undefined || request.systemPrompt === ''
      ? {}
      : { system: request.systemPrompt }),
    messages: request.messages.map(messageOf),
    tools: request.tools.map((tool) => ({ name: nameOf(tool) ?? 'unknown' })),
  };
};

/** The tool's result as a hook sees it: the ToolMessage's text and status, or a Command as data. */
const responseOf = (result: unknown): unknown =>
  ToolMessage.isInstance(result)
    ? { content: textOf(result), ...(result.status === undefined ? {} : { status: result.status }) }
    : result;

const refusal = (request: ToolCallRequest, reason: string): ToolMessage =>
  new ToolMessage({
    content: reason,
    name: request.toolCall.name,
    tool_call_id: request.toolCall.id ?? '',
    status: 'error',
  });

/**
 * The reviewer's answer to an `ask`, through LangGraph's interrupt (the run must have a
 * checkpointer). The payload is `humanInTheLoopMiddleware`'s, so a host's approval UI serves both:
 * resume with `new Command({ resume: { decisions: [{ type: 'approve' }] } })` or `'reject'`.
 * Anything but a clear approval is a refusal.
 */
const review = (
  request: ToolCallRequest,
  gate: Extract<ToolGate, { action: 'ask' }>,
): { approved: true } | { approved: false; reason: string } => {
  const interrupt = request.runtime.interrupt;
  if (interrupt === undefined) {
    return { approved: false, reason: `${gate.reason} (${ENGINE}: this run has no interrupt to ask with)` };
  }
  const answer = interrupt({
    actionRequests: [{ name: request.toolCall.name, args: gate.input, description: gate.reason }],
    reviewConfigs: [{ actionName: request.toolCall.name, allowedDecisions: ['approve', 'reject'] }],
  }) as Review | undefined;
  const decision = answer?.decisions?.[0];
  if (decision?.type === 'approve') return { approved: true };
  const message = typeof decision?.message === 'string' ? decision.message : undefined;
  return {
    approved: false,
    reason: message ?? `User rejected the tool call for \`${request.toolCall.name}\`: ${gate.reason}`,
  };
};

/**
 * The middleware that runs the hooks of `options.session` in a LangChain agent:
 * `createAgent({ model, tools, middleware: [langchainHooks({ session, sessionId })] })`.
 * The session must outlive the agent's runs; `close()` it when the host is done.
 */
export const langchainHooks = (options: LangChainHooksOptions): AgentMiddleware => {
  const { sessionId } = options;
  const hooksFor = (runtime: { readonly configurable?: { readonly thread_id?: unknown } }): AgentHooks =>
    agentHooks({
      ...options,
      sessionId: typeof sessionId === 'string' ? sessionId : sessionId(threadOf(runtime)),
    });

  return createMiddleware({
    name: 'CoshHooks',
    beforeAgent: {
      canJumpTo: ['end'],
      hook: async (state, runtime) => {
        const hooks = hooksFor(runtime);
        await hooks.sessionStart('startup');
        const prompt = [...state.messages].reverse().find((message) => HumanMessage.isInstance(message));
        if (prompt === undefined) return undefined;
        const decided = await hooks.userPrompt(textOf(prompt));
        // A prompt the engine could not judge is not sent: the run fails closed, naming why.
        const reason = !decided.ok
          ? decided.failure
          : decided.decision?.decision === 'block' || decided.decision?.decision === 'ask'
            ? (decided.decision.reason ?? 'blocked by a hook')
            : undefined;
        if (reason === undefined) return undefined;
        return {
          messages: [
            ...(prompt.id === undefined ? [] : [new RemoveMessage({ id: prompt.id })]),
            new AIMessage({
              content: `Prompt blocked: ${reason}`,
              additional_kwargs: { [BLOCKED_PROMPT]: true },
            }),
          ],
          jumpTo: 'end',
        };
      },
    },
    wrapModelCall: async (request, handler) => {
      const hooks = hooksFor(request.runtime);
      const llmRequest = requestOf(request);
      await hooks.beforeModel(llmRequest);
      const response = await handler(request);
      await hooks.afterModel(messageOf(response), llmRequest);
      return response;
    },
    wrapToolCall: async (request, handler) => {
      const hooks = hooksFor(request.runtime);
      const { toolCall } = request;
      const gate = await hooks.beforeTool(toolCall.name, toolCall.args, toolCall.id);
      if (gate.action === 'deny') return refusal(request, gate.reason);
      if (gate.action === 'ask') {
        const answer = review(request, gate);
        if (!answer.approved) return refusal(request, answer.reason);
      }
      const input = gate.input;
      let result: Awaited<ReturnType<typeof handler>>;
      try {
        result = await handler({ ...request, toolCall: { ...toolCall, args: { ...input } } });
      } catch (error) {
        await hooks.toolFailed(toolCall.name, input, error, toolCall.id);
        throw error;
      }
      const after = await hooks.afterTool(toolCall.name, input, responseOf(result), toolCall.id);
      // A withheld result is withheld whatever it was (a Command's state update too); a
      // replacement can stand only for a ToolMessage (a Command is not something the model reads).
      if (after.action === 'withhold') return refusal(request, after.reason);
      if (after.action === 'keep' || !ToolMessage.isInstance(result)) return result;
      const content = after.response;
      return new ToolMessage({
        content: typeof content === 'string' ? content : JSON.stringify(content),
        name: result.name ?? toolCall.name,
        tool_call_id: result.tool_call_id,
      });
    },
    afterAgent: {
      canJumpTo: ['model'],
      hook: async (state, runtime) => {
        const last = state.messages.at(-1);
        if (last !== undefined && last.additional_kwargs[BLOCKED_PROMPT] === true) return undefined;
        const decided = await hooksFor(runtime).stop(
          last !== undefined && AIMessage.isInstance(last) ? textOf(last) : undefined,
        );
        if (!decided.ok || decided.decision?.decision !== 'block') return undefined;
        return {
          messages: [new HumanMessage(decided.decision.reason ?? 'A Stop hook asks the agent to go on.')],
          jumpTo: 'model',
        };
      },
    },
  });
};
