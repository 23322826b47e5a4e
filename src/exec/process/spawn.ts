import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Termination } from './classify.js';
import { describeThrown } from '../../events/untrusted.js';

/*
 * The one place that starts a process (STYLE: src/exec is the one place that spawns). Used by the
 * per-event executor, persistent hooks, and the spawn helper (which runs this same module in its
 * own small process). Only Node built-ins are imported here: the helper must stay small.
 */

/** What to start: the program, its arguments, its working folder and its whole environment. */
export interface ProcessSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** What a started process reports. Every callback is optional to act on, never to receive. */
export interface ProcessListener {
  /** The process started: `pid` is also its process group. Called at most once, before any other. */
  started(pid: number): void;
  /**
   * The process could not start (ENOENT, EACCES, a refused pipe…): nothing else follows. `code`
   * is the errno name when known; EMFILE, ENFILE and EAGAIN mean "try again later".
   */
  notStarted(error: unknown): void;
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** The process ended (its pipes may still be held by a background child). */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  /** Ended and every pipe reached EOF (or was detached): nothing more comes. */
  close(): void;
  /**
   * The process is no longer watched (the spawn helper that started it died): its group was
   * killed and nothing more comes. Only processes started through the helper report it.
   */
  lost(reason: string): void;
}

/** The host's side of a running process. */
export interface ProcessHandle {
  /**
   * Writes to its stdin; a process that does not read is fine (EPIPE is ignored). Returns false
   * when its stdin is backed up (what is written is still kept and sent): see `whenDrained`.
   */
  write(data: string | Buffer): boolean;
  /** Calls `callback` once, as soon as its stdin is not backed up (at once if it is not now). */
  whenDrained(callback: () => void): void;
  /** Closes its stdin after `data`. */
  end(data?: string | Buffer): void;
  /**
   * Stops reading and closes every pipe end of ours. Only the end of the process is still
   * reported, once: `exit` if it started (when it exits), else `notStarted`; no output, no `close`.
   */
  detach(): void;
  /** Pauses (false) or resumes (true) reading its stdout and stderr: backpressure. */
  flow(on: boolean): void;
  /** The group is no longer ours: a process started through the helper is then not killed with the host. */
  release(): void;
  /** Whether the running process keeps this process's event loop alive (it does by default). */
  ref(on: boolean): void;
}

/** A way of starting processes: directly, or through the spawn helper. */
export type Spawner = (spec: ProcessSpec, listener: ProcessListener) => ProcessHandle;

const ignore = (): void => undefined;

/** The errno name of a failed start (`ENOENT`, `EMFILE`…), when the error carries one. */
export const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** How a process that never ran ended: `file` is what was executed, with the error's code and message. */
export const notStartedTermination = (file: string, error: unknown): Termination => {
  const code = errorCode(error);
  return {
    kind: 'not_started',
    file,
    ...(code !== undefined && { code }),
    message: describeThrown(error),
  };
};

/** Out of file descriptors: Node then loses the pipes it had made (see `descriptorsFree`). */
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/** Descriptors a spawn needs at once: three socket pairs for stdio and libuv's exec-error pipe. */
const SPAWN_DESCRIPTORS = 8;

/**
 * Whether `count` more file descriptors can be opened now. Node 20 leaks the pipes libuv made when
 * a spawn fails with EMFILE or ENFILE after making them (they are never wrapped, so never closed):
 * three descriptors lost per refusal, until none is left. So once this process has seen one such
 * refusal, it checks before each spawn that the spawn cannot hit the limit halfway, at the cost
 * of opening and closing `/dev/null` a few times.
 */
const descriptorsFree = (count: number): boolean => {
  const opened: number[] = [];
  try {
    while (opened.length < count) opened.push(openSync('/dev/null', 'r'));
    return true;
  } catch {
    return false;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
};

const notRunning = (detach: () => void): ProcessHandle => ({
  write: () => true,
  whenDrained: (callback) => setImmediate(callback),
  end: ignore,
  detach,
  flow: ignore,
  release: ignore,
  ref: ignore,
});

/** Set by the first EMFILE/ENFILE refusal in this process: from then on, spawn only with descriptors to spare. */
let checkDescriptors = false;

const outOfDescriptors = (): Error =>
  Object.assign(new Error('no file descriptors to spare for a hook process'), { code: 'EMFILE' });

const noteRefusal = (error: unknown): void => {
  const code = errorCode(error);
  if (code !== undefined && OUT_OF_DESCRIPTORS.has(code)) checkDescriptors = true;
};

const detachChild = (child: ChildProcess): void => {
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
};

/**
 * Starts `spec` with `child_process.spawn` in its own process group and session (`detached`),
 * with a pipe on every stdio, and reports to `listener`. Never throws: a process that cannot start
 * (synchronously, like a NUL byte in an argument or E2BIG, or later, like ENOENT or EMFILE) is one
 * `notStarted`. `started` is called before this returns; everything else later, from the event loop.
 *
 * Why not execa (the "one spawner"): when the system refuses the pipes (EMFILE, ENFILE),
 * Node's spawn returns a child without them, execa 9.6 throws "subprocess.stdio is not iterable"
 * from inside and never hands the child back, and the child's `error` event, which nobody can
 * listen to, ends the host (docs/execution.md has the reproduction). Its per-call work (option
 * normalization, an `AbortController`, promise bookkeeping) also costs 10–30% of a bare spawn.
 */
export const startProcess: Spawner = (spec, listener) => {
  let child: ChildProcess | undefined;
  /** `detach` was called: no more output, no `close`. */
  let detached = false;
  /** `notStarted` or `close` was reported: nothing more at all. */
  let finished = false;
  const fail = (error: unknown) => {
    if (finished) return;
    finished = true;
    noteRefusal(error);
    if (child !== undefined) detachChild(child);
    listener.notStarted(error);
  };
  try {
    if (checkDescriptors && !descriptorsFree(SPAWN_DESCRIPTORS)) throw outOfDescriptors();
    child = spawn(spec.file, spec.args, {
      detached: true,
      stdio: 'pipe',
      cwd: spec.cwd,
      env: spec.env,
    });
  } catch (error) {
    // Synchronous refusals by Node: a NUL byte in the command, E2BIG, and the like.
    setImmediate(() => fail(error));
    return notRunning(() => (detached = true));
  }
  const spawned = child;
  // Node reports a process that could not start with `error` and no `exit`; for EMFILE and ENFILE
  // it does not even make the pipes. Later errors (a failed kill) are nothing to report.
  spawned.on('error', (error: unknown) => {
    if (spawned.pid === undefined) fail(error);
  });
  const { stdin, stdout, stderr } = spawned;
  const pid = spawned.pid;
  if (pid === undefined || stdin === null || stdout === null || stderr === null) {
    // Not started: the `error` above follows. A refused attempt with pipes closes too: not the end.
    return notRunning(() => (detached = true));
  }
  stdin.on('error', ignore);
  stdout.on('error', ignore);
  stderr.on('error', ignore);
  stdout.on('data', (chunk: Buffer) => {
    if (!detached) listener.stdout(chunk);
  });
  stderr.on('data', (chunk: Buffer) => {
    if (!detached) listener.stderr(chunk);
  });
  // Reported even after `detach`: the caller counts running processes by it.
  spawned.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
    if (!finished) listener.exit(code, signal);
  });
  spawned.once('close', () => {
    if (finished || detached) return;
    finished = true;
    listener.close();
  });
  listener.started(pid);
  return {
    write: (data) => (!detached && stdin.writable ? stdin.write(data) : true),
    whenDrained: (callback) => {
      if (detached || !stdin.writable || !stdin.writableNeedDrain) setImmediate(callback);
      else {
        // `close` too: a stdin that ends while backed up never drains.
        const once = () => {
          stdin.off('drain', once);
          stdin.off('close', once);
          callback();
        };
        stdin.on('drain', once);
        stdin.on('close', once);
      }
    },
    end: (data) => {
      if (!detached && stdin.writable) stdin.end(data);
    },
    detach: () => {
      detached = true;
      detachChild(spawned);
    },
    flow: (on) => {
      if (on) {
        stdout.resume();
        stderr.resume();
      } else {
        stdout.pause();
        stderr.pause();
      }
    },
    release: ignore,
    ref: (on) => {
      // Node's stdio pipes are sockets: unref'd, reading them does not hold the event loop.
      for (const handle of [spawned, stdout as Socket, stderr as Socket]) {
        if (on) handle.ref();
        else handle.unref();
      }
    },
  };
};
