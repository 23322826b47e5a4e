// cosh-hooks/langchain against the real LangChain.js v1 agent loop (`createAgent`), driven by
// LangChain's own scripted test model (`fakeModel` from @langchain/core/testing); fetch refused.
import { Command, MemorySaver } from '@langchain/langgraph';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent, tool } from 'langchain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { langchainHooks } from '../../src/adapters/langchain.js';
import {
  createSession,
  defaultDeps,
  defineHooks,
  type HookDefinitions,
  type HookEvent,
  type Session,
} from '../../src/index.js';

// Nothing may dial out (LangSmith tracing, a provider): fetch is refused and every attempt recorded.
const realFetch = globalThis.fetch;
const dialled: string[] = [];
beforeAll(() => {
  globalThis.fetch = ((url: unknown) => {
    dialled.push(String(url));
    return Promise.reject(new Error('no network in this test'));
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

/** A session on `hooks`, per-session concurrency, the real process executor. */
const sessionOf = (hooks: HookDefinitions): Session => {
  const session = createSession(defineHooks(hooks), defaultDeps(), { concurrency: 'per-session' });
  sessions.push(session);
  return session;
};

/** A PreToolUse hook for every tool: a call no hook could judge is then never run. */
const ALLOW_ALL: HookDefinitions = {
  PreToolUse: [{ name: 'allow', run: () => ({ decision: 'allow' }) }],
};

/** Every event the hooks saw, as `name` or `name tool`, through an in-process observer per event. */
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

/** A shell tool that records every command it really runs. */
const shellTool = (ran: string[], fail?: string) =>
  tool(
    ({ command }: { command: string }) => {
      ran.push(command);
      if (fail !== undefined) throw new Error(fail);
      return `ran: ${command}`;
    },
    { name: 'shell', description: 'Runs a shell command', schema: z.object({ command: z.string() }) },
  );

/** A model that calls `shell` with `command` once, then answers "done". */
const scriptedModel = (command: string) =>
  fakeModel()
    .respondWithTools([{ name: 'shell', args: { command }, id: 'call-1' }])
    .respond(new AIMessage('done'));

const GUARD: HookDefinitions = {
  PreToolUse: [
    {
      name: 'guard',
      run: (event) =>
        JSON.stringify(event).includes('rm -rf') ? { decision: 'block', reason: 'no rm -rf' } : undefined,
    },
  ],
};

const toolMessages = (messages: readonly BaseMessage[]): ToolMessage[] =>
  messages.filter(ToolMessage.isInstance);

describe('langchainHooks in createAgent', () => {
  it('blocks a dangerous call: the tool never runs, the model gets the reason as a rejected ToolMessage', async () => {
    const ran: string[] = [];
    const model = scriptedModel('rm -rf /');
    const agent = createAgent({
      model,
      tools: [shellTool(ran)],
      middleware: [langchainHooks({ session: sessionOf(GUARD), sessionId: 's1' })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('clean up')] });
    expect(ran).toEqual([]);
    const [refused] = toolMessages(result.messages);
    expect(refused?.content).toBe('no rm -rf');
    expect(refused?.status).toBe('error');
    expect(refused?.tool_call_id).toBe('call-1');
    // The model's second call saw the refusal.
    expect(model.callCount).toBe(2);
    expect(toolMessages(model.calls[1]?.messages ?? []).map((m) => m.content)).toEqual(['no rm -rf']);
    expect(result.messages.at(-1)?.content).toBe('done');
  });

  it('runs a benign call, and sends every event of the loop in order', async () => {
    const ran: string[] = [];
    const { seen, hooks } = recorder();
    const agent = createAgent({
      model: scriptedModel('ls'),
      tools: [shellTool(ran)],
      middleware: [langchainHooks({ session: sessionOf({ ...hooks }), sessionId: 's1', agentType: 'main' })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('list files')] });
    expect(ran).toEqual(['ls']);
    expect(toolMessages(result.messages)[0]?.content).toBe('ran: ls');
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
    expect(start).toMatchObject({ session_id: 's1', agent_type: 'main', source: 'startup' });
    expect(prompt).toMatchObject({ prompt: 'list files' });
    expect(before).toMatchObject({ llm_request: { messages: [{ role: 'human', content: 'list files' }] } });
    expect(after).toMatchObject({
      llm_response: { role: 'ai', tool_calls: [{ id: 'call-1', name: 'shell', input: { command: 'ls' } }] },
    });
    expect(pre).toMatchObject({ tool_name: 'shell', tool_input: { command: 'ls' }, tool_use_id: 'call-1' });
    expect(post).toMatchObject({ tool_response: { content: 'ran: ls' } });
    expect(stop).toMatchObject({ last_assistant_message: 'done' });
  });

  it('runs the tool with the input a hook patched (updated_input)', async () => {
    const ran: string[] = [];
    const agent = createAgent({
      model: scriptedModel('rm -rf ./build'),
      tools: [shellTool(ran)],
      middleware: [
        langchainHooks({
          session: sessionOf({
            PreToolUse: [
              {
                name: 'soften',
                run: () => ({
                  decision: 'allow',
                  hookSpecificOutput: { updated_input: { command: 'rm -ri ./build' } },
                }),
              },
            ],
          }),
          sessionId: 's1',
        }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage('clean')] });
    expect(ran).toEqual(['rm -ri ./build']);
  });

  it('replaces or withholds the result the model sees (PostToolUse)', async () => {
    const ran: string[] = [];
    const model = scriptedModel('cat secrets');
    const agent = createAgent({
      model,
      tools: [shellTool(ran)],
      middleware: [
        langchainHooks({
          session: sessionOf({
            PostToolUse: [{ name: 'dlp', run: () => ({ decision: 'block', reason: 'secret' }) }],
          }),
          sessionId: 's1',
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('read')] });
    expect(ran).toEqual(['cat secrets']);
    expect(toolMessages(result.messages).map((m) => [m.content, m.status])).toEqual([['secret', 'error']]);
    expect(JSON.stringify(model.calls[1]?.messages)).not.toContain('ran: cat secrets');

    const replacing = createAgent({
      model: scriptedModel('cat secrets'),
      tools: [shellTool([])],
      middleware: [
        langchainHooks({
          session: sessionOf({
            PostToolUse: [
              {
                name: 'mask',
                run: () => ({ hookSpecificOutput: { updated_tool_response: { masked: true } } }),
              },
            ],
          }),
          sessionId: 's1',
        }),
      ],
    });
    const replaced = await replacing.invoke({ messages: [new HumanMessage('read')] });
    expect(toolMessages(replaced.messages).map((m) => [m.content, m.status])).toEqual([
      ['{"masked":true}', undefined],
    ]);
  });

  it('turns ask into a LangGraph interrupt in the humanInTheLoopMiddleware shape; approve runs, reject does not', async () => {
    const ask: HookDefinitions = {
      PreToolUse: [{ name: 'confirm', run: () => ({ decision: 'ask', reason: 'sure?' }) }],
    };
    const run = async (resume: unknown): Promise<{ ran: string[]; first: unknown; last: BaseMessage[] }> => {
      const ran: string[] = [];
      const agent = createAgent({
        model: scriptedModel('deploy'),
        tools: [shellTool(ran)],
        checkpointer: new MemorySaver(),
        middleware: [langchainHooks({ session: sessionOf(ask), sessionId: 's1' })],
      });
      const config = { configurable: { thread_id: 't1' } };
      const first = await agent.invoke({ messages: [new HumanMessage('deploy')] }, config);
      expect(ran).toEqual([]);
      const last = await agent.invoke(new Command({ resume }), config);
      return { ran, first, last: last.messages };
    };

    const approved = await run({ decisions: [{ type: 'approve' }] });
    expect(approved.first).toMatchObject({
      __interrupt__: [
        {
          value: {
            actionRequests: [{ name: 'shell', args: { command: 'deploy' }, description: 'sure?' }],
            reviewConfigs: [{ actionName: 'shell', allowedDecisions: ['approve', 'reject'] }],
          },
        },
      ],
    });
    expect(approved.ran).toEqual(['deploy']);

    const rejected = await run({ decisions: [{ type: 'reject', message: 'not today' }] });
    expect(rejected.ran).toEqual([]);
    expect(toolMessages(rejected.last).map((m) => [m.content, m.status])).toEqual([['not today', 'error']]);
  });

  it('fails the run on an ask without a checkpointer, as humanInTheLoopMiddleware does: the tool never runs', async () => {
    const ran: string[] = [];
    const agent = createAgent({
      model: scriptedModel('deploy'),
      tools: [shellTool(ran)],
      middleware: [
        langchainHooks({
          session: sessionOf({
            PreToolUse: [{ name: 'confirm', run: () => ({ decision: 'ask', reason: 'sure?' }) }],
          }),
          sessionId: 's1',
        }),
      ],
    });
    await expect(agent.invoke({ messages: [new HumanMessage('deploy')] })).rejects.toThrow(
      'No checkpointer set',
    );
    expect(ran).toEqual([]);
  });

  it('sends PostToolUseFailure when the tool throws, and the error still reaches LangChain', async () => {
    const ran: string[] = [];
    const { seen, hooks } = recorder();
    const agent = createAgent({
      model: scriptedModel('make'),
      tools: [shellTool(ran, 'disk full')],
      middleware: [langchainHooks({ session: sessionOf(hooks), sessionId: 's1' })],
    });
    await expect(agent.invoke({ messages: [new HumanMessage('build')] })).rejects.toThrow('disk full');
    expect(ran).toEqual(['make']);
    const failure = seen.find((event) => event.hook_event_name === 'PostToolUseFailure');
    expect(failure).toMatchObject({
      tool_name: 'shell',
      tool_input: { command: 'make' },
      tool_use_id: 'call-1',
    });
    expect(JSON.stringify(failure)).toContain('disk full');
    expect(names(seen)).not.toContain('PostToolUse shell');
  });

  it('blocks when a fail_closed sh hook times out: the tool never runs', async () => {
    const ran: string[] = [];
    const agent = createAgent({
      model: scriptedModel('ls'),
      tools: [shellTool(ran)],
      middleware: [
        langchainHooks({
          session: sessionOf({
            PreToolUse: [{ name: 'slow', command: 'sleep 5', timeout: 300, fail_closed: true }],
          }),
          sessionId: 's1',
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('list')] });
    expect(ran).toEqual([]);
    const [refused] = toolMessages(result.messages);
    expect(refused?.status).toBe('error');
    expect(refused?.content).toMatch(/^hook "slow" failed closed: timed out after 300 ms/);
  });

  it('never runs a tool when the engine fails (a closed session): the reason names it', async () => {
    const ran: string[] = [];
    const session = sessionOf({});
    const agent = createAgent({
      model: scriptedModel('ls'),
      tools: [shellTool(ran)],
      middleware: [langchainHooks({ session, sessionId: 's1' })],
    });
    // Closed after the prompt was let through, before the tool call.
    const model = fakeModel()
      .respond(() => {
        session.close();
        return new AIMessage({
          content: '',
          tool_calls: [{ name: 'shell', args: { command: 'ls' }, id: 'call-1' }],
        });
      })
      .respond(new AIMessage('done'));
    const closing = createAgent({
      model,
      tools: [shellTool(ran)],
      middleware: [langchainHooks({ session, sessionId: 's1' })],
    });
    const result = await closing.invoke({ messages: [new HumanMessage('list')] });
    expect(ran).toEqual([]);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/^cosh-hooks: .*closed/i);
    // And a prompt the engine cannot judge is not sent to the model.
    const blocked = await agent.invoke({ messages: [new HumanMessage('again')] });
    expect(String(blocked.messages.at(-1)?.content)).toMatch(/^Prompt blocked: cosh-hooks: /);
  });

  it('never runs a tool whose input its PreToolUse hooks cannot judge (nested past 512 levels): the reason names it', async () => {
    const ran: string[] = [];
    let deep: Record<string, unknown> = { command: 'ls' };
    for (let i = 0; i < 600; i++) deep = { deep };
    const agent = createAgent({
      model: fakeModel()
        .respondWithTools([{ name: 'shell', args: deep, id: 'call-1' }])
        .respond(new AIMessage('done')),
      tools: [shellTool(ran)],
      middleware: [langchainHooks({ session: sessionOf(ALLOW_ALL), sessionId: 's1' })],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('list')] });
    expect(ran).toEqual([]);
    expect(toolMessages(result.messages)[0]?.content).toMatch(/^cosh-hooks: invalid event: .*512 levels/);
  });

  it('drops a blocked prompt: the model is never called and Stop is not sent', async () => {
    const { seen, hooks } = recorder();
    const model = scriptedModel('ls');
    const agent = createAgent({
      model,
      tools: [shellTool([])],
      middleware: [
        langchainHooks({
          session: sessionOf({
            ...hooks,
            UserPromptSubmit: [
              ...(hooks.UserPromptSubmit ?? []),
              { name: 'no-secrets', run: () => ({ decision: 'block', reason: 'contains a key' }) },
            ],
          }),
          sessionId: 's1',
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('my key is sk-123')] });
    expect(model.callCount).toBe(0);
    expect(result.messages.map((m) => [m.type, m.content])).toEqual([
      ['ai', 'Prompt blocked: contains a key'],
    ]);
    expect(names(seen)).toEqual(['SessionStart', 'UserPromptSubmit']);
  });

  it('keeps the agent going when Stop blocks: the reason is the next human message', async () => {
    let stops = 0;
    const model = fakeModel().respond(new AIMessage('first')).respond(new AIMessage('second'));
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        langchainHooks({
          session: sessionOf({
            Stop: [
              {
                name: 'again',
                run: () => (++stops === 1 ? { decision: 'block', reason: 'check the tests' } : undefined),
              },
            ],
          }),
          sessionId: 's1',
        }),
      ],
    });
    const result = await agent.invoke({ messages: [new HumanMessage('go')] });
    expect(model.callCount).toBe(2);
    expect(result.messages.map((m) => m.content)).toEqual(['go', 'first', 'check the tests', 'second']);
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
      const ran: string[] = [];
      const agent = createAgent({
        model: scriptedModel(`ls ${sessionId}`),
        tools: [shellTool(ran)],
        middleware: [langchainHooks({ session, sessionId })],
      });
      const result = await agent.invoke({ messages: [new HumanMessage('list')] });
      return { ran, said: toolMessages(result.messages).map((m) => m.content) };
    };
    const [a, b] = await Promise.all([runIn('a'), runIn('b')]);
    expect(a).toEqual({ ran: ['ls a'], said: ['ran: ls a'] });
    expect(b).toEqual({ ran: [], said: ['not in b'] });
  });

  it('reads the session id from the thread when given a function', async () => {
    const { seen, hooks } = recorder();
    const agent = createAgent({
      model: fakeModel().respond(new AIMessage('hi')),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [
        langchainHooks({ session: sessionOf(hooks), sessionId: (thread) => `thread-${thread ?? '?'}` }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage('hello')] }, { configurable: { thread_id: 't7' } });
    expect(new Set(seen.map((event) => event.session_id))).toEqual(new Set(['thread-t7']));
  });
});
