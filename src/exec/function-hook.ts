import { catchError, defer, from, isObservable, map, of, take, type Observable } from 'rxjs';
import { decodeHookOutputValue, plainHookValue } from '../protocol/output.js';
import { failure, success, type HookResult } from '../protocol/result.js';
import { exceptionFailure, type FunctionExecutor } from './port.js';

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

const classify = (value: unknown): HookResult => {
  // A function that returns nothing has no opinion, like a command hook that prints nothing.
  if (value === undefined || value === null) return success({ decision: 'none' });
  const plain = plainHookValue(value);
  const decoded = plain.ok ? decodeHookOutputValue(plain.value) : plain;
  return decoded.ok ? success(decoded.value) : failure('invalid_output', `invalid output: ${decoded.error}`);
};

/**
 * The executor of in-process hooks. A function hook's return value (plain, Promise or Observable;
 * only the first value of an Observable counts) is validated like stdout, so a function hook cannot
 * smuggle in a decision a command hook could not make. A throw, a rejection or an error is an
 * `exception` result: like every executor, this never errors. Nothing to cancel but the returned
 * Observable, which unsubscribing does; a Promise runs on, its value ignored.
 */
export const runFunctionHook: FunctionExecutor = (hook, event): Observable<HookResult> =>
  defer(() => {
    try {
      const returned: unknown = hook.run(event);
      if (isObservable(returned))
        return returned.pipe(
          take(1),
          map(classify),
          catchError((error: unknown) => of(exceptionFailure(error))),
        );
      if (isPromiseLike(returned))
        return from(Promise.resolve(returned).then(classify).catch(exceptionFailure));
      // The common case, a plain value, is answered without any further operator.
      return of(classify(returned));
    } catch (error) {
      // Thrown by the function, or by a hostile return value's `then` getter.
      return of(exceptionFailure(error));
    }
  });
