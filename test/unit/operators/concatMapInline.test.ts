import {
  concatMap,
  from,
  map,
  Observable,
  of,
  range,
  Subject,
  take,
  type ObservableInput,
  type OperatorFunction,
} from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { concatMapInline } from '../../../operators/concatMapInline.js';
import { createTestScheduler } from '../../../src/testing/index.js';

describe('concatMapInline', () => {
  it('emits an array answer in place, and waits behind a running stream like concatMap (its doc marble)', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const b = cold('----B|');
      const input = hot('--a--b--c------|');
      const project = (value: string): ObservableInput<string> => (value === 'b' ? b : [value.toUpperCase()]);
      expectObservable(input.pipe(concatMapInline(project))).toBe('--A------BC----|');
      expectObservable(input.pipe(concatMap(project))).toBe('--A------BC----|');
      expectSubscriptions(b.subscriptions).toBe(['-----^----!', '-----^----!']);
    });
  });

  it('gives exactly the notifications concatMap gives for mixed answers: arrays, empty ones, cold and sync streams', () => {
    const outputs: Record<'inline' | 'concatMap', unknown[]> = { inline: [], concatMap: [] };
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot }) => {
      const input = hot('-a-b-c-d-e-f-g-h---|');
      const project = (value: string, index: number): ObservableInput<string> => {
        switch (value) {
          case 'a':
          case 'e':
            return [value, `${index}`];
          case 'b':
            return [];
          case 'c':
            return cold('---x-y|');
          case 'd':
            return of('D');
          case 'g':
            return cold('|');
          default:
            return cold('-F|');
        }
      };
      const record = (into: unknown[]) => ({
        next: (value: string) => into.push([scheduler.now(), 'next', value]),
        complete: () => into.push([scheduler.now(), 'complete']),
      });
      input.pipe(concatMapInline(project)).subscribe(record(outputs.inline));
      input.pipe(concatMap(project)).subscribe(record(outputs.concatMap));
    });
    expect(outputs.inline).toEqual(outputs.concatMap);
    expect(outputs.inline).toHaveLength(10);
  });

  it('passes on an error of the source (#) and cancels the running inner stream', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = cold('-----x|');
      const input = hot('-a--#');
      expectObservable(input.pipe(concatMapInline(() => inner))).toBe('----#');
      expectSubscriptions(inner.subscriptions).toBe('-^--!');
    });
  });

  it('passes on an error of an inner stream, and of project, unsubscribing the source', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const input = hot('-a-b-c-|');
      const failing = cold('-#');
      expectObservable(input.pipe(concatMapInline((v) => (v === 'b' ? failing : [v])))).toBe('-a--#');
      expectObservable(
        input.pipe(
          concatMapInline((v) => {
            if (v === 'c') throw new Error('project broke');
            return [v];
          }),
        ),
      ).toBe('-a-b-#', undefined, new Error('project broke'));
      expectSubscriptions(input.subscriptions).toBe(['^---!', '^----!']);
    });
  });

  it('an explicit unsubscribe reaches the source and the running inner stream', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = cold('------x|');
      const input = hot('-a-b--|');
      expectObservable(input.pipe(concatMapInline(() => inner)), '^---!').toBe('-----');
      expectSubscriptions(input.subscriptions).toBe('^---!');
      expectSubscriptions(inner.subscriptions).toBe('-^--!');
    });
  });

  it('completes only when the source completed and the last inner stream did', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const input = hot('-a|');
      expectObservable(input.pipe(concatMapInline(() => cold('---x|')))).toBe('----x|');
      expectObservable(input.pipe(concatMapInline((v) => [v]))).toBe('-a|');
    });
  });

  it('stops a synchronous source when the output is unsubscribed mid-way (an endless one too)', () => {
    let pulled = 0;
    const endless = new Observable<number>((subscriber) => {
      for (let n = 0; !subscriber.closed; n++) {
        pulled += 1;
        subscriber.next(n);
      }
    });
    const seen: number[] = [];
    endless
      .pipe(
        concatMapInline((n) => [n, n]),
        take(3),
      )
      .subscribe((n) => seen.push(n));
    expect(seen).toEqual([0, 0, 1]);
    expect(pulled).toBe(2);
  });

  it('keeps order when the output feeds the source again while an answer is being emitted', () => {
    const input = new Subject<number>();
    const seen: string[] = [];
    input.pipe(concatMapInline((n) => [`${n}a`, `${n}b`])).subscribe((line) => {
      seen.push(line);
      if (line === '1a') input.next(2);
    });
    input.next(1);
    input.complete();
    expect(seen).toEqual(['1a', '1b', '2a', '2b']);
  });

  it('runs 100,000 array answers from a synchronous source without growing the stack', () => {
    let count = 0;
    range(0, 100_000)
      .pipe(concatMapInline((n) => (n % 2 === 0 ? [n] : from([n]))))
      .subscribe(() => (count += 1));
    expect(count).toBe(100_000);
  });

  it('iterates a generator answer in place, as from(generator) would: its code after the last item runs before the next value', () => {
    const order: string[] = [];
    function* answer(n: number) {
      yield `${n}`;
      order.push(`after ${n}`);
    }
    const run = (operator: OperatorFunction<number, string>) => {
      order.length = 0;
      of(1, 2)
        .pipe(operator)
        .subscribe({ next: (line) => order.push(line), complete: () => order.push('|') });
      return [...order];
    };
    expect(run(concatMapInline(answer))).toEqual(['1', 'after 1', '2', 'after 2', '|']);
    expect(run(concatMapInline(answer))).toEqual(run(concatMap(answer)));
  });

  it('stops a generator answer when the output is unsubscribed mid-way: the rest never runs', () => {
    let finished = false;
    function* answer() {
      try {
        yield 'a';
        yield 'b';
      } finally {
        finished = true;
      }
    }
    const seen: string[] = [];
    of(1)
      .pipe(concatMapInline(answer), take(1))
      .subscribe((line) => seen.push(line));
    expect(seen).toEqual(['a']);
    expect(finished).toBe(true);
  });

  it('types: T in, R out, like concatMap', () => {
    expectTypeOf(concatMapInline((n: number) => [String(n)])).toEqualTypeOf<
      OperatorFunction<number, string>
    >();
    expectTypeOf(of(1).pipe(concatMapInline((n) => of(n).pipe(map(String))))).toEqualTypeOf<
      Observable<string>
    >();
  });
});
