import type { HookResult } from './result.js';

/*
 * A hook's answer as it gave it, attached to its result without becoming part of the result's
 * shape: decisions, reports, equality and serialization never see it. A hook of another dialect
 * answers with plain text or with top-level fields cosh does not read (`continue`, `stopReason`);
 * the dialect reader (src/dialects) needs what a command hook printed, or the value a function hook
 * returned, while every cosh consumer keeps the one result shape, and the operators never learn
 * which kind of hook answered. Held weakly: it lives exactly as long as the result.
 */
const printed = new WeakMap<HookResult, string>();
const returned = new WeakMap<HookResult, { readonly value: unknown }>();

/** `result`, remembering that the hook printed `stdout` (bounded by the executor's limit). */
export const withPrinted = <R extends HookResult>(result: R, stdout: string): R => {
  if (stdout !== '') printed.set(result, stdout);
  return result;
};

/** What the hook printed, when the result came from a command hook that exited normally. */
export const printedBy = (result: HookResult): string | undefined => printed.get(result);

/** `result`, remembering that an in-process hook returned `value` (its first value, for an Observable). */
export const withReturned = <R extends HookResult>(result: R, value: unknown): R => {
  returned.set(result, { value });
  return result;
};

/** What the hook returned, when the result came from a function hook whose value was kept. */
export const returnedBy = (result: HookResult): { readonly value: unknown } | undefined =>
  returned.get(result);
