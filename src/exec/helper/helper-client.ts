import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseJson, describeThrown } from '../../events/untrusted.js';
import { signalGroup } from '../groups/groups.js';
import { startProcess, type ProcessHandle, type ProcessListener, type Spawner } from '../process/spawn.js';
import {
  CLOSE,
  DETACH,
  END,
  EXIT,
  frame,
  frameHeader,
  frameReader,
  NOT_STARTED,
  RELEASE,
  SPAWN,
  STARTED,
  STDERR,
  STDOUT,
  WRITE,
} from './spawn-protocol.js';

/**
 * The helper's script, in the first place that has it: next to this module (tsc's output,
 * dist/src/exec/helper/), `../exec/helper/` from the bundled library's and command line's chunks
 * (dist/src/chunks, dist/src/cli, see rolldown.config.js), or, run from the TypeScript sources (the test runner), the built copy
 * in `dist/`: Node 20 cannot run TypeScript.
 */
const HELPER_PLACES = [
  './spawn-helper.js',
  '../exec/helper/spawn-helper.js',
  '../../../dist/src/exec/helper/spawn-helper.js',
] as const;

const helperScript = (): string => {
  const places = HELPER_PLACES.map((place) => fileURLToPath(new URL(place, import.meta.url)));
  return places.find((path) => existsSync(path)) ?? (places[0] as string);
};

/**
 * The helper's own environment (each hook gets its full environment with its spawn request):
 * without NODE_OPTIONS, so a host's `--require` of an agent or a large heap flag does not load
 * into the helper (or write to its stdout, which is the wire); an Electron host runs it as Node.
 */
const helperEnvironment = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['NODE_OPTIONS'];
  if (process.versions['electron'] !== undefined) env['ELECTRON_RUN_AS_NODE'] = '1';
  return env;
};

/** How long the helper's last frames are read after it exited, at most. */
const EXIT_DRAIN_MS = 100;

/** Bytes of the helper's own stderr kept for the message when it dies. */
const HELPER_STDERR_BYTES = 2048;

/**
 * Bytes of a process's stdin per frame. A large event goes to the helper in slices, one slice per
 * process with stdin pending at each write, after every spawn and control frame: a 30 MB event of
 * one session delays another session's spawn by one slice, not by 30 MB.
 */
const STDIN_SLICE_BYTES = 256 * 1024;

/** The error of a process whose start the helper could not report because it died first. */
const helperGone = (reason: string): Error =>
  Object.assign(new Error(`the spawn helper ${reason}`), { code: 'EHELPER' });

interface Remote {
  readonly listener: ProcessListener;
  pid: number | undefined;
  /** The host stopped listening (detach) before the start was reported: kill it when it comes. */
  detached: boolean;
  /** Whether it keeps the host alive (`ref`): an idle persistent hook does not. */
  held: boolean;
}

/**
 * One running spawn helper and the processes it started.
 *
 * Frames to the helper go out in batches, one write per batch, the next batch when the helper's
 * stdin has drained: first every spawn and control frame queued so far, then one slice of stdin of
 * each process that has some pending, in turn. Nothing of one process's stdin waits ahead of
 * another process's start but the slices already written.
 */
class Helper {
  private readonly remotes = new Map<number, Remote>();
  private nextId = 1;
  private readonly handle: ProcessHandle;
  /** Spawn and control frames (and small stdin writes of processes with nothing pending), in order. */
  private control: Buffer[] = [];
  /** Per process, the stdin frames not written yet, in order, as [header, payload] pairs. */
  private readonly stdins = new Map<number, Buffer[][]>();
  /** A batch is due (a microtask) or waits for the helper's stdin to drain. */
  private pumping = false;
  private stderrTail = '';
  private ended = false;
  private referenced = false;
  private exitReason: string | undefined;

  constructor(private readonly onEnd: (helper: Helper) => void) {
    this.handle = startProcess(
      {
        file: process.execPath,
        // The helper needs little memory; a small heap keeps its own forks cheap.
        args: ['--max-old-space-size=64', helperScript()],
        cwd: process.cwd(),
        env: helperEnvironment(),
      },
      {
        started: () => undefined,
        notStarted: (error) => this.end(error),
        stdout: frameReader((type, id, payload) => this.onFrame(type, id, payload)),
        stderr: (chunk) => {
          this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-HELPER_STDERR_BYTES);
        },
        // Frames it wrote before it died are still in the pipe: they are read until `close`, so a
        // hook that finished just before is reported as it ended, not as lost. `close` follows at
        // once (hooks never inherit the helper's pipes); the timer is only a bound.
        exit: (code, signal) => {
          this.exitReason = `exited ${signal !== null ? `by signal ${signal}` : `with code ${String(code)}`}`;
          setTimeout(() => this.end(this.death()), EXIT_DRAIN_MS).unref();
        },
        close: () => this.end(this.death()),
        lost: () => undefined,
      },
    );
    // An idle helper does not keep the host alive; a helper with processes in flight does (an idle
    // persistent hook process, unreferenced, does not count).
    this.handle.ref(false);
  }

  spawn: Spawner = (spec, listener) => {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
    const remote: Remote = { listener, pid: undefined, detached: false, held: true };
    if (this.ended) {
      setImmediate(() => listener.notStarted(helperGone('has stopped')));
      return notRunning;
    }
    this.remotes.set(id, remote);
    this.keepAlive();
    this.send(frame(SPAWN, id, JSON.stringify(spec)));
    let open = true;
    return {
      write: (data) => {
        if (open) this.sendStdin(id, WRITE, data);
        return true;
      },
      whenDrained: (callback) => setImmediate(callback),
      end: (data) => {
        if (open) this.sendStdin(id, END, data ?? '');
      },
      detach: () => {
        if (!open) return;
        open = false;
        // Kept until its end is reported (`exit` or `notStarted`, as for a direct spawn).
        remote.detached = true;
        // Its stdin not written yet is of no use any more.
        this.stdins.delete(id);
        this.send(frame(DETACH, id));
      },
      flow: () => undefined,
      release: () => {
        const pid = remote.pid;
        if (pid === undefined || this.ended) return;
        const payload = Buffer.allocUnsafe(4);
        payload.writeUInt32BE(pid, 0);
        this.send(frame(RELEASE, id, payload));
      },
      ref: (on) => {
        remote.held = on;
        this.keepAlive();
      },
    };
  };

  /** Why the helper is gone: how it exited, and the first line of what it wrote to stderr. */
  private death(): Error {
    const said = this.stderrTail.trim().split('\n')[0] ?? '';
    return helperGone(`${this.exitReason ?? 'closed its pipes'}${said === '' ? '' : `: ${said}`}`);
  }

  private forget(id: number): void {
    this.remotes.delete(id);
    // Stdin not written yet to a process that is gone: nobody would read it.
    this.stdins.delete(id);
    this.keepAlive();
  }

  private keepAlive(): void {
    let wanted = false;
    for (const remote of this.remotes.values()) {
      if (!remote.held) continue;
      wanted = true;
      break;
    }
    if (wanted === this.referenced || this.ended) return;
    this.referenced = wanted;
    this.handle.ref(wanted);
  }

  private send(bytes: Buffer): void {
    if (this.ended) return;
    this.control.push(bytes);
    this.schedule();
  }

  /** Stdin for process `id`: with the control frames when small and nothing of it is pending, else sliced. */
  private sendStdin(id: number, type: typeof WRITE | typeof END, data: string | Buffer): void {
    if (this.ended) return;
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const pending = this.stdins.get(id);
    if (pending === undefined && bytes.length <= STDIN_SLICE_BYTES) {
      this.send(Buffer.concat([frameHeader(type, id, bytes.length), bytes]));
      return;
    }
    const slices = pending ?? [];
    for (let at = 0; at < bytes.length || at === 0; at += STDIN_SLICE_BYTES) {
      const slice = bytes.subarray(at, at + STDIN_SLICE_BYTES);
      // Views of `bytes`: each byte is copied once, into the batch that writes it.
      const last = at + STDIN_SLICE_BYTES >= bytes.length;
      slices.push([frameHeader(last ? type : WRITE, id, slice.length), slice]);
    }
    this.stdins.set(id, slices);
    this.schedule();
  }

  private schedule(): void {
    if (this.pumping) return;
    this.pumping = true;
    queueMicrotask(() => this.pump());
  }

  private pump(): void {
    this.pumping = false;
    if (this.ended) return;
    const parts = this.control;
    this.control = [];
    for (const [id, slices] of this.stdins) {
      parts.push(...slices.shift()!);
      if (slices.length === 0) this.stdins.delete(id);
    }
    if (parts.length === 0) return;
    const more = this.handle.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    if (this.stdins.size === 0 && this.control.length === 0) return;
    this.pumping = true;
    if (more) setImmediate(() => this.pump());
    else this.handle.whenDrained(() => this.pump());
  }

  private onFrame(type: number, id: number, payload: Buffer): void {
    const remote = this.remotes.get(id);
    if (remote === undefined) return;
    const { listener } = remote;
    // Detached: only its start (to kill it) and its end (`exit`, `notStarted`) still matter.
    if (remote.detached && (type === STDOUT || type === STDERR || type === CLOSE)) {
      if (type === CLOSE) this.forget(id);
      return;
    }
    switch (type) {
      case STARTED: {
        const pid = payload.readUInt32BE(0);
        remote.pid = pid;
        if (remote.detached) {
          // Cancelled before it was known to start: nobody will kill it otherwise.
          signalGroup(pid, 'SIGKILL');
          return;
        }
        listener.started(pid);
        return;
      }
      case NOT_STARTED: {
        const parsed = parseJson(payload.toString('utf8'));
        if (!parsed.ok) return this.unreadable(parsed.error);
        this.forget(id);
        const { code, message } = parsed.value as { code?: string; message: string };
        listener.notStarted(Object.assign(new Error(message), code === undefined ? {} : { code }));
        return;
      }
      case STDOUT:
        listener.stdout(Buffer.from(payload));
        return;
      case STDERR:
        listener.stderr(Buffer.from(payload));
        return;
      case EXIT: {
        const parsed = parseJson(payload.toString('utf8'));
        if (!parsed.ok) return this.unreadable(parsed.error);
        const { code, signal } = parsed.value as { code: number | null; signal: NodeJS.Signals | null };
        if (remote.detached) this.forget(id);
        listener.exit(code, signal);
        return;
      }
      case CLOSE:
        this.forget(id);
        listener.close();
        return;
      default:
        return;
    }
  }

  /** A frame whose payload is not JSON: the helper cannot be trusted any more, as if it had died. */
  private unreadable(problem: string): void {
    this.end(new Error(`the spawn helper sent an unreadable frame (${problem})`));
  }

  /**
   * The helper is gone (or never started): every process in flight is reported, a started one as
   * lost after its group is killed (nobody watches it any more), one not yet started as not started.
   */
  private end(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
    this.handle.detach();
    const reason = describeThrown(error);
    const remotes = [...this.remotes.values()];
    this.remotes.clear();
    for (const remote of remotes) {
      if (remote.pid === undefined) {
        remote.listener.notStarted(error);
      } else {
        signalGroup(remote.pid, 'SIGKILL');
        // A detached one only waits for its end: that is now (its group was just killed).
        if (remote.detached) remote.listener.exit(null, 'SIGKILL');
        else remote.listener.lost(`${reason} while the hook ran`);
      }
    }
  }
}

const ignore = (): void => undefined;

const notRunning: ProcessHandle = {
  write: () => true,
  whenDrained: (callback) => setImmediate(callback),
  end: ignore,
  detach: ignore,
  flow: ignore,
  release: ignore,
  ref: ignore,
};

/** This host's spawn helper, started at its first use; a new one after it died. */
let current: Helper | undefined;

/**
 * Starts processes through the spawn helper (started lazily, once per host process, shared by every
 * executor; a fresh one after a death). Same contract as `startProcess`.
 */
export const helperSpawner: Spawner = (spec, listener) => {
  current ??= new Helper((ended) => {
    if (current === ended) current = undefined;
  });
  return current.spawn(spec, listener);
};

/** Whether a spawn helper is running now (for `spawnHelper: 'auto'`, which keeps using one once started). */
export const helperRunning = (): boolean => current !== undefined;

/**
 * When hook processes go through the spawn helper: `'always'`, `'never'`, or `'auto'` (the
 * default): once this process's resident memory reaches `spawnHelperMinRss`, and from then on.
 */
export type SpawnHelperMode = 'auto' | 'always' | 'never';

/** Where hook processes are started (docs/execution.md, *The spawn helper*). */
export interface SpawnHelperOptions {
  /**
   * Start hook processes through the spawn helper, a small resident process, instead of forking
   * this one: `'auto'` (default) once this process's resident memory reaches `spawnHelperMinRss`,
   * `'always'`, or `'never'`.
   */
  readonly spawnHelper?: SpawnHelperMode;
  /** Resident memory, in bytes, from which `spawnHelper: 'auto'` uses the helper. Default 256 MiB. */
  readonly spawnHelperMinRss?: number;
}

/** Resident memory from which `'auto'` uses the helper: 256 MiB (docs/execution.md). */
export const DEFAULT_SPAWN_HELPER_MIN_RSS = 256 * 1024 * 1024;

/** How often `'auto'` looks at the resident memory again. */
const RSS_CHECK_MS = 1000;
let rssCheckedAt = -Infinity;
let rss = 0;

const residentBytes = (): number => {
  const now = performance.now();
  if (now - rssCheckedAt >= RSS_CHECK_MS) {
    rssCheckedAt = now;
    rss = process.memoryUsage.rss();
  }
  return rss;
};

/** The spawner an executor uses for `mode`. */
export const spawnerFor = (mode: SpawnHelperMode, minRss: number): Spawner => {
  if (mode !== 'auto' && mode !== 'always' && mode !== 'never') {
    throw new RangeError(`spawnHelper must be 'auto', 'always' or 'never', got ${String(mode)}`);
  }
  if (typeof minRss !== 'number' || !(minRss >= 0) || !Number.isFinite(minRss)) {
    throw new RangeError(`spawnHelperMinRss must be a number of bytes >= 0, got ${String(minRss)}`);
  }
  if (mode === 'always') return helperSpawner;
  if (mode === 'never') return startProcess;
  return (spec, listener) =>
    (helperRunning() || residentBytes() >= minRss ? helperSpawner : startProcess)(spec, listener);
};
