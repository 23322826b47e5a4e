import { randomUUID } from 'node:crypto';
import { isJsonObject, parseJson } from '../../events/untrusted.js';
import { decodeHookOutputValue } from '../../protocol/decode-output.js';
import { excerpt } from '../../protocol/excerpt.js';
import { withPrinted } from '../../protocol/printed.js';
import { failure, success, type HookFailure, type HookResult } from '../../protocol/result.js';
import type { Dialect } from '../../registry/dialect.js';
import { classifyProcess, formatBytes, type Termination } from '../process/classify.js';

/*
 * The pure half of persistent hooks (spec §8): what an answer line, a death or a restart back-off
 * means. `persistent.ts` does the I/O and asks these functions what to report.
 */

/** How restarts of a persistent hook that keeps dying are spaced. */
export interface Backoff {
  /** Wait after the first failure in a row. Default 100 ms. */
  readonly initialMs: number;
  /** Longest wait; the wait doubles per failure in a row up to this. Default 10 s. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 100, maxMs: 10_000 };

/** The wait before the next start after `failures` failures in a row (1 → initialMs, doubling, capped). */
export const backoffDelay = (failures: number, backoff: Backoff = DEFAULT_BACKOFF): number => {
  if (failures <= 0) return 0;
  // 2 ** 40 is already past any sane cap; the bound keeps the power finite for absurd counts.
  const doubled = backoff.initialMs * 2 ** Math.min(failures - 1, 40);
  return Math.min(doubled, backoff.maxMs);
};

/**
 * The failure an event gets while a hook waits out its back-off: it is not started again for it,
 * and the message says why and when it will be (a `spawn` failure: the hook did not run).
 */
export const backoffFailure = (failures: number, waitMs: number, last: string | undefined): HookFailure =>
  failure(
    'spawn',
    `restarting after ${failures} ${failures === 1 ? 'failure' : 'failures'}: next start in ${Math.max(
      1,
      Math.ceil(waitMs),
    )} ms${last === undefined ? '' : ` (last: ${last})`}`,
  );

/** The field that ties an answer line to its request (docs/execution.md). */
export const REQUEST_ID_FIELD = 'cosh_request_id';

/** A new request id: unique per request, so no answer can be taken for another request's. */
export const newRequestId = (): string => randomUUID();

/**
 * The line written to a persistent process for one event: the event's JSON with one more top-level
 * string field, `cosh_request_id`, and a newline. A `cosh_request_id` the event already carries is
 * replaced: only the engine names requests. Throws what `JSON.stringify` throws (an event is
 * plain data once admitted, so only for a caller outside the pipeline).
 */
export const requestLine = (event: object, id: string): string =>
  `${JSON.stringify({ ...event, [REQUEST_ID_FIELD]: id })}\n`;

/**
 * What one line on a persistent process's stdout means for the request in flight:
 * - `answer`: it holds this request's id; `result` is its decision, or `invalid_output` for a
 *   line that is not valid output (the process stays in step);
 * - `stray`: it holds no id or another one (a start-up banner, a second or a late answer, plain
 *   text); it answers nothing, `result` is the request's `invalid_output` failure, and the process
 *   is out of step (it must be replaced).
 */
export type AnswerLine =
  | { readonly kind: 'answer'; readonly result: HookResult }
  | { readonly kind: 'stray'; readonly result: HookFailure };

const stray = (why: string, stderr: string): AnswerLine => ({
  kind: 'stray',
  result: failure(
    'invalid_output',
    `invalid output: ${why}; a line without this request's ${REQUEST_ID_FIELD} answers nothing`,
    stderr === '' ? {} : { stderr },
  ),
});

/**
 * The object that carries the id: the line's JSON object, or for a Gemini hook the object a JSON
 * string holds (Gemini CLI reads double-encoded output, and so does the dialect reader).
 */
const carrier = (value: unknown, dialect: Dialect | undefined): unknown => {
  if (dialect !== 'gemini' || typeof value !== 'string') return value;
  const inner = parseJson(value);
  return inner.ok ? inner.value : value;
};

/**
 * Reads one answer line (without its newline) for the request `id`. Pure.
 *
 * Only a JSON object holding `"cosh_request_id": id` answers; its other fields are read as a
 * per-event hook's stdout (docs/protocol.md). The line stays attached to the result
 * (`withPrinted`), so a hook of another dialect is read the way its agent reads a JSON answer
 * (`continue: false`, `permissionDecision`, Gemini's double-encoded output: src/dialects/answer.ts).
 * A line without the id is never attached: plain text has no line form, so no dialect can read it
 * as an answer.
 * `stderr` is what the hook wrote to stderr since the request (kept on a failure, for fail_closed).
 */
export const readAnswerLine = (line: string, id: string, stderr: string, dialect?: Dialect): AnswerLine => {
  const text = line.trim();
  if (text === '') return stray('an empty line', stderr);
  const parsed = parseJson(text);
  if (!parsed.ok) return stray(`stdout is not JSON: ${JSON.stringify(excerpt(text))}`, stderr);
  const object = carrier(parsed.value, dialect);
  if (!isJsonObject(object)) return stray('the line is not a JSON object', stderr);
  const given = object[REQUEST_ID_FIELD];
  if (given === undefined) return stray(`no ${REQUEST_ID_FIELD}`, stderr);
  if (given !== id) return stray(`${REQUEST_ID_FIELD} is not this request's`, stderr);
  const decoded = decodeHookOutputValue(parsed.value);
  return {
    kind: 'answer',
    result: withPrinted(
      decoded.ok
        ? success(decoded.value)
        : failure('invalid_output', `invalid output: ${decoded.error}`, stderr === '' ? {} : { stderr }),
      text,
    ),
  };
};

/** A line longer than the limit: the process was killed for it. */
export const tooLargeAnswer = (limit: number, stderr: string): HookFailure =>
  failure('output_too_large', `answer line exceeded ${formatBytes(limit)}`, stderr === '' ? {} : { stderr });

/**
 * A persistent process that ended (or never started) before answering: `spawn`, `exit` or
 * `signal` as for a process per event, except that a clean exit (status 0) without an answer is
 * an `exit` failure too, never a pass-through.
 */
export const classifyDeath = (termination: Termination, stderr: string): HookFailure => {
  const result = classifyProcess({ termination, stdout: '', stdoutOverflow: false, stdoutLimit: 0, stderr });
  if (result.outcome !== 'ok') return result;
  return failure('exit', 'exited with code 0 before answering', {
    ...(stderr !== '' && { stderr }),
    exitCode: 0,
  });
};

/** Whether a death counts toward the back-off: the process ended on its own, not by our hand. */
export const isCrash = (termination: Termination): boolean =>
  termination.kind !== 'exited' || termination.exitCode !== 0;
