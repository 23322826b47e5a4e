import { Observable, of, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DirectObserver } from '../../../src/chain/direct-observer.js';

const recorder = () => {
  const seen: string[] = [];
  const observer = new DirectObserver<number>({
    next: (n) => seen.push(`n${n}`),
    error: (e) => seen.push(`e:${String(e)}`),
    complete: () => seen.push('c'),
  });
  return { seen, observer };
};

describe('DirectObserver', () => {
  it('is used by RxJS as the subscriber itself: subscribe returns it', () => {
    const { observer } = recorder();
    expect(of(1).subscribe(observer)).toBe(observer);
  });

  it('delivers nothing after complete or error, and runs its source finalizers right after either', () => {
    let finalized = 0;
    const source = new Observable<number>((subscriber) => {
      subscriber.next(1);
      subscriber.complete();
      subscriber.next(2);
      subscriber.error('late');
      return () => (finalized += 1);
    });
    const { seen, observer } = recorder();
    source.subscribe(observer);
    expect(seen).toEqual(['n1', 'c']);
    expect(finalized).toBe(1);
    expect(observer.closed).toBe(true);
  });

  it('unsubscribed, it is closed to a synchronous source and to a Subject', () => {
    const subject = new Subject<number>();
    const { seen, observer } = recorder();
    subject.subscribe(observer);
    subject.next(1);
    observer.unsubscribe();
    subject.next(2);
    subject.complete();
    expect(seen).toEqual(['n1']);
  });

  it('an error reaches the handler once and then finalizes', () => {
    let finalized = 0;
    const { seen, observer } = recorder();
    new Observable<number>((subscriber) => {
      subscriber.error('boom');
      subscriber.error('again');
      return () => (finalized += 1);
    }).subscribe(observer);
    expect(seen).toEqual(['e:boom']);
    expect(finalized).toBe(1);
  });
});
