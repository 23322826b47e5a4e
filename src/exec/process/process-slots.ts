/** Back-off after the system refused a process or a pipe while none of ours was running. */
const FIRST_BACKOFF_MS = 10;
const MAX_BACKOFF_MS = 1000;

/** A hook process waiting for a slot; `cancel` removes it from the queue. */
type Start = () => void;

/**
 * The bound on concurrent hook processes of one executor (spec §4.2), and the wait when the system
 * refuses a process or a pipe (EMFILE, ENFILE, EAGAIN).
 *
 * - `take(start)` calls `start` at once when a slot is free and nobody queues before it, else
 *   later, in arrival order; the returned function cancels a wait that has not started.
 * - `give()` returns a slot: the process ended and its pipes are closed. It lifts a refusal pause.
 * - `refused(start)` returns the slot of a process the system would not start and queues `start`
 *   first in line; nothing starts until a hook process ends or a back-off passes (10 ms, doubling
 *   up to 1 s while refusals go on; the back-off alone matters when none of ours is left to end).
 *   Retrying sooner would only be refused again.
 *
 * Starts run from a loop, never recursively: a start that fails at once and gives its slot back
 * cannot grow the stack, however long the queue.
 */
export class ProcessSlots {
  private running = 0;
  /** Refused starts, tried again before anything new. Sets iterate in insertion order. */
  private readonly retrying = new Set<Start>();
  private readonly waiting = new Set<Start>();
  private paused = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private timer: NodeJS.Timeout | undefined;
  private draining = false;

  constructor(readonly max: number) {}

  /** Processes started and not yet given back. */
  get active(): number {
    return this.running;
  }

  take(start: Start): () => void {
    if (!this.paused && this.running < this.max && this.retrying.size === 0 && this.waiting.size === 0) {
      this.running += 1;
      start();
      return noop;
    }
    // A fresh wrapper per wait, so that cancelling one wait never removes another.
    const entry: Start = () => start();
    this.waiting.add(entry);
    return () => this.cancel(entry);
  }

  give(): void {
    this.running -= 1;
    this.resume();
  }

  refused(start: Start): () => void {
    this.running -= 1;
    const entry: Start = () => start();
    this.retrying.add(entry);
    this.paused = true;
    this.armBackoff();
    return () => this.cancel(entry);
  }

  private cancel(entry: Start): void {
    const removed = this.waiting.delete(entry) || this.retrying.delete(entry);
    // Nobody left to retry: drop the pause, so the next hook does not wait for a back-off.
    if (removed && this.retrying.size === 0 && this.waiting.size === 0) this.resume();
  }

  private armBackoff(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      this.paused = false;
      this.drain();
    }, this.backoffMs);
  }

  private resume(): void {
    if (this.paused) {
      this.paused = false;
      this.backoffMs = FIRST_BACKOFF_MS;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (!this.paused && this.running < this.max) {
        const next = first(this.retrying) ?? first(this.waiting);
        if (next === undefined) break;
        this.retrying.delete(next);
        this.waiting.delete(next);
        this.running += 1;
        next();
      }
    } finally {
      this.draining = false;
    }
  }
}

const noop = (): void => undefined;

const first = <T>(set: Set<T>): T | undefined => {
  for (const item of set) return item;
  return undefined;
};
