/*
 * REFERENCE COPY (issue 37, stage 0) of `src/chain/direct-observer.ts` on main @ 0e9ce46: verbatim but for
 * the import paths. The oracle the composed engine is checked
 * against, frame for frame, by test/unit/reference/*.test.ts. Never edit it to make a test pass.
 */
import { Subscription, type Observer } from 'rxjs';

/**
 * An Observer that is its own Subscription, for the hand-written streams (docs/performance.md,
 * "Hand-written hot paths"): RxJS takes it as the subscriber as it is (`isSubscriber`), where a
 * plain observer object is wrapped in a `SafeSubscriber` and a `ConsumerObserver` per subscribe.
 * It keeps RxJS's `Subscriber` contract: nothing is delivered after an error or a completion, the
 * finalizers its source added run right after either (and when it is unsubscribed), and a
 * synchronous source sees it `closed` once unsubscribed. Unlike a `SafeSubscriber` it does not
 * catch what its handlers throw: the streams that use it catch inside their handlers.
 */
export class DirectObserver<T> extends Subscription implements Observer<T> {
  private stopped = false;

  constructor(private readonly handlers: Observer<T>) {
    super();
  }

  next(value: T): void {
    if (!this.stopped) this.handlers.next(value);
  }

  error(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.handlers.error(error);
    } finally {
      this.unsubscribe();
    }
  }

  complete(): void {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.handlers.complete();
    } finally {
      this.unsubscribe();
    }
  }

  override unsubscribe(): void {
    this.stopped = true;
    super.unsubscribe();
  }
}
