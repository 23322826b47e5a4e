import { describeThrown, isJsonObject, type JsonObject } from '../events/untrusted.js';
import type { HookDecision, OutputLine } from '../output/lines.js';
import { deepMerge } from '../protocol/merge.js';

/**
 * A decision read as what a host must do (docs/hosts.md): run, ask about or refuse a tool call;
 * keep, replace or withhold its result. Pure; shared by the framework adapters (src/adapters) and
 * the MCP gateway (src/mcp). Every failure of the engine is an answer here, never a throw: before a
 * tool it is a `deny` whose reason names the failure, so no engine fault lets a tool run.
 */

const ENGINE = 'cosh-hooks';

/** What to do with a tool call, from its PreToolUse decision. */
export type ToolGate =
  /**
   * Run the tool with `input`: the model's input with the hooks' `updated_input` and `tool_input`
   * applied. `decision` is absent when the event was not sent (no hook could match it); `judged`
   * is the copy of the input the hooks judged, to tell the same call when it comes back.
   */
  | {
      readonly action: 'run';
      readonly input: JsonObject;
      readonly decision?: HookDecision;
      readonly judged?: JsonObject;
    }
  /** The user must confirm first (the framework's approval flow); on approval run with `input`. */
  | {
      readonly action: 'ask';
      readonly input: JsonObject;
      readonly reason: string;
      readonly decision: HookDecision;
      readonly judged?: JsonObject;
    }
  /** Never run the tool; the model gets `reason`. `decision` is absent when the engine failed. */
  | {
      readonly action: 'deny';
      readonly reason: string;
      readonly decision?: HookDecision;
      readonly judged?: JsonObject;
    };

/** What to do with a tool's result, from its PostToolUse decision. */
export type ResultGate =
  | { readonly action: 'keep' }
  /** A hook replaced the result the model sees (`updated_tool_response`). */
  | { readonly action: 'replace'; readonly response: unknown }
  /** A hook blocked the result: the model gets `reason` instead of it. */
  | { readonly action: 'withhold'; readonly reason: string };

/**
 * The decision of one event, or why the engine could not give one. `{ ok: true }` without a
 * decision: the event was not sent, as no enabled hook or observer could match it (`Session.wants`).
 */
export type Decided =
  { readonly ok: true; readonly decision?: HookDecision } | { readonly ok: false; readonly failure: string };

/** The input the tool runs with: `updated_input` replaces, then `tool_input` patches (docs/protocol.md). */
export const effectiveInput = (input: JsonObject, decision: HookDecision): JsonObject => {
  const output = decision.hook_specific_output ?? {};
  const replaced = isJsonObject(output['updated_input']) ? output['updated_input'] : input;
  return isJsonObject(output['tool_input']) ? deepMerge(replaced, output['tool_input']) : replaced;
};

const reasonOf = (decision: HookDecision, fallback: string): string =>
  decision.reason ?? decision.systemMessage ?? fallback;

/** The PreToolUse decision read as what to do with the call. */
export const toolGate = (input: JsonObject, decided: Decided): ToolGate => {
  if (!decided.ok) return { action: 'deny', reason: decided.failure };
  const { decision } = decided;
  if (decision === undefined) return { action: 'run', input };
  switch (decision.decision) {
    case 'block':
      return { action: 'deny', reason: reasonOf(decision, 'blocked by a hook'), decision };
    case 'ask':
      return {
        action: 'ask',
        input: effectiveInput(input, decision),
        reason: reasonOf(decision, 'a hook asks for confirmation'),
        decision,
      };
    default:
      return { action: 'run', input: effectiveInput(input, decision), decision };
  }
};

/**
 * The PostToolUse decision read as what the model sees. An engine failure withholds the result:
 * a result no hook could look at (a closed session, an internal error) does not reach the model.
 */
export const resultGate = (decided: Decided): ResultGate => {
  if (!decided.ok) return { action: 'withhold', reason: decided.failure };
  const { decision } = decided;
  if (decision === undefined) return { action: 'keep' };
  if (decision.decision === 'block')
    return { action: 'withhold', reason: reasonOf(decision, 'withheld by a hook') };
  const output = decision.hook_specific_output ?? {};
  // A hook may replace the result with any JSON value, `null` included.
  for (const key of ['updated_tool_response', 'updatedToolResponse']) {
    if (Object.hasOwn(output, key)) return { action: 'replace', response: output[key] };
  }
  return { action: 'keep' };
};

/** The decision read from the last line of an event's `decide`: a `hook_error` or no line is a failure. */
export const decidedFrom = (last: OutputLine | undefined): Decided => {
  if (last?.type === 'hook_decision') return { ok: true, decision: last };
  if (last?.type === 'hook_error') return { ok: false, failure: `${ENGINE}: invalid event: ${last.message}` };
  return { ok: false, failure: `${ENGINE}: the engine gave no decision` };
};

/** An engine error (a closed session, an internal fault) as a decision that could not be made. */
export const engineFailure = (error: unknown): Decided => ({
  ok: false,
  failure: `${ENGINE}: ${describeThrown(error)}`,
});
