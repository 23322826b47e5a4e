import { isJsonObject, parseJson } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';

/*
 * How `cosh-hooks replay` compares decisions (docs/cli.md). Pure. Only `hook_decision` and
 * `hook_error` lines count (notifications are the Shell's, not the host's); what changes from run
 * to run is left out: `seq` (a recording may skip numbers), each hook's `duration_ms`.
 */

/** One answer as compared: a decision or hook_error line without what varies between runs. */
export type Answer = Readonly<Record<string, unknown>>;

const isAnswer = (value: Readonly<Record<string, unknown>>): boolean =>
  value['type'] === 'hook_decision' || value['type'] === 'hook_error';

/** `line` without `seq` and without each hook's `duration_ms`; other lines are `undefined`. */
export const answerOf = (line: unknown): Answer | undefined => {
  if (!isJsonObject(line) || !isAnswer(line)) return undefined;
  const { seq: _seq, ...rest } = line;
  const hooks = rest['hooks'];
  if (!Array.isArray(hooks)) return rest;
  return {
    ...rest,
    hooks: hooks.map((hook: unknown) => {
      if (!isJsonObject(hook)) return hook;
      const { duration_ms: _duration, ...report } = hook;
      return report;
    }),
  };
};

/** The answers of a DECISIONS.jsonl file (or of `run`'s whole output): other lines are skipped. */
export const readAnswers = (text: string, file: string): Result<Answer[]> => {
  const answers: Answer[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const parsed = parseJson(raw);
    if (!parsed.ok) return err(`${file}:${index + 1}: not JSON: ${parsed.error}`);
    const answer = answerOf(parsed.value);
    if (answer !== undefined) answers.push(answer);
  }
  return ok(answers);
};

/** JSON with object keys sorted: two answers are equal when their canonical texts are. */
const canonical = (value: unknown): string => JSON.stringify(sorted(value));
const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    Object.defineProperty(out, key, {
      value: sorted(value[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
};

const show = (value: unknown): string => (value === undefined ? '(absent)' : JSON.stringify(value));

/** A short name of the event an answer is for: `#3 PreToolUse session s tool_use_id t1`, or `hook_error line 4`. */
const labelOf = (answer: Answer | undefined, position: number): string => {
  if (answer === undefined) return `#${position}`;
  if (answer['type'] === 'hook_error')
    return `#${position} hook_error ${answer['line'] !== undefined ? `line ${String(answer['line'])}` : `index ${String(answer['index'])}`}`;
  const toolUse = answer['tool_use_id'] === undefined ? '' : ` tool_use_id ${String(answer['tool_use_id'])}`;
  return `#${position} ${String(answer['hook_event_name'])} session ${String(answer['session_id'])}${toolUse}`;
};

/** The differing fields of two answers, one line each: `  decision: expected "allow", got "block"`. */
const fieldDiff = (expected: Answer, actual: Answer): string[] => {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  return keys
    .filter((key) => canonical(expected[key]) !== canonical(actual[key]))
    .map((key) => `  ${key}: expected ${show(expected[key])}, got ${show(actual[key])}`);
};

/**
 * The readable difference between the expected and the actual answers, in order; empty when they
 * are the same. Answers are matched by position (the n-th decision of the recording).
 */
export const diffAnswers = (expected: readonly Answer[], actual: readonly Answer[]): string[] => {
  const out: string[] = [];
  const count = Math.max(expected.length, actual.length);
  for (let index = 0; index < count; index += 1) {
    const want = expected[index];
    const got = actual[index];
    if (want !== undefined && got !== undefined) {
      if (canonical(want) === canonical(got)) continue;
      out.push(`${labelOf(got, index + 1)}:`, ...fieldDiff(want, got));
    } else if (want !== undefined) {
      out.push(
        `${labelOf(want, index + 1)}: expected, but the replay gave no such answer`,
        `  ${canonical(want)}`,
      );
    } else {
      out.push(`${labelOf(got, index + 1)}: not expected`, `  ${canonical(got)}`);
    }
  }
  return out;
};

/** The answers as a DECISIONS.jsonl text: one line each, keys in wire order. */
export const answersText = (answers: readonly Answer[]): string =>
  answers.map((answer) => `${JSON.stringify(answer)}\n`).join('');
