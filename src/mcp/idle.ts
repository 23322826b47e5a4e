import type { SchedulerLike, Subscription } from 'rxjs';

/** A deadline restarted by activity: `onIdle` once `ms` pass with nothing `busy`. */
export class IdleDeadline {
  private timer: Subscription | undefined;
  private stopped = false;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly ms: number | undefined,
    private readonly busy: () => boolean,
    private readonly onIdle: (ms: number) => void,
  ) {}

  /** Activity: the deadline starts again (nothing happens without `ms`). */
  touch(): void {
    const { ms } = this;
    if (ms === undefined || this.stopped) return;
    this.timer?.unsubscribe();
    this.timer = this.scheduler.schedule(() => (this.busy() ? this.touch() : this.onIdle(ms)), ms);
  }

  /** For good: touching no longer starts it. */
  stop(): void {
    this.stopped = true;
    this.timer?.unsubscribe();
  }
}
