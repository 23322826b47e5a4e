import type { LanguageModelMiddleware } from 'ai';
import { asObject, type AgentHooks } from '../../host/agent-hooks.js';

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

/**
 * BeforeModel and AfterModel around each model call, as `wrapLanguageModel` middleware. What no
 * hook or observer can see is not built: without a BeforeModel or AfterModel hook the call passes
 * untouched, and a stream is not tapped without an AfterModel hook.
 */
export const modelMiddleware = (hooks: AgentHooks): LanguageModelMiddleware => ({
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate, params, model }) => {
    const after = hooks.wants('AfterModel');
    const request = after || hooks.wants('BeforeModel') ? llmRequest(model, params) : undefined;
    if (request !== undefined) await hooks.beforeModel(request);
    const result = await doGenerate();
    if (after)
      await hooks.afterModel(llmResponse(result.content, result.finishReason, result.usage), request);
    return result;
  },
  wrapStream: async ({ doStream, params, model }) => {
    const after = hooks.wants('AfterModel');
    const request = after || hooks.wants('BeforeModel') ? llmRequest(model, params) : undefined;
    if (request !== undefined) await hooks.beforeModel(request);
    const streamed = await doStream();
    if (!after) return streamed;
    const { stream, ...rest } = streamed;
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
});
