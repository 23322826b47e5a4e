import {
  from,
  of,
  Subject,
  toArray,
  type Observable,
  type ObservableInput,
  type OperatorFunction,
} from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { concatMapByKey } from '../../../operators/index.js';
import { createTestScheduler } from '../../../src/testing/index.js';

describe('concatMapByKey', () => {
  it('serializes per key and overlaps across keys', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = {
        a1: cold('----A|'),
        b1: cold('----B|'),
        a2: cold('--C|'),
      };
      const input = hot('-a-b-c-------|', { a: 'a1', b: 'b1', c: 'a2' });
      const out = input.pipe(
        concatMapByKey(
          (item) => item[0]!,
          (item) => inner[item as keyof typeof inner],
        ),
      );
      expectObservable(out).toBe('-----A-BC----|');
      expectSubscriptions(inner.a1.subscriptions).toBe('-^----!');
      expectSubscriptions(inner.b1.subscriptions).toBe('---^----!');
      expectSubscriptions(inner.a2.subscriptions).toBe('------^--!');
    });
  });

  it('a key that went idle starts a fresh group, still after its previous work', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const work = cold('--x|');
      const input = hot('a-------a-----|');
      expectObservable(
        input.pipe(
          concatMapByKey(
            (k) => k,
            () => work,
          ),
        ),
      ).toBe('--x-------x---|');
    });
  });

  it('more idle keys than it keeps groups for: each key still runs its items in order, after its earlier ones', () => {
    // 3,000 keys, each seen twice, far apart: the first groups are closed as idle ones pile up
    // past the bound, and their keys' second items start fresh groups.
    const items = [0, 1].flatMap((round) => Array.from({ length: 3000 }, (_, key) => `${key}:${round}`));
    let out: string[] = [];
    from(items)
      .pipe(
        concatMapByKey(
          (item) => item.split(':')[0]!,
          (item) => [item],
        ),
        toArray(),
      )
      .subscribe((all) => (out = all));
    expect(out).toEqual(items);
    // Key a is busy while 2,000 other keys come and go, each answered at once (so idle groups are
    // closed on the way); a's next item still waits for its first.
    const source = new Subject<string>();
    const first = new Subject<string>();
    const seen: string[] = [];
    source
      .pipe(
        concatMapByKey(
          (item) => item.split(':')[0]!,
          (item) => (item === 'a:1' ? first : [item]),
        ),
      )
      .subscribe((item) => seen.push(item));
    const others = Array.from({ length: 2000 }, (_, n) => `k${n}:1`);
    source.next('a:1');
    for (const item of others) source.next(item);
    source.next('a:2');
    expect(seen).toEqual(others);
    first.next('A');
    first.complete();
    expect(seen).toEqual([...others, 'A', 'a:2']);
  });

  it('unsubscribing tears down every running inner stream and unsubscribes the source', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('------a|');
      const b = cold('------b|');
      const input = hot('ab----|', { a: 'a', b: 'b' });
      const out = input.pipe(
        concatMapByKey(
          (k) => k,
          (k) => (k === 'a' ? a : b),
        ),
      );
      expectObservable(out, '^--!').toBe('---');
      expectSubscriptions(input.subscriptions).toBe('^--!');
      expectSubscriptions(a.subscriptions).toBe('^--!');
      expectSubscriptions(b.subscriptions).toBe('-^-!');
    });
  });

  it('stays subscribed to the source until it completes, then completes when the last key is done', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const work = { a: cold('---A|'), b: cold('--B|') };
      const e1 = hot('  -a-b-|', { a: 'a', b: 'b' });
      const e1subs = '  ^----!';
      const expected = '----AB|';
      const out = e1.pipe(
        concatMapByKey(
          (key) => key,
          (key) => work[key as keyof typeof work],
        ),
      );
      expectObservable(out).toBe(expected);
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(work.a.subscriptions).toBe('-^---!');
      expectSubscriptions(work.b.subscriptions).toBe('---^--!');
    });
  });

  it('passes on an error of the source (#) and tears down the running inner streams', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('-----A|');
      const e1 = hot('  -a-#', { a: 'a' }, new Error('input broke'));
      const e1subs = '  ^--!';
      const expected = '---#';
      const out = e1.pipe(
        concatMapByKey(
          (key) => key,
          () => a,
        ),
      );
      expectObservable(out).toBe(expected, undefined, new Error('input broke'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
    });
  });

  it('passes on an error of one key’s projection and unsubscribes the source and the other keys', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const work = { a: cold('--#', undefined, new Error('project failed')), b: cold('------B|') };
      const e1 = hot('  ab-----|', { a: 'a', b: 'b' });
      const e1subs = '  ^-!     ';
      const expected = '--#     ';
      const out = e1.pipe(
        concatMapByKey(
          (key) => key,
          (key) => work[key as keyof typeof work],
        ),
      );
      expectObservable(out).toBe(expected, undefined, new Error('project failed'));
      expectSubscriptions(e1.subscriptions).toBe(e1subs);
      expectSubscriptions(work.b.subscriptions).toBe('-^!');
    });
  });

  it('types: the item type and the projected type flow through', () => {
    const keyOf = (event: { readonly session_id: string }) => event.session_id;
    const project = (event: { readonly session_id: string }): ObservableInput<number> => [
      event.session_id.length,
    ];
    expectTypeOf(concatMapByKey(keyOf, project)).toEqualTypeOf<
      OperatorFunction<{ readonly session_id: string }, number>
    >();
    expectTypeOf(
      of('a', 'b').pipe(
        concatMapByKey(
          (key) => key,
          (key) => Promise.resolve({ key }),
        ),
      ),
    ).toEqualTypeOf<Observable<{ key: string }>>();
    const numberKey = (n: number) => n;
    // @ts-expect-error -- the key must be a string
    concatMapByKey(numberKey, (n: number) => [n]);
  });
});
