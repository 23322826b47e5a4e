import type { HookResult } from './result.js';

/*
 * What a command hook printed on stdout, attached to its result without becoming part of the
 * result's shape: decisions, reports, equality and serialization never see it. A hook of another
 * dialect answers with plain text or with top-level fields cosh does not read (`continue`,
 * `stopReason`); the dialect reader (src/dialects) needs the text as printed, while every cosh
 * consumer keeps the one result shape. Held weakly: it lives exactly as long as the result.
 */
const printed = new WeakMap<HookResult, string>();

/** `result`, remembering that the hook printed `stdout` (bounded by the executor's limit). */
export const withPrinted = <R extends HookResult>(result: R, stdout: string): R => {
  if (stdout !== '') printed.set(result, stdout);
  return result;
};

/** What the hook printed, when the result came from a command hook that exited normally. */
export const printedBy = (result: HookResult): string | undefined => printed.get(result);
