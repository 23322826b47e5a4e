import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  statSync,
  watch,
  type FSWatcher,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256OfOpenFile } from '../exec/script-digest.js';
import {
  asyncScheduler,
  auditTime,
  defer,
  expand,
  filter,
  fromEvent,
  map,
  merge,
  of,
  scan,
  take,
  using,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { loadHooks, type Followed, type LoadOptions, type LoadResult } from './load.js';
import { guardReload } from './reload-guard.js';

/**
 * The watching form of `loadHooks` (docs/configuration.md, reload): loads, then follows every
 * file and folder the load read, and loads again when their content changes.
 */

export interface WatchOptions {
  /** Quiet time after a file event before the files are compared and reloaded (default 100 ms). */
  readonly settleMs?: number;
  /** Scheduler of the settle time; tests may pass a virtual one. */
  readonly scheduler?: SchedulerLike;
}

/** Most folders watched at once; past it, the rest are not followed (a warning says so). */
export const MAX_WATCHED_FOLDERS = 256;
/** Largest file digested for change detection; a larger one is compared by size and time. */
const MAX_DIGESTED_BYTES = 16 * 1024 * 1024;
/** Most entries of an extensions folder looked at. */
const MAX_FOLDER_ENTRIES = 1024;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** What a followed file holds now, as a short text: its digest, `missing`, or what it is. */
const stateOfFile = (file: string): string => {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return `not-a-file:${stats.mode}`;
    const large = `large:${stats.size}:${stats.mtimeMs}:${stats.ino}`;
    if (stats.size > MAX_DIGESTED_BYTES) return large;
    return sha256OfOpenFile(fd, MAX_DIGESTED_BYTES) ?? large;
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
  } finally {
    closeSync(fd);
  }
};

/** An extensions folder now: its entries and each one's manifest. */
const stateOfFolder = (folder: string): string => {
  let names: string[];
  try {
    names = readdirSync(folder).sort().slice(0, MAX_FOLDER_ENTRIES);
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
  }
  return names.map((name) => `${name}=${stateOfFile(join(folder, name, 'cosh-extension.json'))}`).join('\n');
};

/** Every followed path's state, by path; folders are prefixed so they never collide with files. */
export type Fingerprint = ReadonlyMap<string, string>;

export const fingerprintOf = (followed: Followed): Fingerprint =>
  new Map([
    ...followed.files.map((file) => [file, stateOfFile(file)] as const),
    ...followed.folders.map((folder) => [`folder:${folder}`, stateOfFolder(folder)] as const),
  ]);

const sameFingerprint = (a: Fingerprint, b: Fingerprint): boolean =>
  a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);

/** The nearest folder of `path` that exists (a missing config's folder may be created later). */
const existingFolder = (path: string): string | undefined => {
  let folder = path;
  for (let depth = 0; depth < 32; depth += 1) {
    try {
      if (statSync(folder).isDirectory()) return folder;
    } catch {
      // not there (yet): watch its parent
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
};

/** The folders to watch: each file's folder, each extensions folder and its extension folders. */
export const foldersToWatch = (followed: Followed): string[] => {
  const folders = new Set<string>();
  const add = (folder: string | undefined) => {
    if (folder !== undefined && folders.size < MAX_WATCHED_FOLDERS) folders.add(folder);
  };
  for (const file of followed.files) add(existingFolder(dirname(file)));
  for (const folder of followed.folders) {
    add(existingFolder(folder));
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true }).slice(0, MAX_FOLDER_ENTRIES))
        if (entry.isDirectory()) add(join(folder, entry.name));
    } catch {
      // a missing folder is watched through its parent
    }
  }
  return [...folders];
};

/** One folder's change events while subscribed; the watcher is closed on unsubscribe. */
const changesIn = (folder: string): Observable<unknown> =>
  using(
    () => {
      let watcher: FSWatcher | undefined;
      try {
        watcher = watch(folder, { persistent: false });
      } catch {
        watcher = undefined;
      }
      return { watcher, unsubscribe: () => watcher?.close() };
    },
    (resource) => {
      const { watcher } = resource as unknown as { watcher: FSWatcher | undefined };
      // An error (the folder went away) counts as a change: the next load says what is there now.
      return watcher === undefined ? of() : merge(fromEvent(watcher, 'change'), fromEvent(watcher, 'error'));
    },
  );

interface Loaded {
  readonly result: LoadResult;
  /** The followed files as they were before this load read them: a change during the load shows. */
  readonly fingerprint: Fingerprint;
}

/**
 * `loadHooks`, then again whenever a file or folder it read changes: config layers, manifests,
 * the disabled-state files, the trust store and the scripts of project hooks. Emits the first
 * result at once (synchronously), then a new result after each change of content — a file event
 * alone (a `touch`, an editor's save of the same text) loads nothing. Events are gathered for
 * `settleMs` after the first, so a burst of writes gives one load. Each result is a full
 * `LoadResult`: an invalid change comes as `ok: false` with its errors, and it is for the
 * consumer to keep its last good registry (`run --watch` does).
 *
 * Files are compared by content digest (up to 16 MiB each); at most 256 folders are watched.
 * Changes between a load and the arming of the next watchers are caught: each round starts by
 * comparing the files with what they were just before the load read them.
 *
 * Example: `watchHooks({ workspace }).pipe(filter((r) => r.ok), map((r) => r.registry))` is a `registry$`.
 */
export const watchHooks = (
  options: LoadOptions = {},
  watchOptions: WatchOptions = {},
): Observable<LoadResult> => {
  const settleMs = watchOptions.settleMs ?? 100;
  const scheduler = watchOptions.scheduler ?? asyncScheduler;
  const loadOnce = (before: (followed: Followed) => Fingerprint): Loaded => {
    const result = loadHooks(options);
    // The state before the load for files it read before too; new files are taken as they are now.
    const earlier = before(result.followed);
    return { result, fingerprint: earlier };
  };
  return defer(() => {
    // The first round has nothing earlier: take the files as they are just after loading.
    const first = loadOnce(fingerprintOf);
    return of(first).pipe(
      expand((previous) =>
        merge(of(undefined), ...foldersToWatch(previous.result.followed).map(changesIn)).pipe(
          auditTime(settleMs, scheduler),
          map(() => fingerprintOf(previous.result.followed)),
          filter((now) => !sameFingerprint(now, previous.fingerprint)),
          take(1),
          map((now) =>
            loadOnce((followed) => {
              const current = fingerprintOf(followed);
              return new Map([...current].map(([key, value]) => [key, now.get(key) ?? value]));
            }),
          ),
        ),
      ),
      map(({ result }) => result),
      // A reload never opens a guard: each result after the first is judged against the last good one.
      scan<LoadResult, { lastGood?: Extract<LoadResult, { ok: true }>; out?: LoadResult }>(
        ({ lastGood }, result) => {
          const out = lastGood === undefined ? result : guardReload(lastGood, result);
          return { lastGood: out.ok ? out : lastGood, out };
        },
        {},
      ),
      map(({ out }) => out as LoadResult),
    );
  });
};
