import type { ToolExecutionOptions, ToolSet } from 'ai';
import type { AgentHooks } from '../../host/agent-hooks.js';
import type { ResultGate } from '../../host/gates.js';
import type { Verdicts } from './verdicts.js';

/** The error a tool call ends with when the hooks refused it or its result: the model reads `message`. */
export class HookBlockedError extends Error {
  override readonly name = 'HookBlockedError';
}

const ENGINE = 'cosh-hooks';

type ToolOf = ToolSet[string];

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

/**
 * One tool's `execute` with the hooks around it: the call's PreToolUse verdict (the one its
 * approval kept, if this is that very call; else decided now, and a block is thrown), the tool run
 * with the hooks' input, then PostToolUse (a block withholds the result, `updated_tool_response`
 * replaces it) or PostToolUseFailure (the error still reaches the SDK).
 */
const guard =
  (hooks: AgentHooks, verdicts: Verdicts, name: string, execute: NonNullable<ToolOf['execute']>) =>
  async (input: unknown, execution: ToolExecutionOptions<unknown>): Promise<unknown> => {
    const id = execution.toolCallId;
    const approved = verdicts.take(name, id, input);
    const { gate, patched } = approved ?? (await verdicts.of(name, id, input));
    if (gate.action === 'deny') throw new HookBlockedError(gate.reason);
    if (gate.action === 'ask' && approved === undefined) {
      throw new HookBlockedError(
        `${gate.reason} (${ENGINE}: not approved: pass toolApproval to the AI SDK call)`,
      );
    }
    const effective = patched ? gate.input : input;
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

/** `tools` with each `execute` wrapped (see `guard`); a tool without `execute` is left as it is. */
export const guardTools = <T extends ToolSet>(hooks: AgentHooks, verdicts: Verdicts, set: T): T =>
  Object.fromEntries(
    Object.entries(set).map(([name, tool]) =>
      tool.execute === undefined
        ? [name, tool]
        : [name, { ...tool, execute: guard(hooks, verdicts, name, tool.execute) }],
    ),
  ) as T;
