import type { AgentHooks } from '../../host/agent-hooks.js';
import type { Decided } from '../../host/gates.js';
import type { HookDecision } from '../../output/lines.js';

/** What a turn's call gets: the prompt to send and the hooks' context for the model. */
export interface TurnInput {
  /** The user's prompt, or on a continuation the Stop hook's reason. */
  readonly prompt: string;
  /** `additional_context` of SessionStart (first turn) and UserPromptSubmit, in that order. */
  readonly context: readonly string[];
  /** 0 for the user's prompt, then 1, 2… for each continuation a Stop hook asked for. */
  readonly continuation: number;
}

/** How a turn ended: the last result of the host's call, or why the prompt was not sent. */
export type TurnOutcome<R> =
  { readonly ok: true; readonly result: R } | { readonly ok: false; readonly reason: string };

/** The host's model call of one turn (a `generateText` / `streamText` call), and its answer's text. */
export type TurnCall<R> = (input: TurnInput) => Promise<R>;

const contextOf = (decided: Decided): string[] =>
  decided.ok && decided.decision?.additional_context !== undefined
    ? [decided.decision.additional_context]
    : [];

/**
 * The turns of one run: SessionStart before the first, UserPromptSubmit (block → not sent; ask →
 * `confirm`, refused without it), the host's `call`, then Stop (block → `call` again with the reason
 * as the prompt, as often as the engine's Stop-loop guard lets it). The SDK's own callbacks cannot
 * stop anything (it swallows their errors), so the turn is the host's call, wrapped.
 */
export const turns = (hooks: AgentHooks) => {
  let started = false;
  return async <R extends { readonly text: string | PromiseLike<string> }>(
    prompt: string,
    call: TurnCall<R>,
    confirm?: (reason: string) => boolean | Promise<boolean>,
  ): Promise<TurnOutcome<R>> => {
    const context: string[] = [];
    if (!started) {
      started = true;
      context.push(...contextOf(await hooks.sessionStart('startup')));
    }
    const submitted = await hooks.userPrompt(prompt);
    if (!submitted.ok) return { ok: false, reason: submitted.failure };
    const decision: Partial<HookDecision> = submitted.decision ?? {};
    const reason = decision.reason ?? decision.systemMessage;
    if (decision.decision === 'block') return { ok: false, reason: reason ?? 'blocked by a hook' };
    if (decision.decision === 'ask') {
      const asked = reason ?? 'A hook requires your approval before this action can proceed.';
      if (confirm === undefined || !(await confirm(asked)))
        return { ok: false, reason: `Prompt rejected: ${asked}` };
    }
    context.push(...contextOf(submitted));
    let input: TurnInput = { prompt, context, continuation: 0 };
    for (;;) {
      const result = await call(input);
      const stopped = await hooks.stop(await result.text);
      if (!stopped.ok || stopped.decision?.decision !== 'block') return { ok: true, result };
      input = {
        prompt: stopped.decision.reason ?? 'continue',
        context: [],
        continuation: input.continuation + 1,
      };
    }
  };
};
