import {
  closeSync,
  constants,
  createWriteStream,
  fstatSync,
  openSync,
  statSync,
  type Stats,
  type WriteStream,
} from 'node:fs';
import type { AuditRecord } from '../audit/records.js';
import { describeThrown } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';

/** Where `run --audit` writes: records as JSON lines, never waiting, bounded in memory. */
export interface AuditFile {
  readonly write: (record: AuditRecord) => void;
  /** Ends the file (stderr is left open) once every line is written; says what was lost. */
  readonly close: () => Promise<AuditFileTally>;
}

export interface AuditFileTally {
  /** Records not written: the file's buffer was full (a disk slower than the engine) or writing failed. */
  readonly dropped: number;
  readonly error?: string;
}

/** Past this many bytes waiting for the disk, records are dropped (and counted) rather than queued. */
export const AUDIT_BUFFER_BYTES = 16 * 1024 * 1024;

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

const sink = (stream: NodeJS.WritableStream & { writableLength: number }, owned: boolean): AuditFile => {
  let dropped = 0;
  let error: string | undefined;
  stream.on('error', (cause: unknown) => {
    error ??= describeThrown(cause);
  });
  return {
    write: (record) => {
      if (error !== undefined || stream.writableLength > AUDIT_BUFFER_BYTES) {
        dropped += 1;
        return;
      }
      stream.write(`${encodeAuditRecord(record)}\n`);
    },
    close: () =>
      new Promise<AuditFileTally>((resolve) => {
        const done = () => resolve({ dropped, ...(error !== undefined && { error }) });
        if (!owned || error !== undefined) {
          if (owned) done();
          else stream.write('', () => done());
          return;
        }
        (stream as WriteStream).end(() => done());
      }),
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
export const openAuditFile = (
  target: string,
  stderr: NodeJS.WritableStream & { writableLength: number },
): Result<AuditFile, string> => {
  if (target === '-') return ok(sink(stderr, false));
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
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      return err(`--audit ${target}: ${notAFile(stats)}`);
    }
  } catch (error) {
    closeSync(fd);
    return err(`--audit ${target}: ${describeThrown(error)}`);
  }
  return ok(sink(createWriteStream('', { fd, flags: 'a' }), true));
};
