// The AI SDK adapter against the real `ai` package: real generateText / streamText loops over
// several steps, driven by the SDK's own mock language model, with hooks deciding each call.
import { generateText, isStepCount, streamText, tool, type ModelMessage } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { concatMap, from, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { TestMessage } from 'rxjs/internal/testing/TestMessage';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defaultDeps,
  defineHooks,
  type HookDefinitions,
  type HookEvent,
  type Session,
} from 'cosh-hooks';
import { createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';
import { aiSdkHooks, HookBlockedError } from 'cosh-hooks/ai-sdk';

type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const call = (id: string, command: string): Generated => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'shell', input: JSON.stringify({ command }) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const say = (text: string): Generated => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: undefined },
  usage,
  warnings: [],
});

/** A model that answers each call with the next reply, and keeps every prompt it was sent. */
const scripted = (...replies: Generated[]) => {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const reply = replies[prompts.length - 1];
      if (reply === undefined) throw new Error(`no reply scripted for call ${prompts.length}`);
      return reply;
    },
  });
  return { model, prompts };
};

/** A shell tool that runs nothing: it records each command it was asked to run. */
const shellTool = (ran: string[], fail?: string) =>
  tool({
    description: 'Run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      ran.push(command);
      if (fail !== undefined && command.includes(fail)) throw new Error(`exit 1: ${command}`);
      return { output: `ran ${command}` };
    },
  });

/** The tool results (and denials) of the last tool message in a prompt the model was sent. */
const toolResults = (prompt: Prompt | undefined) =>
  (prompt ?? [])
    .filter((message) => message.role === 'tool')
    .slice(-1)
    .flatMap((message) =>
      message.content.flatMap((part) => (part.type === 'tool-result' ? [part.output] : [])),
    );

const sessions: Session[] = [];
const sessionOf = (hooks: HookDefinitions) => {
  const session = createSession(defineHooks(hooks), defaultDeps(), { concurrency: 'per-session' });
  sessions.push(session);
  return session;
};
afterEach(() => sessions.splice(0).forEach((session) => session.close()));

const commandOf = (event: HookEvent) => ('tool_input' in event ? String(event.tool_input['command']) : '');
const guard: HookDefinitions = {
  PreToolUse: [
    {
      name: 'guard',
      run: (event) =>
        commandOf(event).includes('rm -rf')
          ? { decision: 'block', reason: 'no rm -rf' }
          : { decision: 'allow' },
    },
  ],
};

describe('aiSdkHooks in a real generateText loop', () => {
  it('blocks a dangerous call: the tool never runs, the model gets the reason as execution-denied', async () => {
    const ran: string[] = [];
    const seen: string[] = [];
    const session = sessionOf({
      ...guard,
      PostToolUse: [
        { name: 'seen', run: (event) => void seen.push(`${event.hook_event_name} ${commandOf(event)}`) },
      ],
    });
    const { model, prompts } = scripted(call('t1', 'ls'), call('t2', 'rm -rf /'), say('done'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const result = await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
      prompt: 'clean up',
      stopWhen: isStepCount(5),
    });
    expect(ran).toEqual(['ls']);
    expect(seen).toEqual(['PostToolUse ls']);
    expect(toolResults(prompts[1])).toEqual([{ type: 'json', value: { output: 'ran ls' } }]);
    expect(toolResults(prompts[2])).toEqual([{ type: 'execution-denied', reason: 'no rm -rf' }]);
    expect(result.text).toBe('done');
  });

  it('runs the tool with the input a hook patched (tool_input patch, updated_input replacement)', async () => {
    const ran: string[] = [];
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'patch',
          run: (event) =>
            commandOf(event) === 'ls'
              ? { decision: 'allow', hookSpecificOutput: { tool_input: { command: 'ls --color=never' } } }
              : { hookSpecificOutput: { updated_input: { command: 'echo replaced' } } },
        },
      ],
    });
    const { model } = scripted(call('t1', 'ls'), call('t2', 'cat x'), say('done'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
      prompt: 'go',
      stopWhen: isStepCount(5),
    });
    expect(ran).toEqual(['ls --color=never', 'echo replaced']);
  });

  it("sends ask through the SDK's approval flow: run once approved, never when declined, asked once", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'confirm',
          run: (event) => {
            asked.push(commandOf(event));
            return { decision: 'ask', reason: 'a force-push rewrites history' };
          },
        },
      ],
    });
    const { model, prompts } = scripted(
      call('t1', 'git push -f'),
      say('pushed'),
      call('t2', 'git push -f'),
      say('not pushed'),
    );
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const settings = ai.wrap({ model, tools: { shell: shellTool(ran) } });
    const messages: ModelMessage[] = [{ role: 'user', content: 'push' }];

    const first = await generateText({ ...settings, messages, stopWhen: isStepCount(5) });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({
      reason: 'a force-push rewrites history',
      toolCall: { toolCallId: 't1' },
    });
    expect(ran).toEqual([]);
    messages.push(...first.responseMessages, {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request?.approvalId ?? '', approved: true }],
    });
    const second = await generateText({ ...settings, messages, stopWhen: isStepCount(5) });
    expect(ran).toEqual(['git push -f']);
    expect(second.text).toBe('pushed');
    expect(asked).toEqual(['git push -f']);

    messages.push(...second.responseMessages, { role: 'user', content: 'again' });
    const third = await generateText({ ...settings, messages, stopWhen: isStepCount(5) });
    const again = third.content.find((part) => part.type === 'tool-approval-request');
    messages.push(...third.responseMessages, {
      role: 'tool',
      content: [
        {
          type: 'tool-approval-response',
          approvalId: again?.approvalId ?? '',
          approved: false,
          reason: 'no',
        },
      ],
    });
    await generateText({ ...settings, messages, stopWhen: isStepCount(5) });
    expect(ran).toEqual(['git push -f']);
    expect(toolResults(prompts.at(-1)).at(-1)).toEqual({ type: 'execution-denied', reason: 'no' });
  });

  it('gives PostToolUseFailure when the tool throws, and the error still reaches the SDK', async () => {
    const failures: unknown[] = [];
    const session = sessionOf({
      PostToolUseFailure: [
        { name: 'failed', run: (event) => void failures.push('error' in event && event.error) },
      ],
    });
    const { model, prompts } = scripted(call('t1', 'make'), say('it failed'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const result = await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool([], 'make') } }),
      prompt: 'build',
      stopWhen: isStepCount(5),
    });
    expect(failures).toEqual(['exit 1: make']);
    expect(result.steps[0]?.content.find((part) => part.type === 'tool-error')).toMatchObject({
      error: new Error('exit 1: make'),
    });
    expect(toolResults(prompts[1])).toEqual([{ type: 'error-text', value: 'Error: exit 1: make' }]);
  });

  it('withholds a result a PostToolUse hook blocks, and replaces one it rewrites', async () => {
    const session = sessionOf({
      PostToolUse: [
        {
          name: 'filter',
          run: (event) =>
            commandOf(event) === 'cat .env'
              ? { decision: 'block', reason: 'secrets withheld' }
              : { hookSpecificOutput: { updated_tool_response: { output: 'redacted' } } },
        },
      ],
    });
    const { model, prompts } = scripted(call('t1', 'cat .env'), call('t2', 'ls'), say('ok'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool([]) } }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(toolResults(prompts[1])).toEqual([
      { type: 'error-text', value: 'HookBlockedError: secrets withheld' },
    ]);
    expect(toolResults(prompts[2])).toEqual([{ type: 'json', value: { output: 'redacted' } }]);
  });

  it('denies every call when the engine fails (a closed session), naming the failure; the tool never runs', async () => {
    const ran: string[] = [];
    const session = sessionOf(guard);
    session.close();
    const { model, prompts } = scripted(call('t1', 'ls'), say('ok'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(ran).toEqual([]);
    expect(toolResults(prompts[1])).toEqual([
      { type: 'execution-denied', reason: 'cosh-hooks: the session is closed' },
    ]);
  });

  it('decides in execute when the host left toolApproval out: a block is thrown there, the tool never runs', async () => {
    const ran: string[] = [];
    const { model, prompts } = scripted(call('t1', 'rm -rf /'), say('ok'));
    const ai = aiSdkHooks({ session: sessionOf(guard), sessionId: 's1' });
    await generateText({
      model: ai.model(model),
      tools: ai.tools({ shell: shellTool(ran) }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(ran).toEqual([]);
    expect(toolResults(prompts[1])).toEqual([{ type: 'error-text', value: 'HookBlockedError: no rm -rf' }]);
    expect(new HookBlockedError('x').name).toBe('HookBlockedError');
  });

  it("keeps the host's own approval rules: the stricter of the hooks' status and the host's wins", async () => {
    const ran: string[] = [];
    const { model } = scripted(
      {
        ...call('t1', 'ls'),
        content: [
          { type: 'tool-call', toolCallId: 't1', toolName: 'shell', input: '{"command":"ls"}' },
          { type: 'tool-call', toolCallId: 't2', toolName: 'deploy', input: '{"command":"deploy"}' },
        ],
      },
      say('ok'),
    );
    const ai = aiSdkHooks({ session: sessionOf(guard), sessionId: 's1' });
    const result = await generateText({
      ...ai.wrap({
        model,
        tools: { shell: shellTool(ran), deploy: { ...shellTool(ran), needsApproval: true } },
        toolApproval: { shell: 'denied' },
      }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    // The hooks allow both: the host denies shell, and deploy's own needsApproval still asks.
    expect(ran).toEqual([]);
    const asked = result.content.filter(
      (part) => part.type === 'tool-approval-request' && part.isAutomatic !== true,
    );
    expect(asked.map((part) => part.type === 'tool-approval-request' && part.toolCall.toolName)).toEqual([
      'deploy',
    ]);
  });

  it('blocks under fail_closed when a real sh hook times out; the tool never runs', async () => {
    const ran: string[] = [];
    const session = sessionOf({
      PreToolUse: [{ name: 'slow-guard', command: 'sleep 5', timeout: 300, fail_closed: true }],
    });
    const { model, prompts } = scripted(call('t1', 'ls'), say('ok'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const started = Date.now();
    await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(ran).toEqual([]);
    const [denied] = toolResults(prompts[1]);
    expect(denied).toMatchObject({ type: 'execution-denied' });
    expect((denied as { reason: string }).reason).toMatch(/slow-guard.*timed out after 300 ms/);
  });

  it("keeps two sessions' concurrent runs apart (per-session concurrency)", async () => {
    let release: () => void = () => undefined;
    const bStarted = new Promise<void>((resolve) => (release = resolve));
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'per-session',
          run: async (event) => {
            // a's hook waits for b's: only per-session concurrency lets both be decided at once.
            if (event.session_id === 'a') await bStarted;
            else release();
            return event.session_id === 'a'
              ? { decision: 'block', reason: 'not in a' }
              : { decision: 'allow' };
          },
        },
      ],
    });
    const runOf = (id: string) => {
      const ran: string[] = [];
      const { model, prompts } = scripted(call(`${id}1`, 'ls'), say('ok'));
      const ai = aiSdkHooks({ session, sessionId: id });
      return {
        ran,
        prompts,
        done: generateText({
          ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
          prompt: 'x',
          stopWhen: isStepCount(3),
        }),
      };
    };
    const [a, b] = [runOf('a'), runOf('b')];
    await Promise.all([a.done, b.done]);
    expect(a.ran).toEqual([]);
    expect(b.ran).toEqual(['ls']);
    expect(toolResults(a.prompts[1])).toEqual([{ type: 'execution-denied', reason: 'not in a' }]);
  });

  it('tells BeforeModel and AfterModel about each model call: the messages sent, the tool calls received', async () => {
    const seen: string[] = [];
    const session = sessionOf({
      BeforeModel: [
        {
          name: 'm',
          run: (e) =>
            void seen.push(
              `before ${e.hook_event_name === 'BeforeModel' ? (e.llm_request['messages'] as unknown[]).length : '?'}`,
            ),
        },
      ],
      AfterModel: [
        {
          name: 'm',
          run: (e) => {
            const response = 'llm_response' in e ? e.llm_response : {};
            const calls = (response['tool_calls'] as { name: string; input: unknown }[] | undefined) ?? [];
            seen.push(
              `after ${JSON.stringify(calls)} ${String(response['content'])} ${String(response['finish_reason'])}`,
            );
          },
        },
      ],
    });
    const { model } = scripted(call('t1', 'ls'), say('done'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    await generateText({
      ...ai.wrap({ model, tools: { shell: shellTool([]) } }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(seen).toEqual([
      'before 1',
      'after [{"id":"t1","name":"shell","input":{"command":"ls"}}]  tool-calls',
      'before 3',
      'after [] done stop',
    ]);
  });

  it('hooks a streamText loop the same way: block, run, AfterModel from the stream', async () => {
    const ran: string[] = [];
    const after: string[] = [];
    const session = sessionOf({
      ...guard,
      AfterModel: [
        {
          name: 'm',
          run: (e) => void after.push(JSON.stringify('llm_response' in e && e.llm_response['tool_calls'])),
        },
      ],
    });
    const chunks = (...parts: unknown[]) => ({
      stream: convertArrayToReadableStream([
        ...parts,
        { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
      ]) as never,
    });
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        if (calls === 1) {
          return chunks(
            { type: 'tool-call', toolCallId: 't1', toolName: 'shell', input: '{"command":"rm -rf /"}' },
            { type: 'tool-call', toolCallId: 't2', toolName: 'shell', input: '{"command":"ls"}' },
          );
        }
        return chunks(
          { type: 'text-start', id: '1' },
          { type: 'text-delta', id: '1', delta: 'done' },
          { type: 'text-end', id: '1' },
        );
      },
    });
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const result = streamText({
      ...ai.wrap({ model, tools: { shell: shellTool(ran) } }),
      prompt: 'x',
      stopWhen: isStepCount(5),
    });
    expect(await result.text).toBe('done');
    expect(ran).toEqual(['ls']);
    expect(after[0]).toBe(
      '[{"id":"t1","name":"shell","input":{"command":"rm -rf /"}},{"id":"t2","name":"shell","input":{"command":"ls"}}]',
    );
    expect(toolResults(model.doStreamCalls[1]?.prompt)).toEqual([
      { type: 'execution-denied', reason: 'no rm -rf' },
      { type: 'json', value: { output: 'ran ls' } },
    ]);
  });
});

describe('aiSdkHooks.turn: SessionStart, UserPromptSubmit and Stop around the host call', () => {
  it('starts the session once, gives the hooks context, and continues while a Stop hook blocks', async () => {
    const events: string[] = [];
    let stops = 0;
    const session = sessionOf({
      SessionStart: [
        { name: 'ctx', run: () => ({ hookSpecificOutput: { additional_context: 'workspace facts' } }) },
      ],
      UserPromptSubmit: [
        { name: 'ctx', run: () => ({ hookSpecificOutput: { additional_context: 'house rules' } }) },
      ],
      Stop: [
        {
          name: 'more',
          run: () => (++stops === 1 ? { decision: 'block', reason: 'run the tests too' } : {}),
        },
      ],
    });
    const { model } = scripted(say('cleaned'), say('tested'), say('again'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const send = async (input: { prompt: string; context: readonly string[]; continuation: number }) => {
      events.push(`${input.continuation} ${input.prompt} [${input.context.join('; ')}]`);
      return generateText({ model: ai.model(model), prompt: input.prompt });
    };
    const first = await ai.turn('clean up', send);
    expect(first.ok && first.result.text).toBe('tested');
    const second = await ai.turn('once more', send);
    expect(second.ok && second.result.text).toBe('again');
    expect(events).toEqual([
      '0 clean up [workspace facts; house rules]',
      '1 run the tests too []',
      '0 once more [house rules]',
    ]);
  });

  it('does not send a prompt a hook blocks, and asks the user when a hook asks', async () => {
    const session = sessionOf({
      UserPromptSubmit: [
        {
          name: 'p',
          run: (e) =>
            'prompt' in e && e.prompt.includes('secret')
              ? { decision: 'block', reason: 'no secrets' }
              : { decision: 'ask', reason: 'sure?' },
        },
      ],
    });
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const sent: string[] = [];
    const send = async (input: { prompt: string }) => {
      sent.push(input.prompt);
      return { text: 'ok' };
    };
    expect(await ai.turn('my secret', send)).toEqual({ ok: false, reason: 'no secrets' });
    expect(await ai.turn('hello', send)).toEqual({ ok: false, reason: 'Prompt rejected: sure?' });
    expect(await ai.turn('hello', send, () => false)).toEqual({
      ok: false,
      reason: 'Prompt rejected: sure?',
    });
    expect(await ai.turn('hello', send, (reason) => reason === 'sure?')).toEqual({
      ok: true,
      result: { text: 'ok' },
    });
    expect(sent).toEqual(['hello']);
  });
});

describe('a host loop on the adapter, in virtual time', () => {
  /** Virtual time frame by frame, the SDK's promises settling between frames. */
  const play = async (scheduler: TestScheduler, frames: number) => {
    for (let frame = 0; frame <= frames; frame++) {
      scheduler.maxFrames = frame;
      scheduler.flush();
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('answers each prompt after its hooks: a tool runs at its decision, a blocked one never', async () => {
    const scheduler = createTestScheduler();
    const ran: [number, string][] = [];
    // The guard takes 3 frames (of 10, outside run mode) per call.
    const guard = (event: HookEvent) =>
      scheduler.createColdObservable('---(r|)', {
        r: commandOf(event).includes('rm') ? results.block('no rm') : results.allow(),
      });
    const session = createSession(
      defineHooks({ PreToolUse: [{ name: 'guard', command: 'fake guard' }] }),
      testDeps(scheduler, fakeExecutor({ guard })),
      { concurrency: 'per-session' },
    );
    sessions.push(session);
    const { model } = scripted(call('t1', 'ls'), say('listed'), call('t2', 'rm -rf /'), say('refused'));
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const shell = tool({
      inputSchema: z.object({ command: z.string() }),
      execute: ({ command }) => void ran.push([scheduler.now(), command]),
    });
    const prompts$ = scheduler.createHotObservable('a---b|', { a: 'list', b: 'clean' });
    // The host's loop: one prompt at a time through a multi-step generateText.
    const answers$ = prompts$.pipe(
      concatMap((prompt) =>
        from(generateText({ ...ai.wrap({ model, tools: { shell } }), prompt, stopWhen: isStepCount(3) })),
      ),
      map((result) => result.text),
    );
    const seen: TestMessage[] = [];
    answers$.subscribe({
      next: (value) =>
        seen.push({ frame: scheduler.now(), notification: { kind: 'N', value, error: undefined } as never }),
      complete: () =>
        seen.push({
          frame: scheduler.now(),
          notification: { kind: 'C', value: undefined, error: undefined } as never,
        }),
    });
    await play(scheduler, 100);
    expect(seen).toEqual(TestScheduler.parseMarbles('---a---(b|)', { a: 'listed', b: 'refused' }));
    expect(ran).toEqual([[30, 'ls']]);
  });
});
