// cosh-hooks/openai-agents in the fast tier: the real OpenAI Agents run loop on a scripted Model,
// tracing off and fetch refused, so nothing reaches OpenAI (the framework is loaded once for the
// file). The full suite is test/integration/openai-agents-adapter.test.ts.
import {
  Agent,
  RunContext,
  Runner,
  setTracingDisabled,
  Usage,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openaiAgentsHooks } from '../../../src/adapters/openai-agents.js';
import { defaultDeps } from '../../../src/pipeline/pipeline.js';
import { createSession } from '../../../src/pipeline/session.js';
import { defineHooks } from '../../../src/registry/define.js';

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

type Call = { readonly name: string; readonly args: Record<string, unknown>; readonly id: string };

/** A Model answering from a script: each turn is some tool calls, or (empty) a final text. */
class ScriptedModel implements Model {
  constructor(private readonly turns: Call[][]) {}

  getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const calls = this.turns.shift() ?? [];
    return Promise.resolve({
      usage: new Usage(),
      output:
        calls.length > 0
          ? calls.map((call) => ({
              type: 'function_call' as const,
              callId: call.id,
              name: call.name,
              arguments: JSON.stringify(call.args),
              status: 'completed' as const,
            }))
          : [
              {
                type: 'message' as const,
                role: 'assistant' as const,
                status: 'completed' as const,
                content: [{ type: 'output_text' as const, text: 'done' }],
              },
            ],
    });
  }

  // eslint-disable-next-line require-yield -- this model is only asked for whole responses
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error('not streamed in these tests');
  }
}

describe('openaiAgentsHooks: a verdict belongs to its call (tool name, call id and input)', () => {
  it('two calls of one turn sharing a call id and input but not a tool name get a verdict each', async () => {
    const asked: string[] = [];
    const session = createSession(
      defineHooks({
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
      }),
      defaultDeps(),
      { concurrency: 'per-session' },
    );
    const ran: string[] = [];
    const oa = openaiAgentsHooks({ session, sessionId: 's1' });
    const recording = (name: string) =>
      oa.tool({
        name,
        description: name,
        parameters: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          ran.push(`${name} ${command}`);
          return `${name} done`;
        },
      });
    const args = { command: 'rm -rf /' };
    const [read, shell] = [recording('read'), recording('shell')];
    // The framework refuses a call id reused within one run…
    const model = new ScriptedModel([
      [
        { name: 'read', args, id: 'c1' },
        { name: 'shell', args, id: 'c1' },
      ],
      [],
    ]);
    const agent = new Agent({ name: 'a', model, tools: [read, shell] });
    await expect(oa.run(agent, 'go', { runner: new Runner({ tracingDisabled: true }) })).rejects.toThrow(
      'Tool call ID c1 was reused',
    );
    // …and the adapter binds each verdict to its call anyway: within one run context, `read`'s
    // allow for c1 is not `shell`'s, whichever the runner asks first.
    for (const [first, second] of [
      [read, shell],
      [shell, read],
    ] as const) {
      const context = new RunContext();
      const text = JSON.stringify(args);
      const details = {
        toolCall: { type: 'function_call' as const, callId: 'c1', name: first.name, arguments: text },
      };
      // As the runner does: every call of the turn is asked about, then the approved ones run.
      await first.needsApproval(context, args, 'c1');
      await second.needsApproval(context, args, 'c1');
      // The runner may run the calls of a turn side by side: the second may start first.
      await second.invoke(context, text, { toolCall: { ...details.toolCall, name: second.name } });
      await first.invoke(context, text, details);
    }
    session.close();
    expect(ran).toEqual(['read rm -rf /', 'read rm -rf /']);
    expect(asked.filter((name) => name === 'shell').length).toBeGreaterThanOrEqual(2);
  });
});
