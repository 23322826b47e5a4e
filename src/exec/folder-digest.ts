import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_SCRIPT_BYTES, sha256OfOpenFile } from './script-digest.js';

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

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW;

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
      const fd = openSync(path, OPEN_FLAGS);
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
