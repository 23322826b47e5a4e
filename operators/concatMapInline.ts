import {
  from,
  isObservable,
  Observable,
  type ObservableInput,
  type OperatorFunction,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { DirectObserver } from '../src/chain/direct-observer.js';

/** What every generator object inherits from (%GeneratorPrototype%). */
const GENERATOR_PROTOTYPE: object = Object.getPrototypeOf(Object.getPrototypeOf((function* () {})()));

/**
 * A generator object (what a `function*` returns), and not also an Observable of some kind. A
 * prototype check: `Object.prototype.toString` measured 3% of an audited event's time.
 */
const isGenerator = (answer: unknown): answer is Generator<unknown> =>
  typeof answer === 'object' &&
  answer !== null &&
  Object.prototype.isPrototypeOf.call(GENERATOR_PROTOTYPE, answer) &&
  !isObservable(answer);

/**
 * `concatMap`, with the common case made cheap: when `project` answers with an array (or a
 * generator) and nothing is running or waiting, its items are emitted in place, with no inner
 * subscription. Any other
 * answer (an Observable, a Promise, an iterable) is subscribed as `concatMap` subscribes it, and
 * values arriving meanwhile wait their turn in order. So the output is exactly `concatMap`'s:
 * same values, same frames, errors of the source or of an inner stream passed on, `project`
 * throwing errors the output, unsubscribing cancels the source and the running inner stream.
 *
 * The engine answers most events (those without hooks) with an array: an inner subscription per
 * event was the largest part of the pipeline's cost on that path (docs/performance.md, row 3a).
 *
 * ```
 * input:  --a--b--c------|      a → [A], b → ----B|, c → [C]
 * output: --A------BC----|      C waited for b's stream, then was emitted in place
 * ```
 *
 * Example: `events$.pipe(concatMapInline((event) => (hasHooks(event) ? run$(event) : [answer(event)])))`
 */
export const concatMapInline =
  <T, R>(project: (value: T, index: number) => ObservableInput<R>): OperatorFunction<T, R> =>
  (source) =>
    new Observable<R>((subscriber: Subscriber<R>) => {
      const waiting: T[] = [];
      let index = 0;
      let running: Subscription | undefined;
      let sourceDone = false;
      let draining = false;

      /** Projects `value`; true when it left an inner stream running. */
      const start = (value: T): boolean => {
        const answer = project(value, index++);
        if (Array.isArray(answer)) {
          for (let i = 0; i < answer.length && !subscriber.closed; i++) subscriber.next(answer[i] as R);
          return false;
        }
        if (isGenerator(answer)) {
          // As `from(generator)` iterates it: item by item, stopped (`return`) if the output closed.
          for (const item of answer) {
            if (subscriber.closed) break;
            subscriber.next(item as R);
          }
          return false;
        }
        // A DirectObserver is the subscription itself: closed once the stream ended while subscribing.
        const inner = from(answer).subscribe(
          new DirectObserver<R>({
            next: (item) => subscriber.next(item),
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              if (running !== undefined) {
                running = undefined;
                drain();
              }
            },
          }),
        );
        if (inner.closed) return false;
        running = inner;
        return true;
      };

      /** Runs the waiting values in order until one leaves a stream running; completes at the end. */
      const drain = (): void => {
        if (draining) return;
        draining = true;
        try {
          while (running === undefined && waiting.length > 0 && !subscriber.closed) {
            if (start(waiting.shift() as T)) break;
          }
        } catch (error) {
          subscriber.error(error);
        } finally {
          draining = false;
        }
        if (running === undefined && waiting.length === 0 && sourceDone) subscriber.complete();
      };

      // The source's subscriber is a DirectObserver, so a synchronous source (`from(array)`) stops as
      // soon as the output is unsubscribed, as it does under RxJS's own operators.
      const fromSource = new DirectObserver<T>({
        next: (value) => {
          waiting.push(value);
          drain();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          drain();
        },
      });
      subscriber.add(fromSource);
      source.subscribe(fromSource);
      return () => {
        waiting.length = 0;
        running?.unsubscribe();
        running = undefined;
      };
    });
