import {
  concatMap,
  defer,
  finalize,
  from,
  groupBy,
  mergeMap,
  queueScheduler,
  Subject,
  subscribeOn,
  tap,
  type Observable,
  type ObservableInput,
  type OperatorFunction,
} from 'rxjs';

/**
 * A `concatMap` projection whose inner streams start from a loop, not by recursion. RxJS 7's
 * `concatMap` subscribes the next buffered inner inside the teardown of the one that completed: with
 * thousands of values waiting behind one slow answer, answers that complete while subscribing
 * overflow the stack, and the stream stops with no error and no completion. Subscribed on the
 * `queueScheduler`, each such inner starts after the previous one returned; answers still come in
 * the same frame.
 */
export const trampolined =
  <T, R>(project: (value: T) => ObservableInput<R>) =>
  (value: T): Observable<R> =>
    defer(() => project(value)).pipe(subscribeOn(queueScheduler));
/**
 * Idle keys whose group stays open: a key that comes back soon (a session's next event) reuses its
 * group instead of building one per item; when this many are idle, they are closed, so an endless
 * stream of short-lived keys holds memory for this many at most.
 */
const IDLE_GROUPS = 1024;

/**
 * Like `concatMap`, but serialized per key only: items with the same key are projected one after
 * another, in order; items with different keys may overlap. Each key's items go through
 * `concatMap` with `trampolined` inners, so any number of them may wait. A key whose group has nothing
 * queued or running keeps it for its next item; when 1,024 keys are idle their groups are closed, so
 * an endless stream of short-lived keys (sessions) holds memory for that many at most.
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
      /** Per key with a group: its items queued or running, and what closes the group. */
      const groups = new Map<string, { pending: number; readonly close: Subject<void> }>();
      /** Keys whose group is open with nothing queued or running, the longest idle first. */
      const idle = new Set<string>();
      const done = (key: string) => {
        const group = groups.get(key);
        if (group === undefined || --group.pending > 0) return;
        // Closed all at once, not one by one: the others, never this key, which may still be
        // emitting the answer that made it idle.
        if (idle.size >= IDLE_GROUPS) {
          for (const other of idle) groups.get(other)?.close.next();
          for (const other of idle) groups.delete(other);
          idle.clear();
        }
        idle.add(key);
      };
      const run = (key: string, item: T): Observable<R> =>
        from(project(item)).pipe(finalize(() => done(key)));
      return source.pipe(
        tap((item) => {
          const key = keyOf(item);
          const group = groups.get(key);
          if (group === undefined) groups.set(key, { pending: 1, close: new Subject<void>() });
          else if (group.pending++ === 0) idle.delete(key);
        }),
        groupBy(keyOf, { duration: (group) => groups.get(group.key)!.close }),
        mergeMap((group) => group.pipe(concatMap(trampolined((item: T) => run(group.key, item))))),
      );
    });
