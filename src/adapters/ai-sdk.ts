import {
  wrapLanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  type ToolApprovalConfiguration,
  type ToolApprovalStatus,
  type ToolExecutionOptions,
  type ToolSet,
} from 'ai';
import {
  agentHooks,
  asJson,
  asObject,
  type AgentHooks,
  type AgentHooksOptions,
} from '../host/agent-hooks.js';
import type { Decided, ResultGate, ToolGate } from '../host/gates.js';
import type { HookDecision } from '../output/lines.js';

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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tool set and context
  readonly toolApproval?: ToolApprovalConfiguration<any, any>;
}

/** The tool call the SDK asks about (`toolApproval`'s argument, as far as the adapter reads it). */
interface ApprovalRequest {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
  readonly tools?: ToolSet | undefined;
  readonly toolsContext?: unknown;
  readonly runtimeContext?: unknown;
  readonly messages?: ModelMessage[];
}

/** The adapter's `toolApproval`: PreToolUse for every tool call, as an SDK approval status. */
type HookedToolApproval = (request: ApprovalRequest) => Promise<ToolApprovalStatus>;

/** What a turn's call gets: the prompt to send and the hooks' context for the model. */
export interface TurnInput {
  /** The user's prompt, or on a continuation the Stop hook's reason. */
  readonly prompt: string;
  /** `additional_context` of SessionStart (first turn) and UserPromptSubmit, in that order. */
  readonly context: readonly string[];
  /** 0 for the user's prompt, then 1, 2… for each continuation a Stop hook asked for. */
  readonly continuation: number;
}

/** How a turn ended: the last result of the host's call, or why the prompt was not sent. */
export type TurnOutcome<R> =
  { readonly ok: true; readonly result: R } | { readonly ok: false; readonly reason: string };

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

/** The error a tool call ends with when the hooks refused it or its result: the model reads `message`. */
export class HookBlockedError extends Error {
  override readonly name = 'HookBlockedError';
}

const ENGINE = 'cosh-hooks';
/** PreToolUse verdicts kept for `execute` (or an approval's replay); the oldest go first. */
const MAX_PENDING = 1024;

type Status = Exclude<ToolApprovalStatus, undefined | string>;
const RANK: Readonly<Record<Status['type'], number>> = {
  'not-applicable': 0,
  approved: 1,
  'user-approval': 2,
  denied: 3,
};

const normalize = (status: ToolApprovalStatus): Status =>
  status === undefined
    ? { type: 'not-applicable' }
    : typeof status === 'string'
      ? ({ type: status } as Status)
      : status;

/** The stricter of two statuses: denied > user-approval > approved > not-applicable. */
const stricter = (a: ToolApprovalStatus, b: ToolApprovalStatus): Status => {
  const [x, y] = [normalize(a), normalize(b)];
  return RANK[y.type] > RANK[x.type] ? y : x;
};

/** A PreToolUse gate as an SDK approval status. */
const approvalOf = (gate: ToolGate): Status => {
  switch (gate.action) {
    case 'deny':
      return { type: 'denied', reason: gate.reason };
    case 'ask':
      return { type: 'user-approval', reason: gate.reason };
    default:
      return gate.decision?.decision === 'allow'
        ? {
            type: 'approved',
            ...(gate.decision.reason === undefined ? {} : { reason: gate.decision.reason }),
          }
        : { type: 'not-applicable' };
  }
};

type ToolOf = ToolSet[string];
type HostApproval = NonNullable<HookableSettings['toolApproval']>;

/** What the host's own rule says (its `toolApproval`, else the tool's `needsApproval`), as the SDK reads it. */
const hostStatus = async (
  host: HostApproval | undefined,
  request: ApprovalRequest,
): Promise<ToolApprovalStatus> => {
  const { toolCall } = request;
  if (typeof host === 'function')
    return (host as (request: ApprovalRequest) => Promise<ToolApprovalStatus>)(request);
  const own = (host as Record<string, unknown> | undefined)?.[toolCall.toolName];
  const context = (request.toolsContext as Record<string, unknown> | undefined)?.[toolCall.toolName];
  const options = { toolCallId: toolCall.toolCallId, messages: request.messages ?? [] };
  if (own !== undefined && own !== null) {
    return typeof own === 'function'
      ? (own as (input: unknown, options: unknown) => Promise<ToolApprovalStatus>)(toolCall.input, {
          ...options,
          toolContext: context,
          runtimeContext: request.runtimeContext,
        })
      : (own as ToolApprovalStatus);
  }
  const tool = request.tools?.[toolCall.toolName] as ToolOf | undefined;
  const needs = tool?.needsApproval;
  if (needs === undefined || needs === null) return 'not-applicable';
  const asks =
    typeof needs === 'function'
      ? await (needs as (input: unknown, options: unknown) => Promise<boolean>)(toolCall.input, {
          ...options,
          context,
        })
      : needs;
  return asks ? 'user-approval' : 'not-applicable';
};

/** A tool input as comparable text: the same call seen twice has the same text. */
const fingerprint = (input: unknown): string => JSON.stringify(asJson(asObject(input)));

interface Pending {
  readonly gate: ToolGate;
  readonly seen: string;
  /** Whether a hook changed the input (`updated_input`, `tool_input`). */
  readonly patched: boolean;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** A tool's output as the model gets it after PostToolUse. */
const outputOf = (gate: ResultGate, output: unknown): unknown => {
  switch (gate.action) {
    case 'withhold':
      throw new HookBlockedError(gate.reason);
    case 'replace':
      return gate.response;
    default:
      return output;
  }
};

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type ContentPart = GenerateResult['content'][number];

/** BeforeModel's `llm_request`: the model, the prompt's messages, the tools offered. */
const llmRequest = (model: { readonly provider: string; readonly modelId: string }, params: CallOptions) => ({
  model: model.modelId,
  provider: model.provider,
  messages: params.prompt,
  ...(params.tools === undefined ? {} : { tools: params.tools }),
  ...(params.toolChoice === undefined ? {} : { tool_choice: params.toolChoice }),
});

/** AfterModel's `llm_response`: the text, the tool calls (inputs parsed), why it finished, usage. */
const llmResponse = (content: readonly ContentPart[], finishReason: unknown, usage: unknown) => {
  const text = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const calls = content.flatMap((part) =>
    part.type === 'tool-call'
      ? [{ id: part.toolCallId, name: part.toolName, input: asObject(part.input) }]
      : [],
  );
  const reason = (finishReason as { unified?: unknown } | undefined)?.unified ?? finishReason;
  return { content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}), finish_reason: reason, usage };
};

/** The content a stream carried, rebuilt from its parts for AfterModel. */
const collector = () => {
  const texts: string[] = [];
  const content: ContentPart[] = [];
  let finish: { finishReason?: unknown; usage?: unknown } = {};
  return {
    add(part: StreamPart): void {
      if (part.type === 'text-delta') texts.push(part.delta);
      else if (part.type === 'tool-call') content.push(part as ContentPart);
      else if (part.type === 'finish') finish = part;
    },
    response: () =>
      llmResponse(
        [{ type: 'text', text: texts.join('') } as ContentPart, ...content],
        finish.finishReason,
        finish.usage,
      ),
  };
};

/** The AI SDK adapter for one agent run on `options.session` (see the module's comment). */
export const aiSdkHooks = (options: AgentHooksOptions): AiSdkHooks => {
  const hooks = agentHooks(options);
  const pending = new Map<string, Pending>();
  let started = false;

  const remember = (id: string, entry: Pending) => {
    pending.delete(id);
    pending.set(id, entry);
    if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as string);
  };
  /** PreToolUse of one call: the one already decided for this very input, else the hooks' now. */
  const gateOf = async (name: string, id: string, input: unknown, reuse: boolean): Promise<Pending> => {
    const seen = fingerprint(input);
    const earlier = pending.get(id);
    if (reuse && earlier !== undefined && earlier.seen === seen) return earlier;
    const gate = await hooks.beforeTool(name, input, id);
    return { gate, seen, patched: gate.action !== 'deny' && gate.input !== asObject(input) };
  };

  const approve =
    (host: HostApproval | undefined): HookedToolApproval =>
    async (request) => {
      const { toolCallId, toolName, input } = request.toolCall;
      // The SDK asks again when an approved call comes back: the hooks already asked about it.
      const entry = await gateOf(toolName, toolCallId, input, true);
      if (entry.gate.action !== 'deny') remember(toolCallId, entry);
      const hooked = approvalOf(entry.gate);
      return hooked.type === 'denied' ? hooked : stricter(hooked, await hostStatus(host, request));
    };

  const guard =
    (name: string, execute: NonNullable<ToolOf['execute']>) =>
    async (input: unknown, execution: ToolExecutionOptions<unknown>): Promise<unknown> => {
      const id = execution.toolCallId;
      const entry = await gateOf(name, id, input, true);
      const approved = pending.get(id) === entry;
      pending.delete(id);
      const { gate } = entry;
      if (gate.action === 'deny') throw new HookBlockedError(gate.reason);
      if (gate.action === 'ask' && !approved) {
        throw new HookBlockedError(
          `${gate.reason} (${ENGINE}: not approved: pass toolApproval to the AI SDK call)`,
        );
      }
      const effective = entry.patched ? gate.input : input;
      let output: unknown;
      try {
        output = await (execute as (input: unknown, options: unknown) => unknown)(effective, execution);
        // A streaming tool's preliminary results are collected: PostToolUse judges the final one.
        if (isAsyncIterable(output)) {
          let last: unknown;
          for await (const item of output) last = item;
          output = last;
        }
      } catch (error) {
        await hooks.toolFailed(name, effective, error, id);
        throw error;
      }
      return outputOf(await hooks.afterTool(name, effective, output, id), output);
    };

  const tools = <T extends ToolSet>(set: T): T =>
    Object.fromEntries(
      Object.entries(set).map(([name, tool]) =>
        tool.execute === undefined ? [name, tool] : [name, { ...tool, execute: guard(name, tool.execute) }],
      ),
    ) as T;

  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const request = llmRequest(model, params);
      await hooks.beforeModel(request);
      const result = await doGenerate();
      await hooks.afterModel(llmResponse(result.content, result.finishReason, result.usage), request);
      return result;
    },
    wrapStream: async ({ doStream, params, model }) => {
      const request = llmRequest(model, params);
      await hooks.beforeModel(request);
      const { stream, ...rest } = await doStream();
      const seen = collector();
      const tap = new TransformStream<StreamPart, StreamPart>({
        transform: (part, controller) => {
          seen.add(part);
          controller.enqueue(part);
        },
        flush: async () => {
          await hooks.afterModel(seen.response(), request);
        },
      });
      return { ...rest, stream: stream.pipeThrough(tap) };
    },
  };
  const model = (inner: HookableModel): HookedModel => wrapLanguageModel({ model: inner, middleware });

  const contextOf = (decided: Decided): string[] =>
    decided.ok && decided.decision?.additional_context !== undefined
      ? [decided.decision.additional_context]
      : [];

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
    turn: async (prompt, call, confirm) => {
      const context: string[] = [];
      if (!started) {
        started = true;
        context.push(...contextOf(await hooks.sessionStart('startup')));
      }
      const submitted = await hooks.userPrompt(prompt);
      if (!submitted.ok) return { ok: false, reason: submitted.failure };
      const decision: Partial<HookDecision> = submitted.decision ?? {};
      const reason = decision.reason ?? decision.systemMessage;
      if (decision.decision === 'block') return { ok: false, reason: reason ?? 'blocked by a hook' };
      if (decision.decision === 'ask') {
        const asked = reason ?? 'A hook requires your approval before this action can proceed.';
        if (confirm === undefined || !(await confirm(asked)))
          return { ok: false, reason: `Prompt rejected: ${asked}` };
      }
      context.push(...contextOf(submitted));
      let input: TurnInput = { prompt, context, continuation: 0 };
      for (;;) {
        const result = await call(input);
        const stopped = await hooks.stop(await result.text);
        if (!stopped.ok || stopped.decision?.decision !== 'block') return { ok: true, result };
        input = {
          prompt: stopped.decision.reason ?? 'continue',
          context: [],
          continuation: input.continuation + 1,
        };
      }
    },
  };
};
