import { wrapLanguageModel, type LanguageModelMiddleware, type ToolApprovalStatus, type ToolSet } from 'ai';
import { agentHooks, type AgentHooks, type AgentHooksOptions } from '../host/agent-hooks.js';
import {
  approvalOf,
  hostStatus,
  stricter,
  type ApprovalRequest,
  type HostApproval,
} from './ai-sdk/approval.js';
import { modelMiddleware } from './ai-sdk/middleware.js';
import { guardTools, HookBlockedError } from './ai-sdk/tools.js';
import { turns, type TurnInput, type TurnOutcome } from './ai-sdk/turn.js';
import { verdicts } from './ai-sdk/verdicts.js';

export { HookBlockedError, type TurnInput, type TurnOutcome };

/**
 * The Vercel AI SDK adapter (`cosh-hooks/ai-sdk`, docs/hosts.md): every tool call and model call
 * of a `generateText` / `streamText` loop goes through the hooks.
 *
 * - PreToolUse is the SDK's `toolApproval`: block → `denied` (the model gets the reason as the
 *   SDK's `execution-denied` tool result), ask → `user-approval` (the SDK's approval flow), allow
 *   → `approved`, pass-through → the host's own approval rule. The stricter of the hooks' status
 *   and the host's wins.
 * - Each tool's `execute` runs with the hooks' patched input, then PostToolUse (a block withholds
 *   the result, `updated_tool_response` replaces it) or PostToolUseFailure (the error still
 *   reaches the SDK). A call that reaches `execute` without its PreToolUse (no `toolApproval`
 *   given, or its input changed since) is decided there, and a block is thrown.
 * - BeforeModel / AfterModel wrap each model call (`wrapLanguageModel` middleware).
 * - SessionStart, UserPromptSubmit and Stop frame a `turn`: the SDK's own callbacks cannot stop
 *   anything (it swallows their errors), so the turn is the host's call, wrapped.
 */

/** The model a host passes to `generateText` (an object: a model id string has no calls to wrap). */
type HookableModel = Parameters<typeof wrapLanguageModel>[0]['model'];
/** The model the adapter gives back: the host's, with BeforeModel / AfterModel around each call. */
type HookedModel = ReturnType<typeof wrapLanguageModel>;

/** What `wrap` takes: the parts of a `generateText` / `streamText` call the hooks see into. */
interface HookableSettings {
  readonly model: HookableModel;
  readonly tools?: ToolSet;
  readonly toolApproval?: HostApproval;
}

/** The adapter's `toolApproval`: PreToolUse for every tool call, as an SDK approval status. */
type HookedToolApproval = (request: ApprovalRequest) => Promise<ToolApprovalStatus>;

/** The adapter for one agent run: pieces to spread into `generateText` / `streamText`. */
export interface AiSdkHooks {
  /** The framework-free calls (`decide`, `beforeTool`, …), for events the SDK has no place for. */
  readonly hooks: AgentHooks;
  /** The BeforeModel / AfterModel middleware, for a host that composes its own `wrapLanguageModel`. */
  readonly middleware: LanguageModelMiddleware;
  /** PreToolUse as the SDK's `toolApproval`. */
  readonly toolApproval: HookedToolApproval;
  /** `model` with BeforeModel / AfterModel around each call. */
  model(model: HookableModel): HookedModel;
  /** `tools` with each `execute` wrapped: patched input, PostToolUse, PostToolUseFailure. */
  tools<T extends ToolSet>(tools: T): T;
  /** All three at once: `generateText({ ...ai.wrap({ model, tools }), prompt })`. */
  wrap<S extends HookableSettings>(
    settings: S,
  ): Omit<S, 'model' | 'toolApproval'> & { model: HookedModel; toolApproval: HookedToolApproval };
  /**
   * One turn: SessionStart before the first, UserPromptSubmit (block → not sent; ask → `confirm`,
   * refused without it), the host's `call`, then Stop (block → `call` again with the reason as the
   * prompt, as often as the engine's Stop-loop guard lets it).
   */
  turn<R extends { readonly text: string | PromiseLike<string> }>(
    prompt: string,
    call: (input: TurnInput) => Promise<R>,
    confirm?: (reason: string) => boolean | Promise<boolean>,
  ): Promise<TurnOutcome<R>>;
}

/** The AI SDK adapter for one agent run on `options.session` (see the module's comment). */
export const aiSdkHooks = (options: AgentHooksOptions): AiSdkHooks => {
  const hooks = agentHooks(options);
  const kept = verdicts(hooks);
  const approve =
    (host: HostApproval | undefined): HookedToolApproval =>
    async (request) => {
      const { toolCallId, toolName, input } = request.toolCall;
      // The SDK asks again when an approved call comes back: the hooks already judged that very call.
      const verdict = await kept.of(toolName, toolCallId, input);
      kept.keep(toolName, toolCallId, verdict);
      const hooked = approvalOf(verdict.gate);
      return hooked.type === 'denied' ? hooked : stricter(hooked, await hostStatus(host, request));
    };
  const middleware = modelMiddleware(hooks);
  const model = (inner: HookableModel): HookedModel => wrapLanguageModel({ model: inner, middleware });
  const tools = <T extends ToolSet>(set: T): T => guardTools(hooks, kept, set);
  return {
    hooks,
    middleware,
    toolApproval: approve(undefined),
    model,
    tools,
    wrap: (settings) => ({
      ...settings,
      model: model(settings.model),
      ...(settings.tools === undefined ? {} : { tools: tools(settings.tools) }),
      toolApproval: approve(settings.toolApproval),
    }),
    turn: turns(hooks),
  };
};
