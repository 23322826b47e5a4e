import {
  defer,
  finalize,
  from,
  groupBy,
  mergeMap,
  Subject,
  tap,
  type ObservableInput,
  type OperatorFunction,
} from 'rxjs';
import { concatMapInline } from './concatMapInline.js';

/**
 * Idle keys whose group stays open: a key that comes back soon (a session's next event) reuses its
 * group instead of building one per item; when this many are idle, they are closed, so an endless
 * stream of short-lived keys holds memory for this many at most.
 */
const IDLE_GROUPS = 1024;

/**
 * Like `concatMap`, but serialized per key only: items with the same key are projected one after
 * another, in order; items with different keys may overlap. Each key's items go through
 * `concatMapInline`, so an answer that is an array is emitted in place. A key whose group has nothing
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
      const run = (key: string, item: T): ObservableInput<R> => {
        const answer = project(item);
        if (!Array.isArray(answer)) return from(answer).pipe(finalize(() => done(key)));
        // Emitted in place by concatMapInline: the key is done with it already.
        done(key);
        return answer;
      };
      return source.pipe(
        tap((item) => {
          const key = keyOf(item);
          const group = groups.get(key);
          if (group === undefined) groups.set(key, { pending: 1, close: new Subject<void>() });
          else if (group.pending++ === 0) idle.delete(key);
        }),
        groupBy(keyOf, { duration: (group) => groups.get(group.key)!.close }),
        mergeMap((group) => group.pipe(concatMapInline((item) => run(group.key, item)))),
      );
    });
