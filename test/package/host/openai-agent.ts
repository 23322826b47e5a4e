// A host project's OpenAI Agents JS run with cosh-hooks/openai-agents (compiled under strict
// NodeNext and run by test/package/adapters-lc.test.ts from the installed tarball): a real sh guard
// blocks the dangerous call, the benign one runs. A scripted Model; tracing off; no network.
import {
  Agent,
  Runner,
  Usage,
  setTracingDisabled,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents';
import { createSession, defaultDeps, defineHooks } from 'cosh-hooks';
import { openaiAgentsHooks } from 'cosh-hooks/openai-agents';
import { z } from 'zod';

setTracingDisabled(true);
const GUARD = `grep -q 'rm -rf' && echo '{"decision":"block","reason":"no rm -rf"}' || true`;
const calls = [
  { callId: 'c1', command: 'rm -rf /' },
  { callId: 'c2', command: 'ls' },
];

/** One tool call per turn from `calls`, then "done". */
class Scripted implements Model {
  getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const call = calls.shift();
    return Promise.resolve({
      usage: new Usage(),
      output: [
        call === undefined
          ? {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'done' }],
            }
          : {
              type: 'function_call',
              callId: call.callId,
              name: 'shell',
              arguments: JSON.stringify({ command: call.command }),
              status: 'completed',
            },
      ],
    });
  }

  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    yield* [];
  }
}

const session = createSession(
  defineHooks({ PreToolUse: [{ name: 'guard', command: GUARD }] }),
  defaultDeps(),
  {
    concurrency: 'per-session',
  },
);
const hooks = openaiAgentsHooks({ session, sessionId: 'host' });
const ran: string[] = [];
const shell = hooks.tool({
  name: 'shell',
  description: 'Runs a shell command',
  parameters: z.object({ command: z.string() }),
  execute: ({ command }) => {
    ran.push(command);
    return `ran: ${command}`;
  },
});
const model = hooks.model(new Scripted());
const agent = new Agent({ name: 'host', instructions: 'Help.', tools: [shell], model });
const runner = new Runner({ tracingDisabled: true, modelProvider: { getModel: () => model } });
const result = await hooks.run(agent, 'clean up', { runner });
for (const item of result.newItems) {
  if (item.type === 'tool_call_output_item' && 'callId' in item.rawItem) {
    console.log(`${item.rawItem.callId} ${String(item.output)}`);
  }
}
console.log(`ran: ${ran.join(',')} final: ${String(result.finalOutput)}`);
session.close();
