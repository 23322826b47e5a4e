import { performance } from 'node:perf_hooks';
import { describeThrown } from '../events/untrusted.js';

/**
 * The writer behind `run --audit`, whatever the target: the lines of one event-loop turn become
 * one write, at most one write is in flight and writes start at least `minIntervalMs` apart, lines
 * wait in memory up to a bound and are dropped (and counted) past it, and the end of a run waits
 * for them a bounded time.
 */

/** Where batches of lines go, one at a time: a file we opened, or stderr. */
export interface ChunkTarget {
  /**
   * Writes `chunk` whole; `done` once it is written, with the error if it failed and then how many
   * of its lines are nevertheless in the target whole (default none). Never throws.
   */
  readonly write: (chunk: string, done: (error?: unknown, wholeLines?: number) => void) => void;
  /** Ends the target once every write is done (a file we opened is closed; stderr stays open). */
  readonly end: (done: () => void) => void;
}

/** What the writer could not write, said at the end of a run. */
export interface SinkTally {
  /** Lines not written: past the bound while the target was slow, a failed write, or still waiting at the end. */
  readonly dropped: number;
  /** The first write error (EPIPE, ENOSPC, …). */
  readonly error?: string;
  /**
   * Set when the end of the run stopped waiting after this many milliseconds: a write is still
   * pending (a stderr nobody reads, a disk that hangs) and will hold the process until it exits.
   */
  readonly gaveUpAfterMs?: number;
}

export interface LineSink {
  /** Queues one line (newline included) for the next write; never blocks, never throws. */
  readonly write: (line: string) => void;
  /** Writes what is queued and ends the target, waiting at most `withinMs`; says what was lost. */
  readonly close: (withinMs: number) => Promise<SinkTally>;
}

/** Runs `flush` once the current event-loop turn's work is done (`setImmediate`). */
export type EndOfTurn = (flush: () => void) => void;

export interface LineSinkOptions {
  /** Characters that may wait for the target (queued and in flight) before lines are dropped. */
  readonly bound: number;
  /**
   * Least time between the starts of two writes (default 0: one write per turn). Lines that come
   * sooner wait for the next write: while events come faster than this, many share one write.
   */
  readonly minIntervalMs?: number;
  readonly endOfTurn?: EndOfTurn;
  /** Timers and clock (milliseconds) for the interval and `close`'s bound; a test's fake ones. */
  readonly setTimer?: (run: () => void, ms: number) => () => void;
  readonly now?: () => number;
}

const realTimer = (run: () => void, ms: number): (() => void) => {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
};

export const lineSink = (target: ChunkTarget, options: LineSinkOptions): LineSink => {
  const endOfTurn = options.endOfTurn ?? setImmediate;
  const setTimer = options.setTimer ?? realTimer;
  const now = options.now ?? performance.now.bind(performance);
  const interval = options.minIntervalMs ?? 0;
  let lastWrite = Number.NEGATIVE_INFINITY;
  /** Cancels the timer of a flush waiting for the interval. */
  let cancelDue: (() => void) | undefined;
  /** Set by `close`: what is queued goes out at the end of the turn, without waiting for the interval. */
  let hurry = false;
  let queued = '';
  let queuedLines = 0;
  let flying = 0;
  let flyingLines = 0;
  let inFlight = false;
  let scheduled = false;
  let dropped = 0;
  let error: string | undefined;
  let closed: Promise<SinkTally> | undefined;
  /** Set at the end: by then everything is written, failed, or given up on. */
  let finished = false;
  let idle: (() => void) | undefined;

  const dropQueued = () => {
    dropped += queuedLines;
    queued = '';
    queuedLines = 0;
  };

  const written = (failure?: unknown, wholeLines = 0) => {
    if (finished) return;
    inFlight = false;
    if (failure !== undefined && failure !== null) {
      error ??= describeThrown(failure);
      dropped += flyingLines - Math.min(wholeLines, flyingLines);
      dropQueued();
    }
    flying = 0;
    flyingLines = 0;
    if (queuedLines > 0) schedule();
    else idle?.();
  };

  const flush = () => {
    scheduled = false;
    cancelDue = undefined;
    if (inFlight || queuedLines === 0 || finished) return;
    if (interval > 0) lastWrite = now();
    const chunk = queued;
    inFlight = true;
    flying = chunk.length;
    flyingLines = queuedLines;
    queued = '';
    queuedLines = 0;
    target.write(chunk, written);
  };

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    const wait = hurry || interval === 0 ? 0 : lastWrite + interval - now();
    if (wait <= 0) endOfTurn(flush);
    else cancelDue = setTimer(flush, wait);
  }

  return {
    write: (line) => {
      if (error !== undefined || finished || flying + queued.length + line.length > options.bound) {
        dropped += 1;
        return;
      }
      queued += line;
      queuedLines += 1;
      if (!inFlight) schedule();
    },
    close: (withinMs) => {
      closed ??= new Promise<SinkTally>((resolve) => {
        let settled = false;
        const settle = (gaveUp: boolean) => {
          if (settled) return;
          settled = true;
          resolve({
            dropped,
            ...(error !== undefined && { error }),
            ...(gaveUp && { gaveUpAfterMs: withinMs }),
          });
        };
        const cancel = setTimer(() => {
          if (settled) return;
          if (!finished) {
            finished = true;
            dropped += flyingLines;
            dropQueued();
          }
          settle(true);
        }, withinMs);
        idle = () => {
          if (finished) return;
          finished = true;
          target.end(() => {
            cancel();
            settle(false);
          });
        };
        hurry = true;
        if (cancelDue !== undefined) {
          cancelDue();
          cancelDue = undefined;
          scheduled = false;
        }
        if (!inFlight && queuedLines === 0) idle();
        else if (!inFlight) schedule();
      });
      return closed;
    },
  };
};
