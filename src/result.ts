/**
 * The one shape of everything in the engine that can fail without throwing: decoding an event or
 * a hook's answer, parsing JSON, reading a file, compiling a matcher. The error is always under
 * `error` (a message, or a list of problems where there can be many), the value under `value`.
 * Pure, and imported by every layer, so it depends on nothing.
 */

/** A value, or why there is none: `{ ok: true, value }` or `{ ok: false, error }`. */
export type Result<A, E = string> =
  { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E };

/** A success holding `value`. */
export const ok = <A>(value: A): Result<A, never> => ({ ok: true, value });

/** A failure holding `error`. */
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });
