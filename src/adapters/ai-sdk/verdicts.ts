import { asObject, type AgentHooks } from '../../host/agent-hooks.js';
import type { ToolGate } from '../../host/gates.js';
import { sameData } from '../../host/same-data.js';

/**
 * The PreToolUse verdicts of one run, kept from `toolApproval` for `execute` (or for the SDK's
 * second ask when an approved call comes back). A verdict belongs to its call: it is found again
 * only for the same tool name, the same call id and the same input as data (`sameData` against the
 * copy the hooks judged); anything else is decided afresh. Providers repeat call ids: two calls of
 * one step with one id are two calls.
 */
export interface Verdict {
  readonly gate: ToolGate;
  /** Whether a hook changed the input (`updated_input`, `tool_input`): then the tool runs with `gate.input`. */
  readonly patched: boolean;
}

/** Verdicts kept; the oldest go first. */
const MAX_KEPT = 1024;

const keyOf = (name: string, id: string): string => `${id}\u0000${name}`;

const isSame = (verdict: Verdict | undefined, input: unknown): verdict is Verdict => {
  const { gate } = verdict ?? {};
  return (
    gate !== undefined &&
    gate.action !== 'deny' &&
    gate.judged !== undefined &&
    sameData(asObject(input), gate.judged)
  );
};

export const verdicts = (hooks: AgentHooks) => {
  const kept = new Map<string, Verdict>();
  const decide = async (name: string, id: string, input: unknown): Promise<Verdict> => {
    const gate = await hooks.beforeTool(name, input, id);
    return { gate, patched: gate.action !== 'deny' && gate.input !== asObject(input) };
  };
  return {
    /** The verdict kept for this very call, else the hooks' now. */
    of: async (name: string, id: string, input: unknown): Promise<Verdict> => {
      const earlier = kept.get(keyOf(name, id));
      return isSame(earlier, input) ? earlier : decide(name, id, input);
    },
    /** Keeps a verdict (one the hooks judged: an unsent event is decided again, for free). */
    keep: (name: string, id: string, verdict: Verdict): void => {
      const key = keyOf(name, id);
      kept.delete(key);
      if (verdict.gate.action === 'deny' || verdict.gate.judged === undefined) return;
      kept.set(key, verdict);
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
    },
    /** The verdict kept for this call, taken out (an approval is used once), if it is the same call. */
    take: (name: string, id: string, input: unknown): Verdict | undefined => {
      const key = keyOf(name, id);
      const earlier = kept.get(key);
      kept.delete(key);
      return isSame(earlier, input) ? earlier : undefined;
    },
  };
};

export type Verdicts = ReturnType<typeof verdicts>;
