// A host project's LangChain.js agent with cosh-hooks/langchain (compiled under strict NodeNext and
// run by test/package/adapters-lc.test.ts from the installed tarball): a real sh guard blocks the
// dangerous call, the benign one runs. LangChain's scripted test model; no network.
import { fakeModel } from '@langchain/core/testing';
import { createSession, defaultDeps, defineHooks } from 'cosh-hooks';
import { langchainHooks } from 'cosh-hooks/langchain';
import { AIMessage, HumanMessage, ToolMessage, createAgent, tool } from 'langchain';
import { z } from 'zod';

const GUARD = `grep -q 'rm -rf' && echo '{"decision":"block","reason":"no rm -rf"}' || true`;
const ran: string[] = [];
const shell = tool(
  ({ command }: { command: string }) => {
    ran.push(command);
    return `ran: ${command}`;
  },
  { name: 'shell', description: 'Runs a shell command', schema: z.object({ command: z.string() }) },
);
const session = createSession(
  defineHooks({ PreToolUse: [{ name: 'guard', command: GUARD }] }),
  defaultDeps(),
  {
    concurrency: 'per-session',
  },
);
const model = fakeModel()
  .respondWithTools([{ name: 'shell', args: { command: 'rm -rf /' }, id: 'c1' }])
  .respondWithTools([{ name: 'shell', args: { command: 'ls' }, id: 'c2' }])
  .respond(new AIMessage('done'));
const agent = createAgent({
  model,
  tools: [shell],
  middleware: [langchainHooks({ session, sessionId: 'host' })],
});
const result = await agent.invoke({ messages: [new HumanMessage('clean up')] });
for (const message of result.messages) {
  if (ToolMessage.isInstance(message)) {
    console.log(`${message.tool_call_id} ${message.status ?? 'success'} ${String(message.content)}`);
  }
}
console.log(`ran: ${ran.join(',')}`);
session.close();
