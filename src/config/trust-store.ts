import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { named } from '../events/codecs.js';
import { parseJson } from '../events/untrusted.js';
import { readText, MAX_FILE_BYTES } from './files.js';
import { issuesOf, formatPath, type ConfigProblem } from './problems.js';
import type { TrustedHook } from './trust.js';

/**
 * The trust store: `<state dir>/trust.json`, the project hooks the user trusted, per workspace
 * (docs/configuration.md, trust). Read bounded (4 MiB); written whole to a temporary file with
 * mode 0600 that is then renamed over the old one, so a reader sees the old store or the new one,
 * never half of one.
 */

/** Most workspaces kept; trusting one more drops the one trusted longest ago. */
export const MAX_TRUSTED_WORKSPACES = 256;
/** Most hooks trusted in one workspace. */
export const MAX_TRUSTED_HOOKS = 1024;

const Script = named(t.type({ path: t.string, sha256: t.string }), 'a script record');
const Hook = named(
  t.type({
    event: t.string,
    name: t.string,
    command: t.string,
    definition: t.string,
    scripts: t.array(Script),
  }),
  'a trusted hook record',
);
const Workspace = named(
  t.intersection([
    t.type({ trusted_at: t.string, config: t.string, hooks: t.array(Hook) }),
    // The digest of the project's `[hooks]` settings when trusted (project-settings.ts); absent in
    // a store written before settings were recorded: then no setting is trusted.
    t.partial({ settings: t.string }),
  ]),
  'a workspace record',
);
/** The store's shape; anything else in the file makes the whole store untrusted. */
export const TrustStoreFile = named(
  t.type({
    version: t.literal(1),
    workspaces: named(t.record(t.string, Workspace), 'an object of workspaces'),
  }),
  'a trust store',
);
export type TrustStoreFile = t.TypeOf<typeof TrustStoreFile>;
export type TrustedWorkspace = t.TypeOf<typeof Workspace>;

export const emptyStore = (): TrustStoreFile => ({ version: 1, workspaces: {} });

export interface ReadStore {
  readonly store: TrustStoreFile;
  readonly warnings: readonly ConfigProblem[];
}

/**
 * The trust store, or an empty one with a warning when the file is malformed, too large, or
 * writable by someone else than its owner (anyone who can write it can trust hooks): trusting
 * nothing is the safe reading. A missing file is an empty store, silently.
 */
export const readTrustStore = (file: string): ReadStore => {
  const none = (message: string): ReadStore => ({
    store: emptyStore(),
    warnings: [{ file, message: `${message}; nothing is trusted` }],
  });
  const read = readText(file);
  if (!read.ok) return read.error.missing ? { store: emptyStore(), warnings: [] } : none(read.error.message);
  try {
    const stats = statSync(file);
    if ((stats.mode & 0o022) !== 0) return none('writable by group or others');
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) return none('owned by another user');
  } catch (error) {
    return none(`cannot check: ${(error as Error).message}`);
  }
  const parsed = parseJson(read.value);
  if (!parsed.ok) return none(`invalid JSON: ${parsed.error}`);
  const decoded = TrustStoreFile.decode(parsed.value);
  if (isLeft(decoded)) {
    const issue = issuesOf(decoded.left, [], 'json')[0];
    return none(issue === undefined ? 'not a trust store' : `${formatPath(issue.path)}: ${issue.message}`);
  }
  return { store: decoded.right, warnings: [] };
};

/** The settings digest trusted in one workspace (its real path), and whether it is trusted at all. */
export const trustedSettingsIn = (
  store: TrustStoreFile,
  workspace: string,
): { readonly workspace: boolean; readonly settings?: string } => {
  if (!Object.hasOwn(store.workspaces, workspace)) return { workspace: false };
  const settings = store.workspaces[workspace]?.settings;
  return settings === undefined ? { workspace: true } : { workspace: true, settings };
};

/** The hooks trusted in one workspace (its real path), if any. */
export const trustedIn = (store: TrustStoreFile, workspace: string): readonly TrustedHook[] | undefined =>
  Object.hasOwn(store.workspaces, workspace) ? store.workspaces[workspace]?.hooks : undefined;

/** The store with `workspace`'s entry replaced (or removed with `hooks` undefined), within its bounds. */
export const withWorkspace = (
  store: TrustStoreFile,
  workspace: string,
  entry: TrustedWorkspace | undefined,
): TrustStoreFile => {
  const others = Object.entries(store.workspaces).filter(([key]) => key !== workspace);
  if (entry === undefined) return { version: 1, workspaces: Object.fromEntries(others) };
  // Oldest first; keep the newest MAX - 1 others so the new entry fits.
  others.sort(([, a], [, b]) => (a.trusted_at < b.trusted_at ? -1 : a.trusted_at > b.trusted_at ? 1 : 0));
  const kept = others.slice(Math.max(0, others.length - (MAX_TRUSTED_WORKSPACES - 1)));
  return {
    version: 1,
    workspaces: Object.fromEntries([
      ...kept,
      [workspace, { ...entry, hooks: entry.hooks.slice(0, MAX_TRUSTED_HOOKS) }],
    ]),
  };
};

/**
 * Writes the store atomically: a new file `trust.json.<random>.tmp` (created exclusively, mode
 * 0600, synced) renamed over `file`. The folder is created with mode 0700 when missing. Throws
 * with the reason when it cannot write (the caller reports it).
 */
export const writeTrustStore = (file: string, store: TrustStoreFile): void => {
  const text = `${JSON.stringify(store, null, 2)}\n`;
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw new Error('the trust store would be larger than 4 MiB');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
};
