// cosh-hooks/openai-agents against the real OpenAI Agents JS run loop, driven by a scripted Model
// and ModelProvider of this file: tracing off, and fetch refused, so nothing reaches OpenAI.
import {
  Agent,
  InputGuardrailTripwireTriggered,
  Runner,
  setTracingDisabled,
  tool,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openaiAgentsHooks } from '../../src/adapters/openai-agents.js';
import {
  createSession,
  defaultDeps,
  defineHooks,
  type HookDefinitions,
  type HookEvent,
  type Session,
} from '../../src/index.js';

const realFetch = globalThis.fetch;
const dialled: string[] = [];
beforeAll(() => {
  setTracingDisabled(true);
  globalThis.fetch = (async (url: unknown) => {
    dialled.push(String(url));
    throw new Error('no network in this test');
  }) as typeof fetch;
});
afterAll(() => {
  globalThis.fetch = realFetch;
  expect(dialled).toEqual([]);
});

const sessions: Session[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
});

const sessionOf = (hooks: HookDefinitions): Session => {
  const session = createSession(defineHooks(hooks), defaultDeps(), { concurrency: 'per-session' });
  sessions.push(session);
  return session;
};

/** A PreToolUse hook for every tool: a call no hook could judge is then never run. */
const ALLOW_ALL: HookDefinitions = {
  PreToolUse: [{ name: 'allow', run: () => ({ decision: 'allow' }) }],
};

/** One model turn: a tool call, or a final text. */
type Turn = { call: { name: string; args: Record<string, unknown>; id: string } } | { text: string };

/** A Model answering from a script, one turn per call, recording each request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly turns: Turn[]) {}

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns.shift() ?? { text: 'out of script' };
    return Promise.resolve({
      usage: new Usage(),
      output: [
        'call' in turn
          ? {
              type: 'function_call',
              callId: turn.call.id,
              name: turn.call.name,
              arguments: JSON.stringify(turn.call.args),
              status: 'completed',
            }
          : {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: turn.text }],
            },
      ],
    });
  }

  // eslint-disable-next-line require-yield -- this model is only asked for whole responses
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error('not streamed in these tests');
  }
}

/** A provider that knows only `model`, so no name ever resolves to OpenAI's. */
const providerOf = (model: Model): ModelProvider => ({ getModel: () => model });

const runnerOf = (provider: ModelProvider): Runner =>
  new Runner({ modelProvider: provider, tracingDisabled: true });

const scripted = (command: string, id = 'call-1'): ScriptedModel =>
  new ScriptedModel([{ call: { name: 'shell', args: { command }, id } }, { text: 'done' }]);

const recorder = (): { seen: HookEvent[]; hooks: HookDefinitions } => {
  const seen: HookEvent[] = [];
  const record = { name: 'record', run: (event: HookEvent) => void seen.push(event) };
  return {
    seen,
    hooks: Object.fromEntries(
      [
        'SessionStart',
        'UserPromptSubmit',
        'BeforeModel',
        'AfterModel',
        'PreToolUse',
        'PostToolUse',
        'PostToolUseFailure',
        'Stop',
      ].map((name) => [name, [record]]),
    ),
  };
};

const names = (events: readonly HookEvent[]): string[] =>
  events.map((event) =>
    'tool_name' in event ? `${event.hook_event_name} ${String(event.tool_name)}` : event.hook_event_name,
  );

const GUARD: HookDefinitions = {
  PreToolUse: [
    {
      name: 'guard',
      run: (event) =>
        JSON.stringify(event).includes('rm -rf') ? { decision: 'block', reason: 'no rm -rf' } : undefined,
    },
  ],
};

/** The agent of a test: one `shell` tool made with the adapter's `tool()`, recording what it runs. */
const setup = (
  session: Session,
  model: ScriptedModel,
  options: { fail?: string; sessionId?: string } = {},
) => {
  const hooks = openaiAgentsHooks({ session, sessionId: options.sessionId ?? 's1' });
  const ran: string[] = [];
  const shell = hooks.tool({
    name: 'shell',
    description: 'Runs a shell command',
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command);
      if (options.fail !== undefined) throw new Error(options.fail);
      return `ran: ${command}`;
    },
  });
  const agent = new Agent({ name: 'main', instructions: 'Help.', model: 'scripted', tools: [shell] });
  const runner = runnerOf(hooks.modelProvider(providerOf(model)));
  return { hooks, ran, agent, runner };
};

/** What the model was given as each tool call's output, in its second request. */
const toolOutputs = (model: ScriptedModel): unknown[] =>
  (model.requests[1]?.input as AgentInputItem[] | undefined)
    ?.filter((item) => item.type === 'function_call_result')
    .map((item) => ('output' in item ? item.output : undefined)) ?? [];

const text = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : ((output as { text?: string } | undefined)?.text ?? JSON.stringify(output));

describe('openaiAgentsHooks in run()', () => {
  it('blocks a dangerous call: the tool never runs, the model gets the reason (the guardrail rejection)', async () => {
    const model = scripted('rm -rf /');
    const { ran, agent, runner, hooks } = setup(sessionOf(GUARD), model);
    const result = await hooks.run(agent, 'clean up', { runner });
    expect(ran).toEqual([]);
    expect(toolOutputs(model).map(text)).toEqual(['no rm -rf']);
    expect(result.finalOutput).toBe('done');
    expect(result.state._toolInputGuardrailResults.map((r) => r.output.behavior)).toEqual([
      { type: 'rejectContent', message: 'no rm -rf' },
    ]);
  });

  it('runs a benign call, and sends every event of the loop in order', async () => {
    const { seen, hooks: recording } = recorder();
    const model = scripted('ls');
    const { ran, agent, runner, hooks } = setup(sessionOf(recording), model);
    const result = await hooks.run(agent, 'list files', { runner });
    expect(ran).toEqual(['ls']);
    expect(toolOutputs(model).map(text)).toEqual(['ran: ls']);
    expect(result.finalOutput).toBe('done');
    expect(names(seen)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'BeforeModel',
      'AfterModel',
      'PreToolUse shell',
      'PostToolUse shell',
      'BeforeModel',
      'AfterModel',
      'Stop',
    ]);
    const [start, prompt, before, after, pre, post, , , stop] = seen;
    expect(start).toMatchObject({ session_id: 's1', source: 'startup' });
    expect(prompt).toMatchObject({ prompt: 'list files' });
    expect(before).toMatchObject({
      llm_request: {
        system: 'Help.',
        input: [{ type: 'message', role: 'user', content: 'list files' }],
        tools: [{ name: 'shell', type: 'function' }],
      },
    });
    expect(after).toMatchObject({ llm_response: { output: [{ type: 'function_call', name: 'shell' }] } });
    expect(pre).toMatchObject({ tool_name: 'shell', tool_input: { command: 'ls' }, tool_use_id: 'call-1' });
    expect(post).toMatchObject({ tool_response: 'ran: ls' });
    expect(stop).toMatchObject({ last_assistant_message: 'done' });
  });

  it('runs the tool with the input a hook patched (updated_input), through its own schema', async () => {
    const model = scripted('rm -rf ./build');
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'soften',
          run: () => ({
            decision: 'allow',
            hookSpecificOutput: { updated_input: { command: 'rm -ri ./build' } },
          }),
        },
      ],
    });
    const { ran, agent, runner, hooks } = setup(session, model);
    await hooks.run(agent, 'clean', { runner });
    expect(ran).toEqual(['rm -ri ./build']);
  });

  it('withholds the result the model sees when PostToolUse blocks', async () => {
    const model = scripted('cat secrets');
    const session = sessionOf({
      PostToolUse: [{ name: 'dlp', run: () => ({ decision: 'block', reason: 'secret' }) }],
    });
    const { ran, agent, runner, hooks } = setup(session, model);
    await hooks.run(agent, 'read', { runner });
    expect(ran).toEqual(['cat secrets']);
    expect(toolOutputs(model).map(text)).toEqual(['secret']);
  });

  it('replaces the result the model sees when PostToolUse gives updated_tool_response', async () => {
    const model = scripted('cat secrets');
    const session = sessionOf({
      PostToolUse: [
        { name: 'mask', run: () => ({ hookSpecificOutput: { updated_tool_response: 'masked' } }) },
      ],
    });
    const { ran, agent, runner, hooks } = setup(session, model);
    await hooks.run(agent, 'read', { runner });
    expect(ran).toEqual(['cat secrets']);
    expect(toolOutputs(model).map(text)).toEqual(['masked']);
  });

  it('turns ask into the framework approval: an interruption; approve runs, reject does not', async () => {
    const ask: HookDefinitions = {
      PreToolUse: [{ name: 'confirm', run: () => ({ decision: 'ask', reason: 'sure?' }) }],
    };
    for (const verdict of ['approve', 'reject'] as const) {
      const { seen, hooks: recording } = recorder();
      const model = scripted('deploy');
      const { ran, agent, runner, hooks } = setup(
        sessionOf({ ...recording, PreToolUse: [...(ask.PreToolUse ?? [])] }),
        model,
      );
      const first = await hooks.run(agent, 'deploy', { runner });
      expect(ran).toEqual([]);
      expect(first.interruptions.map((item) => [item.name, item.arguments])).toEqual([
        ['shell', '{"command":"deploy"}'],
      ]);
      expect(names(seen)).not.toContain('Stop');
      const [item] = first.interruptions;
      if (item === undefined) throw new Error('no interruption');
      if (verdict === 'approve') first.state.approve(item);
      else first.state.reject(item, { message: 'not today' });
      const last = await hooks.run(agent, first.state, { runner });
      expect(last.finalOutput).toBe('done');
      expect(ran).toEqual(verdict === 'approve' ? ['deploy'] : []);
      if (verdict === 'reject') expect(toolOutputs(model).map(text)).toEqual(['not today']);
    }
  });

  it('sends PostToolUseFailure when the tool throws; the framework still turns the error into output', async () => {
    const { seen, hooks: recording } = recorder();
    const model = scripted('make');
    const { ran, agent, runner, hooks } = setup(sessionOf(recording), model, { fail: 'disk full' });
    await hooks.run(agent, 'build', { runner });
    expect(ran).toEqual(['make']);
    const failure = seen.find((event) => event.hook_event_name === 'PostToolUseFailure');
    expect(failure).toMatchObject({
      tool_name: 'shell',
      tool_input: { command: 'make' },
      tool_use_id: 'call-1',
    });
    expect(JSON.stringify(failure)).toContain('disk full');
    expect(names(seen)).not.toContain('PostToolUse shell');
    expect(toolOutputs(model).map(text)).toEqual([
      'An error occurred while running the tool. Please try again.',
    ]);
  });

  it('lets a thrown error out of a guarded tool that lets it out, after PostToolUseFailure', async () => {
    const { seen, hooks: recording } = recorder();
    const hooks = openaiAgentsHooks({ session: sessionOf(recording), sessionId: 's1' });
    const bare = tool({
      name: 'shell',
      description: 'Runs a shell command',
      parameters: z.object({ command: z.string() }),
      execute: () => 'never',
    });
    const throwing = hooks.guard({
      ...bare,
      invoke: () => Promise.reject(new Error('broken pipe')),
    });
    const agent = new Agent({ name: 'main', model: 'scripted', tools: [throwing] });
    await expect(
      hooks.run(agent, 'go', { runner: runnerOf(hooks.modelProvider(providerOf(scripted('x')))) }),
    ).rejects.toThrow('broken pipe');
    expect(names(seen)).toContain('PostToolUseFailure shell');
  });

  it('blocks when a fail_closed sh hook times out: the tool never runs', async () => {
    const model = scripted('ls');
    const session = sessionOf({
      PreToolUse: [{ name: 'slow', command: 'sleep 5', timeout: 300, fail_closed: true }],
    });
    const { ran, agent, runner, hooks } = setup(session, model);
    await hooks.run(agent, 'list', { runner });
    expect(ran).toEqual([]);
    expect(toolOutputs(model).map(text)).toEqual(['hook "slow" failed closed: timed out after 300 ms']);
  });

  it('never runs a tool when the engine fails (a closed session), and refuses a prompt it cannot judge', async () => {
    const session = sessionOf({});
    const model = new ScriptedModel([
      { call: { name: 'shell', args: { command: 'ls' }, id: 'call-1' } },
      { text: 'done' },
    ]);
    const { ran, agent, hooks } = setup(session, model);
    const closing: Model = {
      getResponse: async (request) => {
        session.close();
        return model.getResponse(request);
      },
      getStreamedResponse: (request) => model.getStreamedResponse(request),
    };
    await hooks.run(agent, 'list', { runner: runnerOf(providerOf(closing)) });
    expect(ran).toEqual([]);
    expect(text(toolOutputs(model)[0])).toMatch(/^cosh-hooks: .*closed/i);
    const refused = hooks.run(agent, 'again', { runner: runnerOf(providerOf(closing)) });
    await expect(refused).rejects.toBeInstanceOf(InputGuardrailTripwireTriggered);
    await expect(refused).rejects.toThrow(/^Input refused: cosh-hooks: /);
  });

  it('never runs a tool whose input its PreToolUse hooks cannot judge (nested past 512 levels): the reason names it', async () => {
    let deep: Record<string, unknown> = { command: 'ls' };
    for (let i = 0; i < 600; i++) deep = { deep };
    const model = new ScriptedModel([
      { call: { name: 'shell', args: deep, id: 'call-1' } },
      { text: 'done' },
    ]);
    const { ran, agent, runner, hooks } = setup(sessionOf(ALLOW_ALL), model);
    await hooks.run(agent, 'list', { runner });
    expect(ran).toEqual([]);
    expect(text(toolOutputs(model)[0])).toMatch(/^cosh-hooks: invalid event: .*512 levels/);
  });

  it('refuses a blocked prompt with the framework error: the model is never called', async () => {
    const model = scripted('ls');
    const session = sessionOf({
      UserPromptSubmit: [{ name: 'no-keys', run: () => ({ decision: 'block', reason: 'a key' }) }],
    });
    const { agent, runner, hooks } = setup(session, model);
    await expect(hooks.run(agent, 'my key is sk-1', { runner })).rejects.toThrow('Input refused: a key');
    expect(model.requests).toEqual([]);
  });

  it('keeps the agent going when Stop blocks: the reason is the next user message', async () => {
    let stops = 0;
    const model = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const session = sessionOf({
      Stop: [
        {
          name: 'again',
          run: () => (++stops === 1 ? { decision: 'block', reason: 'check the tests' } : undefined),
        },
      ],
    });
    const { agent, runner, hooks } = setup(session, model);
    const result = await hooks.run(agent, 'go', { runner });
    expect(result.finalOutput).toBe('second');
    expect(JSON.stringify(model.requests[1]?.input)).toContain('check the tests');
    expect(stops).toBe(2);
  });

  it('keeps two sessions apart when their runs go side by side', async () => {
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'per-session',
          command: `grep -q '"session_id":"b"' && echo '{"decision":"block","reason":"not in b"}' || sleep 0.2`,
        },
      ],
    });
    const runIn = async (sessionId: string) => {
      const model = scripted(`ls ${sessionId}`);
      const { ran, agent, runner, hooks } = setup(session, model, { sessionId });
      await hooks.run(agent, 'list', { runner });
      return { ran, said: toolOutputs(model).map(text) };
    };
    const [a, b] = await Promise.all([runIn('a'), runIn('b')]);
    expect(a).toEqual({ ran: ['ls a'], said: ['ran: ls a'] });
    expect(b).toEqual({ ran: [], said: ['not in b'] });
  });
});
