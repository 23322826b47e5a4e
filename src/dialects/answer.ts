import type { EventName } from '../events/names.js';
import { decodeHookOutputValue, decodeHookStdout, plainHookValue } from '../protocol/decode-output.js';
import type { HookOutput } from '../protocol/output.js';
import { parseJson, isJsonObject, type JsonObject } from '../events/untrusted.js';
import { printedBy, returnedBy } from '../protocol/printed.js';
import { failure, success, type HookResult } from '../protocol/result.js';
import { err, ok, type Result } from '../result.js';
import type { ForeignDialect } from '../registry/dialect.js';

/** Exit status with which Claude Code and Gemini CLI hooks block, the reason on stderr. */
export const BLOCKING_EXIT_CODE = 2;

/** Events on which a Claude Code hook's plain-text stdout is context for the model. */
const CLAUDE_TEXT_IS_CONTEXT: readonly EventName[] = ['UserPromptSubmit', 'SessionStart'];

/** Keys of Claude's `hookSpecificOutput` that become a decision here instead of being passed on. */
const CLAUDE_DECISION_KEYS = [
  'hookEventName',
  'permissionDecision',
  'permissionDecisionReason',
  'updatedInput',
];

const PERMISSION_DECISIONS: Readonly<Record<string, HookOutput['decision']>> = {
  allow: 'allow',
  deny: 'block',
  ask: 'ask',
  // Claude Code's "defer" hands the call back to its own permission flow: no opinion here.
  defer: 'none',
};

/** What a foreign hook's answer needs besides its result. */
export interface AnswerContext {
  readonly dialect: ForeignDialect;
  /** The cosh event name the hook ran for. */
  readonly event: EventName;
  readonly hookName: string;
  /** A tool input in the hook's field names → cosh names (see SentEvent). */
  readonly back: (input: JsonObject) => JsonObject;
}

type Read = Result<HookOutput>;

const invalid = (error: string): Read => err(error);

/** Copies `source` without `keys`, defining keys as data (a `__proto__` key stays a key). */
const without = (source: JsonObject, keys: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (!keys.includes(key))
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/**
 * The fields both agents share on top of cosh's: `continue: false` stops the agent, with
 * `stopReason` for the user. Here that is a block (the chain stops, the host is told why) plus
 * `continue: false` and `stop_reason` in `hook_specific_output`, so the host can end the turn even
 * on events where nothing is blocked (docs/compat.md). Not for a Gemini hook on its advisory
 * events (SessionStart, SessionEnd, Notification, PreCompress), where Gemini CLI ignores `continue`.
 */
/** Gemini CLI events whose answers are advisory: it ignores `continue` there. */
const GEMINI_ADVISORY: readonly EventName[] = ['SessionStart', 'SessionEnd', 'Notification', 'PreCompact'];

const withStop = (output: HookOutput, raw: JsonObject, context: AnswerContext): Read => {
  // Gemini CLI's SessionStart is advisory: it ignores `continue` there (startup is never blocked),
  // and so on its session-end, notification and compression events.
  if (context.dialect === 'gemini' && GEMINI_ADVISORY.includes(context.event)) return ok(output);
  const go = raw['continue'];
  const stopReason = raw['stopReason'];
  if (go !== undefined && typeof go !== 'boolean') return invalid('continue: expected true or false');
  if (stopReason !== undefined && typeof stopReason !== 'string')
    return invalid('stopReason: expected a string');
  if (go !== false) return ok(output);
  const reason = stopReason ?? output.reason ?? `hook "${context.hookName}" stopped the agent`;
  return ok({
    ...output,
    decision: 'block',
    reason,
    hookSpecificOutput: { ...output.hookSpecificOutput, continue: false, stop_reason: reason },
  });
};

/** Claude's `hookSpecificOutput`: permissionDecision(+Reason) is the decision, updatedInput the new input. */
const claudeSpecific = (output: HookOutput, context: AnswerContext): Read => {
  const specific = output.hookSpecificOutput;
  if (specific === undefined) return ok(output);
  const permission = specific['permissionDecision'];
  const permissionReason = specific['permissionDecisionReason'];
  const updatedInput = specific['updatedInput'];
  let decision = output.decision;
  if (permission !== undefined) {
    const mapped =
      typeof permission === 'string' && Object.hasOwn(PERMISSION_DECISIONS, permission)
        ? PERMISSION_DECISIONS[permission]
        : undefined;
    if (mapped === undefined)
      return invalid(
        `hookSpecificOutput.permissionDecision: unknown value ${JSON.stringify(permission)} (expected allow, deny, ask or defer)`,
      );
    decision = mapped;
  }
  if (permissionReason !== undefined && typeof permissionReason !== 'string')
    return invalid('hookSpecificOutput.permissionDecisionReason: expected a string');
  if (updatedInput !== undefined && !isJsonObject(updatedInput))
    return invalid('hookSpecificOutput.updatedInput: expected an object');
  const rest = without(specific, CLAUDE_DECISION_KEYS);
  // updated_input is the whole new tool input (a replacement); tool_input stays a patch.
  if (updatedInput !== undefined) rest['updated_input'] = context.back(updatedInput);
  const reason = permissionReason ?? output.reason;
  return ok({
    decision,
    ...(reason !== undefined && { reason }),
    ...(output.systemMessage !== undefined && { systemMessage: output.systemMessage }),
    ...(Object.keys(rest).length > 0 && { hookSpecificOutput: rest }),
  });
};

/**
 * Gemini's `decision: "allow"` approves nothing: Gemini CLI acts on deny/block and ask only, and
 * "allow" is what it merges to when no hook blocks. So it is no opinion here, never cosh's
 * `allow` (which a host may take as approval without asking). `hookSpecificOutput.tool_input` is
 * a patch like cosh's, in Gemini's field names.
 */
const geminiSpecific = (given: HookOutput, context: AnswerContext): Read => {
  const output: HookOutput = given.decision === 'allow' ? { ...given, decision: 'none' } : given;
  const specific = output.hookSpecificOutput;
  if (specific === undefined) return ok(output);
  const rest = without(specific, ['hookEventName']);
  const patch = specific['tool_input'];
  if (isJsonObject(patch)) rest['tool_input'] = context.back(patch);
  const { hookSpecificOutput: _dropped, ...base } = output;
  return ok({ ...base, ...(Object.keys(rest).length > 0 && { hookSpecificOutput: rest }) });
};

/** A JSON answer: cosh's fields as cosh reads them, then the dialect's own. */
const readObject = (output: HookOutput, raw: JsonObject, context: AnswerContext): Read => {
  const specific =
    context.dialect === 'claude' ? claudeSpecific(output, context) : geminiSpecific(output, context);
  return specific.ok ? withStop(specific.value, raw, context) : specific;
};

/**
 * Plain text on stdout. Claude Code adds it to the context on UserPromptSubmit and SessionStart and
 * otherwise only shows it in its transcript view; Gemini CLI shows it to the user as a system
 * message (hookRunner's convertPlainTextToHookOutput).
 */
const readText = (text: string, context: AnswerContext): HookOutput => {
  if (context.dialect === 'gemini') return { decision: 'none', systemMessage: text };
  return CLAUDE_TEXT_IS_CONTEXT.includes(context.event)
    ? { decision: 'none', hookSpecificOutput: { additional_context: text } }
    : { decision: 'none' };
};

/** What a hook that exited 0 printed, read the way its own agent reads it. */
const readPrinted = (result: HookResult, printed: string, context: AnswerContext): HookResult => {
  const text = printed.trim();
  if (result.outcome === 'ok') {
    const parsed = text === '' ? undefined : parseJson(text);
    const value = parsed?.ok === true && isJsonObject(parsed.value) ? parsed.value : {};
    return answer(readObject(result.output, value, context));
  }
  const parsed = parseJson(text);
  if (!parsed.ok) return success(readText(text, context));
  // Gemini CLI parses a JSON string that holds JSON once more (double-encoded output).
  if (context.dialect === 'gemini' && typeof parsed.value === 'string') {
    const inner = parseJson(parsed.value);
    if (inner.ok && isJsonObject(inner.value)) {
      const decoded = decodeHookStdout(parsed.value);
      return decoded.ok ? answer(readObject(decoded.value, inner.value, context)) : result;
    }
  }
  // Valid JSON that is not an object is text to both agents; an object cosh rejects stays rejected.
  return isJsonObject(parsed.value) ? result : success(readText(text, context));
};

const answer = (read: Read): HookResult =>
  read.ok ? success(read.value) : failure('invalid_output', `invalid output: ${read.error}`);

/**
 * A foreign hook's result as cosh reads it (docs/compat.md). Pure.
 *
 * - exit status 2 → `block`, the reason is its stderr (both agents' "blocking error");
 * - `hookSpecificOutput.permissionDecision` (Claude) → allow / block / ask, with
 *   `permissionDecisionReason` as the reason;
 * - `hookSpecificOutput.updatedInput` (Claude) → `hook_specific_output.updated_input`, the whole new
 *   tool input in cosh's field names (a replacement, not a patch);
 * - `hookSpecificOutput.tool_input` (Gemini) → the `tool_input` patch, in cosh's field names;
 * - plain text → context (Claude, UserPromptSubmit and SessionStart) or a message (Gemini);
 * - `continue: false` → `block` with `stopReason`, flagged in `hook_specific_output`.
 *
 * Any other failure (timeout, other exit codes, signals) stays what it is, so `fail_closed` works
 * as for every hook.
 */
export const readForeignAnswer = (result: HookResult, context: AnswerContext): HookResult => {
  if (result.outcome === 'exit' && 'exitCode' in result && result.exitCode === BLOCKING_EXIT_CODE) {
    const reason = result.stderr?.trim() ?? '';
    return success({
      decision: 'block',
      reason: reason !== '' ? reason : `hook "${context.hookName}" exited with code ${BLOCKING_EXIT_CODE}`,
    });
  }
  if (result.outcome !== 'ok' && result.outcome !== 'invalid_output') return result;
  const given = returnedBy(result);
  // An in-process hook's value: what cosh's decoder rejected stays rejected.
  if (given !== undefined) return result.outcome === 'ok' ? readForeignValue(given.value, context) : result;
  const printed = printedBy(result);
  if (printed !== undefined) return readPrinted(result, printed, context);
  // Nothing printed or returned (or a scripted result): no text, no fields beyond cosh's to read.
  return result.outcome === 'ok' ? answer(readObject(result.output, {}, context)) : result;
};

/** For tests and in-process hooks: decode one answer object the way the dialect reads it. */
export const readForeignValue = (value: unknown, context: AnswerContext): HookResult => {
  const plain = plainHookValue(value);
  if (!plain.ok) return failure('invalid_output', `invalid output: ${plain.error}`);
  const decoded = decodeHookOutputValue(plain.value);
  if (!decoded.ok) return failure('invalid_output', `invalid output: ${decoded.error}`);
  return answer(readObject(decoded.value, isJsonObject(plain.value) ? plain.value : {}, context));
};
