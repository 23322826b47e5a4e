import { Subject, type Observable } from 'rxjs';
import type { AuditRecord } from '../audit/records.js';
import type { JsonLine } from '../events/input.js';
import { encodeLine, type OutputLine } from '../output/lines.js';
import { hookPipeline, type PipelineDeps, type PipelineOptions } from '../pipeline/pipeline.js';
import type { Registry } from '../registry/hook.js';
import { LineSplitter } from './line-splitter.js';

/**
 * How far reading may run ahead of the answers before stdin is paused. Events are small, so the
 * count bounds the usual case; the byte budget bounds a stream of huge lines.
 */
export interface Backpressure {
  readonly highEvents: number;
  readonly lowEvents: number;
  readonly highBytes: number;
  readonly lowBytes: number;
}

export const DEFAULT_BACKPRESSURE: Backpressure = {
  highEvents: 256,
  lowEvents: 64,
  highBytes: 64 * 1024 * 1024,
  lowBytes: 16 * 1024 * 1024,
};

export interface ServeOptions extends PipelineOptions {
  readonly maxLineBytes: number;
  readonly backpressure?: Backpressure;
  /** Given every audit record (docs/audit.md); must not block. Without it no record is built. */
  readonly onAudit?: (record: AuditRecord) => void;
  /** Shown every output line as it is written (the CLI's warnings about answers); must not block. */
  readonly onLine?: (line: OutputLine) => void;
}

/** The streams `serve` talks to: in production, process.stdin, process.stdout and process.stderr. */
export interface ServeIo {
  readonly stdin: NodeJS.ReadableStream & { pause(): unknown; resume(): unknown; destroy(): unknown };
  readonly stdout: NodeJS.WritableStream & { once(event: 'drain', listener: () => void): unknown };
  /** Diagnostics of the loop itself (unreadable stdin, an internal error); never answers. */
  readonly stderr: NodeJS.WritableStream;
}

/** A running `run`: settles with the exit status once the input ended and every answer is written. */
export interface Serving {
  readonly done: Promise<number>;
  /** Stops reading and cancels running hooks (killing their process groups); `done` settles with `status`. */
  stop(status: number): void;
}

/**
 * The `run` loop: JSONL from stdin through the engine, each output line written as soon as it
 * exists. Every non-blank input line gets exactly one answer (a decision or a `hook_error`), so
 * "lines read minus answers written" is the backlog: above the high-water mark stdin is paused,
 * and it resumes below the low one, which keeps memory flat on an endless stream. A full stdout
 * pauses stdin too, until it drains.
 */
export const serve = (
  registry: Registry | Observable<Registry>,
  deps: PipelineDeps,
  io: ServeIo,
  options: ServeOptions,
): Serving => {
  const limits = options.backpressure ?? DEFAULT_BACKPRESSURE;
  const splitter = new LineSplitter(options.maxLineBytes);
  const input = new Subject<JsonLine>();
  // Sizes of the unanswered lines, oldest first. With per-session concurrency answers may come
  // out of order, so taking the oldest size is an estimate, exact again whenever the backlog empties.
  const backlog: number[] = [];
  let backlogBytes = 0;
  let reading = true;
  let stdoutFull = false;
  let settled = false;
  let settle: (status: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    settle = (status) => {
      if (settled) return;
      settled = true;
      resolve(status);
    };
  });

  const pauseIfBehind = () => {
    if (reading && (stdoutFull || backlog.length > limits.highEvents || backlogBytes > limits.highBytes)) {
      reading = false;
      io.stdin.pause();
    }
  };
  const resumeIfCaughtUp = () => {
    if (
      !reading &&
      !settled &&
      !stdoutFull &&
      backlog.length <= limits.lowEvents &&
      backlogBytes <= limits.lowBytes
    ) {
      reading = true;
      io.stdin.resume();
    }
  };

  const write = (line: OutputLine) => {
    options.onLine?.(line);
    if (!io.stdout.write(`${encodeLine(line)}\n`) && !stdoutFull) {
      stdoutFull = true;
      io.stdout.once('drain', () => {
        stdoutFull = false;
        resumeIfCaughtUp();
      });
    }
    if (line.type !== 'stream_event') backlogBytes -= backlog.shift() ?? 0;
    pauseIfBehind();
    resumeIfCaughtUp();
  };

  // Every answer is written before the run counts as done: the empty write's callback comes after
  // the earlier writes, with their error if one failed (a full device, a closed reader).
  const flushed = () => {
    if (settled) return;
    io.stdout.write('', (error) => settle(error === null || error === undefined ? 0 : 1));
  };

  // Told before a stop, so that observers cut short still leave their audit records.
  const interrupt = new Subject<void>();
  const streams = hookPipeline(registry, deps, { ...options, interrupt$: interrupt })(input);
  // Subscribed before the outputs, so that records are built from the first event on.
  const audit = options.onAudit === undefined ? undefined : streams.audit$.subscribe(options.onAudit);
  const subscription = streams.output$.subscribe({
    next: write,
    complete: flushed,
    // The engine turns every hook and input problem into a value; an error here is a bug.
    error: (error: unknown) => {
      io.stderr.write(`cosh-hooks: internal error: ${String(error)}\n`);
      settle(1);
    },
  });

  const stop = (status: number) => {
    if (settled) return;
    // Reading stops for good: an open stdin must not keep the process alive after the answer.
    io.stdin.destroy();
    interrupt.next();
    subscription.unsubscribe();
    audit?.unsubscribe();
    settle(status);
  };

  const feed = (lines: readonly JsonLine[]) => {
    for (const line of lines) {
      // Counted before it is sent: an invalid line is answered synchronously, inside `next`.
      const size = line.text.length;
      backlog.push(size);
      backlogBytes += size;
      input.next(line);
    }
  };

  io.stdin.on('data', (chunk: Buffer | string) => {
    if (settled) return;
    feed(splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    pauseIfBehind();
  });
  io.stdin.on('end', () => {
    if (settled) return;
    feed(splitter.end());
    input.complete();
  });
  // A refused write (EPIPE, ENOSPC) means answers are lost: nobody can use the rest, so running
  // hooks are stopped and the run ends with 1. Reporting it is the caller's (it owns stderr's words).
  io.stdout.on('error', () => stop(1));
  io.stdin.on('error', (error: Error) => {
    io.stderr.write(`cosh-hooks: cannot read stdin: ${error.message}\n`);
    stop(1);
  });

  return { done, stop };
};
