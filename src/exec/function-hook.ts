import { catchError, from, isObservable, map, Observable, of, take } from 'rxjs';
import { eventClone } from '../events/event-data.js';
import { decodeHookOutputValue, plainHookValue } from '../protocol/decode-output.js';
import { isForeign } from '../registry/dialect.js';
import { withReturned } from '../protocol/printed.js';
import { failure, success, type HookResult } from '../protocol/result.js';
import type { FunctionHook } from '../registry/hook.js';
import { exceptionFailure, type FunctionExecutor } from './port.js';

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/** The result of an answer already copied as plain JSON (`plainHookValue`). */
const decodedResult = (plain: unknown): HookResult => {
  const decoded = decodeHookOutputValue(plain);
  return decoded.ok ? success(decoded.value) : failure('invalid_output', `invalid output: ${decoded.error}`);
};

const unreadable = (error: string): HookResult => failure('invalid_output', `invalid output: ${error}`);

/**
 * A function hook's answer is read once, as plain JSON with bounds on depth and size: what the
 * engine and its host keep is data that cannot throw, change or recurse when read again.
 */
const classify = (value: unknown): HookResult => {
  // A function that returns nothing has no opinion, like a command hook that prints nothing.
  if (value === undefined || value === null) return success({ decision: 'none' });
  const plain = plainHookValue(value);
  return plain.ok ? decodedResult(plain.value) : unreadable(plain.error);
};

/**
 * A hook of another dialect also answers with fields cosh drops: its reader gets the value as
 * returned, in its plain copy.
 */
const classifyFor = (hook: FunctionHook): ((value: unknown) => HookResult) =>
  isForeign(hook.dialect)
    ? (value) => {
        if (value === undefined || value === null) return classify(value);
        const plain = plainHookValue(value);
        return plain.ok ? withReturned(decodedResult(plain.value), plain.value) : unreadable(plain.error);
      }
    : classify;

/**
 * The executor of in-process hooks. A function hook's return value (plain, Promise or Observable;
 * only the first value of an Observable counts) is validated like stdout, so a function hook cannot
 * smuggle in a decision a command hook could not make. A throw, a rejection or an error is an
 * `exception` result: like every executor, this never errors. The hook gets its own deep copy of
 * the event (docs/protocol.md, "Events are data"): it changes the outcome only through its answer. Nothing to cancel but the returned
 * Observable, which unsubscribing does; a Promise runs on, its value ignored.
 */
export const runFunctionHook: FunctionExecutor = (hook, event): Observable<HookResult> =>
  new Observable<HookResult>((subscriber) => {
    const answer = classifyFor(hook);
    let result: HookResult;
    try {
      // Its own deep copy: what a hook writes into its event changes nothing a later hook or the
      // host sees. A copy per hook measured cheaper than freezing once on a one-hook chain
      // (docs/performance.md).
      const returned: unknown = hook.run(eventClone(event));
      if (isObservable(returned))
        return returned
          .pipe(
            take(1),
            map(answer),
            catchError((error: unknown) => of(exceptionFailure(error))),
          )
          .subscribe(subscriber);
      if (isPromiseLike(returned))
        return from(Promise.resolve(returned).then(answer).catch(exceptionFailure)).subscribe(subscriber);
      // The common case, a plain value, is answered in place, with no inner stream (row 4c).
      result = answer(returned);
    } catch (error) {
      // Thrown by the function, or by a hostile return value's `then` getter.
      result = exceptionFailure(error);
    }
    subscriber.next(result);
    subscriber.complete();
    return undefined;
  });
