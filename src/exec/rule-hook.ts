import { defer, of, type Observable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import type { Decision } from '../events/names.js';
import type { RuleMatch } from '../registry/permission-rules.js';
import { redactText } from '../protocol/redact/index.js';
import { success, type HookResult } from '../protocol/result.js';
import type { RuleHook } from '../registry/hook.js';
import { exceptionFailure, type HookEmission } from './port.js';

const DECISION: Readonly<Record<RuleMatch['kind'], Decision>> = { deny: 'block', ask: 'ask', allow: 'allow' };

const shown = (text: string): string => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** What the decision's report says of a match: the rule, and what it matched or could not read. */
export const ruleNote = (match: RuleMatch): string =>
  match.unreadable !== undefined
    ? `${match.kind} rule ${match.rule}: ${match.unreadable}`
    : match.matched === undefined
      ? `${match.kind} rule ${match.rule}`
      : `${match.kind} rule ${match.rule} matched ${JSON.stringify(shown(match.matched))}`;

/** A rule hook's answer for one tool call: pure, from its compiled rules. */
export const ruleAnswer = (hook: RuleHook, event: HookEvent): HookResult => {
  const fields = event as Readonly<Record<string, unknown>>;
  const toolName = fields['tool_name'];
  const input = fields['tool_input'];
  if (typeof toolName !== 'string' || typeof input !== 'object' || input === null)
    return success({ decision: 'none' });
  const match = hook.rules.decide(toolName, input as Readonly<Record<string, unknown>>, event.cwd);
  if (match === undefined) return success({ decision: 'none' });
  // Redacted like every text of a result: a token in the command stays out of reports and logs.
  const note = redactText(ruleNote(match));
  // A deny or ask gives the hook's own reason, and says so when the call could not be read (never
  // silently); an allow names its rule.
  const own = match.kind === 'allow' ? undefined : hook.reason;
  const reason =
    own === undefined ? note : match.unreadable === undefined ? own : `${own} (${match.unreadable})`;
  return {
    ...success({
      decision: DECISION[match.kind],
      reason,
      ...(hook.systemMessage !== undefined && { systemMessage: hook.systemMessage }),
    }),
    note,
  };
};

/**
 * The executor of rule hooks: in process, no I/O; the answer is ready on subscribe. A rule hook
 * that throws (it should not) is an `exception` result, like a function hook's.
 */
export const runRuleHook = (hook: RuleHook, event: HookEvent): Observable<HookEmission> =>
  defer(() => {
    try {
      return of(ruleAnswer(hook, event));
    } catch (error) {
      return of(exceptionFailure(error));
    }
  });
