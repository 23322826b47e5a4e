/**
 * The demo's agent parts: a scripted model and simulated tools. The model is a real AI SDK
 * language model (the SDK's own MockLanguageModelV4) whose replies are a function of the
 * conversation, so what it says next depends on what the hooks did (it quotes a block reason,
 * notices a failed push). No process is run, no network is used, and no tool call touches the
 * machine: tools are simulated.
 */
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt'];

/** What the scripted model says, and the shell command it calls, if any. */
export interface ModelReply {
  readonly content: string;
  readonly command?: string;
}

/** The result of the last tool call the model was told about, as text. */
const lastToolResult = (prompt: Prompt): string => {
  const message = [...prompt].reverse().find((m) => m.role === 'tool');
  const part = message?.role === 'tool' ? message.content.find((p) => p.type === 'tool-result') : undefined;
  const output = part?.type === 'tool-result' ? part.output : undefined;
  switch (output?.type) {
    case 'execution-denied':
      return `refused: blocked: ${output.reason ?? 'no reason given'}`;
    case 'error-text':
      return `error: ${output.value}`;
    default:
      return '';
  }
};

/** The scripted model's next reply: turn by turn, reading how the last tool call went. */
export const scriptedReply = (prompt: Prompt): ModelReply => {
  const turn = prompt.filter((message) => message.role === 'assistant').length;
  const lastTool = lastToolResult(prompt);
  switch (turn) {
    case 0:
      return { content: 'Let me look at the workspace first.', command: 'ls -la' };
    case 1:
      return {
        content: 'I see build/ and dist/. Quickest is to wipe everything and start fresh.',
        command: 'rm -rf /',
      };
    case 2:
      return lastTool.startsWith('refused:')
        ? {
            content: `That was refused (${lastTool.slice('refused: '.length)}). I will only remove the build output.`,
            command: 'rm -rf ./build',
          }
        : { content: 'Everything is gone.' };
    case 3:
      return {
        content: 'Build output removed. Publishing the clean-up to the remote.',
        command: 'git push --force origin main',
      };
    default: {
      const done =
        'Done: I listed the workspace and removed ./build; nothing outside the project was touched.';
      if (lastTool.startsWith('refused:')) return { content: `${done} I did not force-push.` };
      if (lastTool.startsWith('error:'))
        return { content: `${done} The push failed, so nothing was published.` };
      return { content: `${done} The clean-up is pushed.` };
    }
  }
};

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/** A reply as the model's answer to the SDK: its text, and a call of the `shell` tool. */
export const generated = (reply: ModelReply, callId: string): Generated => ({
  content: [
    { type: 'text', text: reply.content },
    ...(reply.command === undefined
      ? []
      : [
          {
            type: 'tool-call' as const,
            toolCallId: callId,
            toolName: 'shell',
            input: JSON.stringify({ command: reply.command }),
          },
        ]),
  ],
  finishReason: { unified: reply.command === undefined ? 'stop' : 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});

/** The scripted model: `onReply` sees each reply as it is made (the demo prints it). */
export const scriptedModel = (onReply: (reply: ModelReply) => void) => {
  let calls = 0;
  return new MockLanguageModelV4({
    modelId: 'scripted-model',
    doGenerate: async ({ prompt }) => {
      const reply = scriptedReply(prompt);
      onReply(reply);
      calls += 1;
      return generated(reply, `t${calls}`);
    },
  });
};

/** Simulated tools: plausible output, and nothing is executed. */
export const simulateTool = (
  command: string,
): { ok: true; output: string } | { ok: false; error: string } => {
  if (command === 'ls -la') {
    return {
      ok: true,
      output: [
        'drwxr-xr-x  build/',
        'drwxr-xr-x  dist/',
        'drwxr-xr-x  src/',
        '-rw-r--r--  package.json',
        '-rw-r--r--  README.md',
      ].join('\n'),
    };
  }
  if (command.startsWith('git push'))
    return { ok: false, error: 'fatal: no remote named "origin" (simulated)' };
  return { ok: true, output: '' };
};

/** The `shell` tool, simulated: `onRun` sees each command it ran and how it went. */
export const shellTool = (onRun: (command: string, outcome: ReturnType<typeof simulateTool>) => void) =>
  tool({
    description: 'Run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      const outcome = simulateTool(command);
      onRun(command, outcome);
      if (!outcome.ok) throw new Error(outcome.error);
      return { output: outcome.output };
    },
  });
