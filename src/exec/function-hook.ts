import { defer, from, isObservable, map, of, take, type Observable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import { decodeHookOutputValue } from '../protocol/output.js';
import { failure, success, type HookResult } from '../protocol/result.js';
import type { FunctionHook } from '../registry/hook.js';

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

const classify = (value: unknown): HookResult => {
  // A function that returns nothing has no opinion, like a command hook that prints nothing.
  if (value === undefined || value === null) return success({ decision: 'none' });
  const decoded = decodeHookOutputValue(value);
  return decoded.ok ? success(decoded.value) : failure('invalid_output', `invalid output: ${decoded.error}`);
};

/**
 * Runs an in-process hook. Its return value (plain, Promise or Observable; only the first value of
 * an Observable counts) is validated like stdout, so a function hook cannot smuggle in a decision
 * a command hook could not make. A throw or a rejection is an `exception` failure; the caller turns
 * errors into values, so this may error.
 */
export const runFunctionHook = (hook: FunctionHook, event: HookEvent): Observable<HookResult> =>
  defer(() => {
    const returned: unknown = hook.run(event);
    const value$: Observable<unknown> = isObservable(returned)
      ? returned.pipe(take(1))
      : isPromiseLike(returned)
        ? from(returned)
        : of(returned);
    return value$.pipe(map(classify));
  });

/** The failure for a function hook that threw, rejected or errored. */
export const exceptionFailure = (error: unknown): HookResult =>
  failure('exception', `threw: ${error instanceof Error ? error.message : String(error)}`);
