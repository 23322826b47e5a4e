import {
  close,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  write,
  type Stats,
} from 'node:fs';
import type { AuditRecord } from '../audit/records.js';
import { describeThrown } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';
import { lineSink, type ChunkTarget, type SinkTally } from './audit-sink.js';

/** Where `run --audit` writes: records as JSON lines, never waiting, bounded in memory. */
export interface AuditFile {
  readonly write: (record: AuditRecord) => void;
  /**
   * Ends the file (stderr is left open) once every line is written, waiting at most
   * `AUDIT_END_MS`; says what was lost.
   */
  readonly close: () => Promise<AuditFileTally>;
}

/** Records not written (the buffer was full, a write failed, or the end gave up), and why. */
export type AuditFileTally = SinkTally;

/** Past this many characters waiting for the disk or stderr, records are dropped (and counted) rather than queued. */
export const AUDIT_BUFFER_BYTES = 16 * 1024 * 1024;

/** How long the end of a run waits for audit lines still waiting, as it waits for the OTLP collector. */
export const AUDIT_END_MS = 5000;

/**
 * Least time between two writes: at most ten a second, however fast events come. Each write wakes
 * the engine (a file's write is a hand-off to libuv's thread pool, and its end is another wake-up);
 * one per event cost more CPU than building and encoding the event's records (docs/performance.md,
 * row 11). Records wait at most this long; the end of a run does not wait for it.
 */
export const AUDIT_WRITE_INTERVAL_MS = 100;

const SEPARATORS = /[\u2028\u2029]/g;
const escapeSeparator = (char: string): string => (char === '\u2028' ? '\\u2028' : '\\u2029');

/** One record as a JSON line (no newline); never throws. U+2028/U+2029 escaped, as on stdout. */
export const encodeAuditRecord = (record: AuditRecord): string => {
  try {
    return JSON.stringify(record).replace(SEPARATORS, escapeSeparator);
  } catch (error) {
    return JSON.stringify({
      type: 'audit',
      record: record.record,
      time_ms: record.time_ms,
      message: `cosh-hooks: this record could not be written: ${describeThrown(error)}`,
    });
  }
};

/** The file's size, or undefined when it cannot be read. */
const sizeOf = (fd: number): number | undefined => {
  try {
    return fstatSync(fd).size;
  } catch {
    return undefined;
  }
};

/**
 * A file descriptor we opened for appending: each chunk written whole (a short write continues),
 * then closed. A chunk that fails part way (a full disk: a short write, then ENOSPC) is cut back
 * to its last whole line, so the file keeps JSON lines only and `done` counts the lines kept;
 * when another writer appended in between, nothing is cut and the next chunk starts on a new
 * line. `midLine`: the file does not end with a line break (a writer killed mid-record), so the
 * first chunk starts with one rather than gluing its first record to that half.
 */
export const fdTarget = (fd: number, midLine = false): ChunkTarget => {
  let startsMidLine = midLine;
  return {
    write: (chunk, done) => {
      const prefix = startsMidLine ? 1 : 0;
      const bytes = Buffer.from(startsMidLine ? `\n${chunk}` : chunk, 'utf8');
      startsMidLine = false;
      const start = sizeOf(fd);
      const failed = (error: unknown, offset: number) => {
        const whole = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
        const lines = whole <= prefix ? 0 : bytes.subarray(prefix, whole).filter((b) => b === 0x0a).length;
        if (offset === whole) return done(error, lines);
        if (start !== undefined && sizeOf(fd) === start + offset) {
          try {
            ftruncateSync(fd, start + whole);
            return done(error, lines);
          } catch {
            // Left as it is: the next chunk starts on a new line.
          }
        }
        startsMidLine = true;
        done(error, lines);
      };
      const from = (offset: number) =>
        write(fd, bytes, offset, bytes.length - offset, null, (error, written) => {
          if (error !== null) failed(error, offset);
          else if (offset + written < bytes.length) from(offset + written);
          else done();
        });
      from(0);
    },
    end: (done) => close(fd, () => done()),
  };
};

/** Whether the regular file open as `fd` (at `path`) is not empty and does not end with a line break. */
const endsMidLine = (path: string, fd: number): boolean => {
  const stats = fstatSync(fd);
  if (stats.size === 0) return false;
  let reader: number | undefined;
  try {
    reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const same = fstatSync(reader);
    if (same.ino !== stats.ino || same.dev !== stats.dev) return true;
    const last = Buffer.alloc(1);
    return readSync(reader, last, 0, 1, same.size - 1) === 1 && last[0] !== 0x0a;
  } catch {
    // Unreadable (a write-only file): a line break costs one blank line at most.
    return true;
  } finally {
    if (reader !== undefined) closeSync(reader);
  }
};

/** A stream we do not own (stderr): written to, never ended. */
export const streamTarget = (stream: NodeJS.WritableStream): ChunkTarget => {
  // A failed write (EPIPE) is also emitted as 'error': without a listener it would end the process.
  stream.on('error', () => undefined);
  return {
    write: (chunk, done) => {
      try {
        stream.write(chunk, (error) => done(error));
      } catch (error) {
        done(error);
      }
    },
    end: (done) => done(),
  };
};

const auditFile = (target: ChunkTarget): AuditFile => {
  const sink = lineSink(target, { bound: AUDIT_BUFFER_BYTES, minIntervalMs: AUDIT_WRITE_INTERVAL_MS });
  return {
    write: (record) => sink.write(`${encodeAuditRecord(record)}\n`),
    close: () => sink.close(AUDIT_END_MS),
  };
};

const WHAT_TO_GIVE = 'give the path of a file (created if missing) or - for stderr';

/** What a path that is not a regular file is, and what to give instead. */
const notAFile = (stats: Stats): string => {
  const kind = stats.isDirectory()
    ? 'a folder'
    : stats.isFIFO()
      ? 'a FIFO'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : 'a special file';
  return `is ${kind}, not a regular file: ${WHAT_TO_GIVE}`;
};

/**
 * Why `target` could not be opened, in words: what it is when it exists and is no file (a FIFO
 * without a reader fails with ENXIO, a folder with EISDIR), else the system's reason.
 */
const openProblem = (target: string, error: unknown): string => {
  let stats: Stats | undefined;
  try {
    stats = statSync(target);
  } catch {
    stats = undefined;
  }
  if (stats !== undefined && !stats.isFile()) return notAFile(stats);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return `its folder does not exist: create it, or ${WHAT_TO_GIVE}`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return `not writable (${String(code)}): ${WHAT_TO_GIVE} that you can write`;
  return `cannot open: ${describeThrown(error)}`;
};

/**
 * Opens `--audit FILE`: `-` is stderr; anything else is a regular file, created (mode 0600) or
 * appended to. A FIFO, a device or a folder is refused before anything runs: writing to it could
 * block the engine or go nowhere.
 */
export const openAuditFile = (target: string, stderr: NodeJS.WritableStream): Result<AuditFile, string> => {
  if (target === '-') return ok(auditFile(streamTarget(stderr)));
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO without a reader must fail at once, not hang the run.
    fd = openSync(
      target,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
      0o600,
    );
  } catch (error) {
    return err(`--audit ${target}: ${openProblem(target, error)}`);
  }
  let midLine: boolean;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      return err(`--audit ${target}: ${notAFile(stats)}`);
    }
    midLine = endsMidLine(target, fd);
  } catch (error) {
    closeSync(fd);
    return err(`--audit ${target}: ${describeThrown(error)}`);
  }
  return ok(auditFile(fdTarget(fd, midLine)));
};
