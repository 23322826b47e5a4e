import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The digest of a script a hook runs: what `cosh-hooks trust` records for a project hook, and what
 * the executor checks again before each start of that hook (docs/configuration.md, trust), so a
 * script replaced while the agent runs is not run as if it were trusted.
 */

/** Largest script file digested; a larger one cannot be verified, so its hook cannot be trusted. */
export const MAX_SCRIPT_BYTES = 16 * 1024 * 1024;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * The sha256 (hex) of an open file's content, read in 64 KiB pieces to its end; undefined when it
 * holds more than `maxBytes` (a file that grows while it is read included). The one bounded digest
 * of a file: trust's (below) and the config watcher's (src/config/watch.ts).
 */
export const sha256OfOpenFile = (fd: number, maxBytes: number): string | undefined => {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let total = 0;
  for (let count = readSync(fd, buffer); count > 0; count = readSync(fd, buffer)) {
    total += count;
    if (total > maxBytes) return undefined;
    hash.update(buffer.subarray(0, count));
  }
  return hash.digest('hex');
};

/** How many bytes of a script's start `digestFile` returns: enough for its `#!` line. */
export const HEAD_BYTES = 256;

/** A file's first `bytes` bytes (fewer when it is shorter), from the open file. */
const headOf = (fd: number, bytes: number): string => {
  const buffer = Buffer.alloc(bytes);
  const count = readSync(fd, buffer, 0, bytes, 0);
  return buffer.subarray(0, count).toString('latin1');
};

/**
 * Digest of a script's content, read once, bounded, never blocking on a FIFO; with its first
 * `HEAD_BYTES` bytes (`head`, latin1), so its `#!` line is read from the file that was digested.
 */
export const digestFile = (path: string): { sha256: string; unverifiable?: string; head?: string } => {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { sha256: 'missing' };
    return { sha256: 'unreadable', unverifiable: `cannot read: ${(error as Error).message}` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { sha256: 'unreadable', unverifiable: 'not a regular file' };
    if (stats.size > MAX_SCRIPT_BYTES)
      return { sha256: 'unreadable', unverifiable: `larger than ${MAX_SCRIPT_BYTES} bytes` };
    const head = headOf(fd, HEAD_BYTES);
    const hex = sha256OfOpenFile(fd, MAX_SCRIPT_BYTES);
    return hex === undefined
      ? { sha256: 'unreadable', unverifiable: `larger than ${MAX_SCRIPT_BYTES} bytes` }
      : { sha256: `sha256:${hex}`, head };
  } catch (error) {
    return { sha256: 'unreadable', unverifiable: `cannot read: ${(error as Error).message}` };
  } finally {
    closeSync(fd);
  }
};

/**
 * Whether an executable file starts with `#!` (a script, such as a version manager's shim, rather
 * than a program): undefined when it cannot be read as a regular file.
 */
export const isScriptFile = (path: string): boolean | undefined => {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    return fstatSync(fd).isFile() ? headOf(fd, 2) === '#!' : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
};

/**
 * The digest of a project's hook folder (`<workspace>/.copilot-shell/`): every file in it, so that
 * what a pinned script imports from beside it (a node `./lib.mjs`, a ruby `require_relative`, a
 * shell `. "$dir/lib.sh"`) is pinned with it (docs/configuration.md, trust). Recorded by
 * `cosh-hooks trust` and checked again by the executor before each start of a hook whose script
 * is in the folder. Bounded in files, depth and bytes; a link, a FIFO, a device or a socket in it
 * makes it unverifiable (a link's target is not the folder's to pin, a FIFO would block).
 */

/** Most entries (files and folders) read. */
export const MAX_FOLDER_ENTRIES = 1000;
/** Deepest folder nesting read. */
export const MAX_FOLDER_DEPTH = 16;
/** Most bytes digested in all. */
export const MAX_FOLDER_BYTES = MAX_SCRIPT_BYTES;

const FOLDER_OPEN_FLAGS = OPEN_FLAGS | constants.O_NOFOLLOW;

/** `sha256:<hex>` of the folder's entries, or why it cannot be verified. */
export const digestFolder = (folder: string): { sha256: string; unverifiable?: string } => {
  const hash = createHash('sha256');
  let entries = 0;
  let bytes = 0;
  const refuse = (why: string) => ({ sha256: 'unreadable', unverifiable: why });
  const walk = (dir: string, rel: string, depth: number): string | undefined => {
    if (depth > MAX_FOLDER_DEPTH) return `${rel}: folders nested deeper than ${MAX_FOLDER_DEPTH}`;
    const names = readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      entries += 1;
      if (entries > MAX_FOLDER_ENTRIES) return `more than ${MAX_FOLDER_ENTRIES} files and folders`;
      const path = join(dir, name);
      const inside = rel === '' ? name : `${rel}/${name}`;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return `${inside} is a link: trust pins the folder's own files only`;
      if (stats.isDirectory()) {
        hash.update(`d ${JSON.stringify(inside)}\n`);
        const why = walk(path, inside, depth + 1);
        if (why !== undefined) return why;
        continue;
      }
      if (!stats.isFile()) return `${inside} is not a regular file`;
      const fd = openSync(path, FOLDER_OPEN_FLAGS);
      try {
        const opened = fstatSync(fd);
        if (!opened.isFile()) return `${inside} is not a regular file`;
        bytes += opened.size;
        if (bytes > MAX_FOLDER_BYTES) return `its files hold more than ${MAX_FOLDER_BYTES} bytes`;
        const hex = sha256OfOpenFile(fd, MAX_FOLDER_BYTES - bytes + opened.size);
        if (hex === undefined) return `its files hold more than ${MAX_FOLDER_BYTES} bytes`;
        hash.update(`f ${JSON.stringify(inside)} ${opened.mode & 0o111 ? 'x' : '-'} ${hex}\n`);
      } finally {
        closeSync(fd);
      }
    }
    return undefined;
  };
  let top;
  try {
    top = lstatSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { sha256: 'missing' };
    return refuse(`cannot read: ${(error as Error).message}`);
  }
  if (!top.isDirectory()) return refuse(top.isSymbolicLink() ? 'it is a link' : 'not a folder');
  try {
    const why = walk(folder, '', 0);
    return why === undefined ? { sha256: `sha256:${hash.digest('hex')}` } : refuse(why);
  } catch (error) {
    return refuse(`cannot read: ${(error as Error).message}`);
  }
};
