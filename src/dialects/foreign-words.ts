import type { Decision } from '../events/names.js';
import { isJsonObject, parseJson, type JsonObject } from '../events/untrusted.js';
import { decodeHookStdout } from '../protocol/decode-output.js';
import { firstNonBlankLine } from '../protocol/first-line.js';
import type { HookOutput } from '../protocol/output.js';
import { printedBy, returnedBy } from '../protocol/printed.js';
import { redactText } from '../protocol/redact/index.js';
import type { HookFailure, HookResult, HookSuccess } from '../protocol/result.js';
import { BLOCKING_EXIT_CODE } from './answer.js';

/**
 * A `cosh` hook's answer in another agent's words (docs/compat.md, "A hook without dialect"): a
 * hook written for Claude Code, Gemini CLI or Cursor but configured without `dialect`. cosh's own
 * protocol ignores those words, so such a guard would pass every call. Read here so that it never
 * passes silently: every form recognised is named in the result's `foreign` (the decision report,
 * the audit, `run`'s warning, `doctor`), and an unambiguous deny blocks, an ask asks. Deny what you
 * cannot prove safe: a reading only ever makes the answer stricter (block > ask > the rest), never
 * an approval, never looser. Pure.
 */

const CLAUDE = `Claude Code's words: set dialect = "claude"`;
const CLAUDE_GEMINI = `Claude Code's and Gemini CLI's words: set dialect = "claude" (or "gemini")`;
const GEMINI = `Gemini CLI's words: set dialect = "gemini"`;
const CURSOR = `Cursor's words, which no dialect reads: answer {"decision": "block", "reason": "…"} instead`;

/** How an exit status 2 with a reason on stderr is named. */
export const FOREIGN_EXIT = `exit status 2 with a reason on stderr (${CLAUDE_GEMINI})`;

const RANK: Readonly<Record<Decision, number>> = { none: 0, allow: 1, ask: 2, block: 3 };

/** What a foreign field says, in cosh's terms: only block and ask count, nothing opens. */
const stricterOf = (value: unknown): 'block' | 'ask' | undefined => {
  if (typeof value !== 'string') return undefined;
  const word = value.toLowerCase();
  return word === 'deny' || word === 'block' ? 'block' : word === 'ask' ? 'ask' : undefined;
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** A field's value as the report names it: redacted, then cut (it is the hook's text). */
const shown = (value: unknown): string => {
  const json = redactText(JSON.stringify(value) ?? String(value));
  return json.length > 40 ? `${json.slice(0, 40)}…` : json;
};

/** The answer being read: its decision so far, the words found, and what a stop adds. */
interface Reading {
  decision: Decision;
  reason: string | undefined;
  readonly words: string[];
  stop?: string;
}

const raise = (reading: Reading, to: 'block' | 'ask' | undefined, reason: string | undefined): void => {
  if (to === undefined || RANK[to] <= RANK[reading.decision]) return;
  reading.decision = to;
  if (reason !== undefined) reading.reason = reason;
};

/** Claude Code's fields inside `hookSpecificOutput`. */
const readSpecific = (specific: Readonly<Record<string, unknown>>, reading: Reading): void => {
  const permission = specific['permissionDecision'];
  if (permission !== undefined) {
    reading.words.push(`hookSpecificOutput.permissionDecision ${shown(permission)} (${CLAUDE})`);
    raise(reading, stricterOf(permission), text(specific['permissionDecisionReason']) ?? reading.reason);
  }
  const decision = specific['decision'];
  if (decision === undefined) return;
  // A PermissionRequest answer: {"decision": {"behavior": "deny", "message": "…"}}.
  if (isJsonObject(decision)) {
    reading.words.push(`hookSpecificOutput.decision.behavior ${shown(decision['behavior'])} (${CLAUDE})`);
    raise(reading, stricterOf(decision['behavior']), text(decision['message']) ?? reading.reason);
    return;
  }
  reading.words.push(`hookSpecificOutput.decision ${shown(decision)} (${CLAUDE})`);
  raise(reading, stricterOf(decision), text(specific['reason']) ?? reading.reason);
};

/** Top-level fields cosh does not read: `continue: false` (Claude, Gemini), `permission` (Cursor). */
const readTop = (raw: JsonObject, reading: Reading, hookName: string): void => {
  if (raw['continue'] === false) {
    reading.words.push(`continue: false (${CLAUDE_GEMINI})`);
    const reason = text(raw['stopReason']) ?? text(reading.reason) ?? `hook "${hookName}" stopped the agent`;
    reading.stop = reason;
    raise(reading, 'block', reason);
  }
  const permission = raw['permission'];
  if (permission !== undefined) {
    reading.words.push(`permission ${shown(permission)} (${CURSOR})`);
    const reason =
      text(raw['agent_message']) ??
      text(raw['agentMessage']) ??
      text(raw['user_message']) ??
      text(raw['userMessage']);
    raise(reading, stricterOf(permission), reason ?? reading.reason);
  }
};

/** Whether printed text may hold top-level fields worth a second parse (most answers do not). */
const mayHoldTopWords = (printed: string): boolean =>
  printed.includes('continue') || printed.includes('permission') || printed.includes('\\u');

/** The answer object as the hook gave it, when it may hold words the decoder dropped. */
const rawOf = (result: HookResult): JsonObject | undefined => {
  const given = returnedBy(result);
  if (given !== undefined) return isJsonObject(given.value) ? given.value : undefined;
  const printed = printedBy(result);
  if (printed === undefined || !mayHoldTopWords(printed)) return undefined;
  const parsed = parseJson(printed.trim());
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : undefined;
};

const readSuccess = (result: HookSuccess, hookName: string): HookResult => {
  const { output } = result;
  const specific = output.hookSpecificOutput;
  const raw = rawOf(result);
  if (specific === undefined && raw === undefined) return result;
  const reading: Reading = { decision: output.decision, reason: output.reason, words: [] };
  if (specific !== undefined) readSpecific(specific, reading);
  if (raw !== undefined) readTop(raw, reading, hookName);
  if (reading.words.length === 0) return result;
  const read: HookOutput = {
    ...output,
    decision: reading.decision,
    ...(reading.reason !== undefined && { reason: reading.reason }),
    ...(reading.stop !== undefined && {
      hookSpecificOutput: { ...specific, continue: false, stop_reason: reading.stop },
    }),
  };
  return { ...result, output: read, foreign: reading.words.join('; ') };
};

/**
 * Gemini CLI parses a JSON string that holds JSON once more: a cosh hook that prints one fails
 * `invalid_output`. When the inner object blocks or asks (in cosh's or another agent's words),
 * that is the answer; otherwise the failure stays (fail_closed still applies), named.
 */
const readDoubleEncoded = (result: HookFailure, hookName: string): HookResult => {
  const printed = printedBy(result);
  if (printed === undefined) return result;
  const parsed = parseJson(printed.trim());
  if (!parsed.ok || typeof parsed.value !== 'string') return result;
  const inner = decodeHookStdout(parsed.value);
  if (!inner.ok) return result;
  const form = `a JSON string holding a JSON object (${GEMINI})`;
  const innerRaw = parseJson(parsed.value);
  const reading: Reading = { decision: inner.value.decision, reason: inner.value.reason, words: [form] };
  if (inner.value.hookSpecificOutput !== undefined) readSpecific(inner.value.hookSpecificOutput, reading);
  if (innerRaw.ok && isJsonObject(innerRaw.value)) readTop(innerRaw.value, reading, hookName);
  if (reading.decision !== 'block' && reading.decision !== 'ask') return { ...result, foreign: form };
  return {
    outcome: 'ok',
    output: {
      decision: reading.decision,
      ...(reading.reason !== undefined && { reason: reading.reason }),
    },
    foreign: reading.words.join('; '),
  };
};

/**
 * A `cosh` hook's result with another agent's words read (see above):
 *
 * | the hook… | read as |
 * |---|---|
 * | exits 2 with a reason on stderr | still an `exit` failure, marked: it blocks as if fail_closed (first stderr line) |
 * | prints `hookSpecificOutput.permissionDecision` `deny` / `ask` | `block` / `ask`, `permissionDecisionReason` the reason |
 * | prints `hookSpecificOutput.decision` `block`/`deny`/`ask`, or `{behavior}` | `block` / `ask` |
 * | prints `continue: false` | `block` with `stopReason`, `continue: false` in `hook_specific_output` |
 * | prints `permission` `deny` / `ask` (Cursor) | `block` / `ask`, `agent_message` the reason |
 * | prints a JSON string holding a deny (Gemini) | `block` |
 * | any other value of these fields (`allow`, `defer`) | unchanged, marked |
 *
 * Any other result is returned as is (the same object).
 */
export const readCoshAnswer = (result: HookResult, hookName: string): HookResult => {
  switch (result.outcome) {
    case 'ok':
      return readSuccess(result, hookName);
    case 'exit':
      return result.exitCode === BLOCKING_EXIT_CODE && firstNonBlankLine(result.stderr) !== undefined
        ? { ...result, foreign: FOREIGN_EXIT }
        : result;
    case 'invalid_output':
      return readDoubleEncoded(result, hookName);
    default:
      return result;
  }
};
