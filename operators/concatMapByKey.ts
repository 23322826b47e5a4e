import {
  concatMap,
  defer,
  filter,
  finalize,
  groupBy,
  mergeMap,
  Subject,
  tap,
  type ObservableInput,
  type OperatorFunction,
} from 'rxjs';

/**
 * Like `concatMap`, but serialized per key only: items with the same key are projected one after
 * another, in order; items with different keys may overlap. A key's group is closed as soon as it
 * has nothing queued or running, so an endless stream of short-lived keys (sessions) holds no
 * memory for finished ones.
 *
 * ```
 * input:   -a-b-c-------|     a = a1, b = b1, c = a2 (key = first letter: a1 and a2 share one)
 * a1:       ----A|
 * b1:         ----B|
 * a2:            --C|         (subscribed at 6, when a1 is done, not at 5)
 * output:  -----A-BC----|
 * ```
 *
 * (This is the first case of its spec, test/unit/operators/concatMapByKey.test.ts.)
 *
 * Example: `events$.pipe(concatMapByKey((e) => e.session_id, runEvent))`
 */
export const concatMapByKey =
  <T, R>(keyOf: (item: T) => string, project: (item: T) => ObservableInput<R>): OperatorFunction<T, R> =>
  (source) =>
    defer(() => {
      const pending = new Map<string, number>();
      const idle = new Subject<string>();
      const done = (key: string) => {
        const left = (pending.get(key) ?? 1) - 1;
        if (left > 0) pending.set(key, left);
        else {
          pending.delete(key);
          idle.next(key);
        }
      };
      return source.pipe(
        tap((item) => pending.set(keyOf(item), (pending.get(keyOf(item)) ?? 0) + 1)),
        groupBy(keyOf, { duration: (group) => idle.pipe(filter((key) => key === group.key)) }),
        mergeMap((group) =>
          group.pipe(concatMap((item) => defer(() => project(item)).pipe(finalize(() => done(group.key))))),
        ),
      );
    });
