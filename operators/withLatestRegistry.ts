import {
  concatMap,
  connectable,
  defer,
  finalize,
  map,
  ReplaySubject,
  take,
  throwIfEmpty,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { Registry } from '../src/registry/hook.js';

/**
 * Pairs each value with the registry current when the value arrives, for hooks that are
 * reconfigured while events flow (`registry$`, docs/configuration.md, reload). Unlike
 * `withLatestFrom`, nothing is dropped: values that arrive before the first registry wait, in
 * order, and go out when it comes. A later registry applies to later values only, so a value
 * already paired (an event already running) keeps the registry it started with.
 *
 * ```
 * registry$: ---a------b-------
 * source:    -x---y------z--|
 * output:    ---X-Y------Z--|     X = [x, a], Y = [y, a], Z = [z, b]
 * ```
 *
 * Guarantees: `registry$` is subscribed before the source (a replaying or synchronous registry is
 * current for the first value) and unsubscribed with the output. It ending keeps its last
 * registry; an error of `registry$` after its first registry is ignored (the last one stays; the
 * engine never stops for its configuration source), before it the output errors, and so does a
 * `registry$` that completes without a registry while values wait. The values waiting for the first
 * registry are not bounded: give a `registry$` that has one at subscription (a `BehaviorSubject`,
 * or `startWith(initial)`), as `watchHooks` does.
 *
 * Example: `events$.pipe(withLatestRegistry(registry$), map(([event, registry]) => chainFor(registry, event)))`
 */
export const withLatestRegistry =
  <T>(registry$: Observable<Registry>): OperatorFunction<T, readonly [T, Registry]> =>
  (source) =>
    defer(() => {
      // One subscription to registry$ for the whole output, replaying its latest registry to each
      // value; an error after a registry is replayed after it, so `take(1)` never sees it.
      const latest = connectable(registry$, {
        connector: () => new ReplaySubject<Registry>(1),
        resetOnDisconnect: false,
      });
      const connection = latest.connect();
      return source.pipe(
        concatMap((value) =>
          latest.pipe(
            take(1),
            throwIfEmpty(() => new Error('registry$ completed without a registry')),
            map((registry) => [value, registry] as const),
          ),
        ),
        finalize(() => connection.unsubscribe()),
      );
    });
