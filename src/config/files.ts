import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { err, ok, type Result } from '../result.js';
import { describeThrown } from '../events/untrusted.js';

/** Why a file's text cannot be had; `missing` when there is no such file (some files may be absent). */
export interface ReadProblem {
  readonly missing: boolean;
  readonly message: string;
}

/** A file's text, or why it cannot be had. */
export type ReadText = Result<string, ReadProblem>;

/** Largest config file, manifest or state file read (spec §2). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer (it would hang start-up);
// on a regular file it changes nothing. O_NOCTTY: a terminal device never becomes ours.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

const kindOf = (stats: Stats): string => {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
};

/**
 * Where the first byte that is not UTF-8 is, as `line N, byte offset M` (lines from 1), so the user
 * can find it. Only called once `isUtf8` said no.
 */
const invalidUtf8At = (bytes: Uint8Array): string => {
  let line = 1;
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i] ?? 0;
    let length = 0;
    let min = 0;
    if (byte < 0x80) length = 1;
    else if (byte >= 0xc2 && byte <= 0xdf) [length, min] = [2, 0x80];
    else if (byte >= 0xe0 && byte <= 0xef) [length, min] = [3, 0x800];
    else if (byte >= 0xf0 && byte <= 0xf4) [length, min] = [4, 0x10000];
    if (length === 0 || i + length > bytes.length) break;
    let code = length === 1 ? byte : byte & (0xff >> (length + 1));
    let valid = true;
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k] ?? 0;
      if ((next & 0xc0) !== 0x80) valid = false;
      code = (code << 6) | (next & 0x3f);
    }
    if (!valid || code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) break;
    if (byte === 0x0a) line += 1;
    i += length;
  }
  return `line ${line}, byte offset ${i}`;
};

/**
 * Reads at most `MAX_FILE_BYTES` + 1 bytes (the extra byte tells a file that is too big) from an
 * open regular file; `undefined` when there are more. The size from fstat is only a starting
 * point: the file may grow while it is read.
 */
const readBounded = (fd: number, sizeHint: number): Buffer | undefined => {
  let buffer = Buffer.allocUnsafe(Math.min(sizeHint, MAX_FILE_BYTES) + 1);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (buffer.length > MAX_FILE_BYTES) return undefined;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_FILE_BYTES + 1));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const count = readSync(fd, buffer, total, buffer.length - total, null);
    if (count === 0) return buffer.subarray(0, total);
    total += count;
  }
};

const failure = (message: string, missing = false): ReadText => err({ missing, message });

/**
 * A config file's, manifest's or state file's text, or why it cannot be had (spec §2): it must be
 * a regular file (a symbolic link to one is fine) of at most 4 MiB, in UTF-8. Reading never blocks
 * (a FIFO with no writer is refused, not waited on) and never loads more than 4 MiB (+1 byte). A
 * byte-order mark is dropped: editors on other systems add one, and neither JSON.parse nor the line
 * scanners expect it.
 */
export const readText = (file: string): ReadText => {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return failure('file not found', true);
    return failure(`cannot read: ${(error as Error).message}`, code === 'ENOTDIR');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return failure(`not a regular file (${kindOf(stats)})`);
    if (stats.size > MAX_FILE_BYTES) return failure(`larger than 4 MiB (${stats.size} bytes)`);
    const bytes = readBounded(fd, stats.size);
    if (bytes === undefined) return failure('larger than 4 MiB');
    if (!isUtf8(bytes)) return failure(`not UTF-8: invalid byte at ${invalidUtf8At(bytes)}`);
    const text = bytes.toString('utf8');
    return ok(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return failure(`cannot read: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
};

/**
 * All of an input the user named on the command line (a file, a pipe, `0` for stdin), read to its
 * end, blocking like any stream read, but never more than `limit` bytes: a device without end
 * (`/dev/zero`) is an error once `limit` is passed, not a process that eats memory until it dies.
 * The text must be UTF-8, as every input line of `run` must (a BOM is dropped).
 */
export const readInputText = (file: string | 0, limit: number): Result<string> => {
  let fd: number;
  try {
    fd = file === 0 ? 0 : openSync(file, 'r');
  } catch (error) {
    return err(describeThrown(error));
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
      const count = readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) break;
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > limit)
        return err(
          `larger than ${limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`}`,
        );
    }
    const bytes = Buffer.concat(chunks, total);
    if (!isUtf8(bytes)) return err(`not UTF-8: invalid byte at ${invalidUtf8At(bytes)}`);
    const text = bytes.toString('utf8');
    return ok(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return err(describeThrown(error));
  } finally {
    if (file !== 0) closeSync(fd);
  }
};
