// The AI SDK adapter in the fast tier: the SDK's own MockLanguageModelV4 drives real generateText
// loops (the SDK is loaded once for the file). The full suite is test/integration/ai-sdk.test.ts.
import { generateText, isStepCount, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defaultDeps, defineHooks, type HookDefinitions, type Session } from 'cosh-hooks';
import { aiSdkHooks } from '../../../src/adapters/ai-sdk.js';

type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type Part = Generated['content'][number];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const toolCall = (id: string, name: string, input: object): Part => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input),
});
const step = (...content: Part[]): Generated => ({
  content,
  finishReason: {
    unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
    raw: undefined,
  },
  usage,
  warnings: [],
});
const say = (text: string): Generated => step({ type: 'text', text });

/** A model answering each call with the next scripted reply. */
const scripted = (...replies: Generated[]) => {
  let calls = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const reply = replies[calls++];
      if (reply === undefined) throw new Error(`no reply scripted for call ${calls}`);
      return reply;
    },
  });
};

/** A tool that runs nothing: it records each call as `name input`. */
const recording = (name: string, ran: string[]) =>
  tool({
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      ran.push(`${name} ${command}`);
      return `${name} done`;
    },
  });

const sessions: Session[] = [];
const sessionOf = (hooks: HookDefinitions) => {
  const session = createSession(defineHooks(hooks), defaultDeps(), { concurrency: 'per-session' });
  sessions.push(session);
  return session;
};
afterEach(() => sessions.splice(0).forEach((session) => session.close()));

describe('aiSdkHooks: a verdict belongs to its call (tool name, call id and input)', () => {
  it('two calls of one step sharing a call id and input but not a tool name get a verdict each', async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'guard',
          run: (event) => {
            const name = 'tool_name' in event ? event.tool_name : '';
            asked.push(name);
            return name === 'shell' ? { decision: 'block', reason: 'no shell' } : { decision: 'allow' };
          },
        },
      ],
    });
    const input = { command: 'rm -rf /' };
    // `read` first: its allow must not be read as `shell`'s; then the other order.
    for (const [first, second] of [
      ['read', 'shell'],
      ['shell', 'read'],
    ] as const) {
      const model = scripted(step(toolCall('t1', first, input), toolCall('t1', second, input)), say('done'));
      const ai = aiSdkHooks({ session, sessionId: `s-${first}` });
      await generateText({
        ...ai.wrap({ model, tools: { read: recording('read', ran), shell: recording('shell', ran) } }),
        prompt: 'go',
        stopWhen: isStepCount(3),
      });
    }
    expect(ran.filter((call) => call.startsWith('shell'))).toEqual([]);
    expect(asked.filter((name) => name === 'shell').length).toBeGreaterThanOrEqual(2);
  });

  it('a call whose input changed since its approval, or of another tool, is decided again before it runs', async () => {
    const ran: string[] = [];
    const session = sessionOf({
      PreToolUse: [
        {
          name: 'guard',
          run: (event) =>
            'tool_name' in event && event.tool_name === 'read'
              ? { decision: 'block', reason: 'no read' }
              : 'tool_input' in event && String(event.tool_input['command']).includes('rm')
                ? { decision: 'block', reason: 'no rm' }
                : { decision: 'allow' },
        },
      ],
    });
    const ai = aiSdkHooks({ session, sessionId: 's1' });
    const { shell, read } = ai.tools({ shell: recording('shell', ran), read: recording('read', ran) });
    const options = (toolCallId: string) => ({ toolCallId, messages: [], context: {} });
    const approve = (toolCallId: string, input: object) =>
      ai.toolApproval({ toolCall: { toolCallId, toolName: 'shell', input } });
    expect(await approve('t1', { command: 'ls' })).toMatchObject({ type: 'approved' });
    await expect(shell.execute!({ command: 'rm -rf /' }, options('t1'))).rejects.toThrow('no rm');
    // `shell`'s approval of t2 is not `read`'s: read is asked about, and blocked.
    expect(await approve('t2', { command: 'ls' })).toMatchObject({ type: 'approved' });
    await expect(read.execute!({ command: 'ls' }, options('t2'))).rejects.toThrow('no read');
    // The very call approved runs.
    expect(await approve('t3', { command: 'ls' })).toMatchObject({ type: 'approved' });
    expect(await shell.execute!({ command: 'ls' }, options('t3'))).toBe('shell done');
    expect(ran).toEqual(['shell ls']);
  });
});
