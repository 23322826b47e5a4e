import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { Observable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import { failure } from '../protocol/result.js';
import type { CommandHook } from '../registry/hook.js';
import { classifyProcess, type Termination } from './classify.js';
import { invocationOf } from './command.js';
import { ownGroup, releaseGroup } from './groups.js';
import { hookEnvironment } from './hook-env.js';
import { withPersistentHooks, type PersistentHookOptions } from './persistent.js';
import { hookExecutor } from './hook-executor.js';
import type { CommandExecutor, RunScopedExecutor } from './port.js';
import { ProcessSlots } from './process-slots.js';

/** Limits of the real executor; every field has a default (docs/execution.md). */
export interface ExecaExecutorOptions {
  /** How long to keep reading stdout/stderr after the hook process exited. Default 100 ms. */
  readonly drainMs?: number;
  /** Delay between SIGTERM and SIGKILL to the process group on cancellation. Default 500 ms. */
  readonly killGraceMs?: number;
  /** stdout bytes kept; more is `output_too_large` and the group is killed. Default 1 MiB. */
  readonly stdoutLimit?: number;
  /** stderr bytes kept (the tail), for messages only. Default 64 KiB. */
  readonly stderrLimit?: number;
  /**
   * Hook processes of this executor running at once; more wait for one to end, within their own
   * timeout (SPEC §4.2). Default 32.
   */
  readonly maxProcesses?: number;
}

export const DEFAULT_MAX_PROCESSES = 32;

const DEFAULTS: Required<ExecaExecutorOptions> = {
  drainMs: 100,
  killGraceMs: 500,
  stdoutLimit: 1024 * 1024,
  stderrLimit: 64 * 1024,
  maxProcesses: DEFAULT_MAX_PROCESSES,
};

const ignore = (): void => undefined;
const noWait = (): void => undefined;

/** The event's folder when it is an existing directory, else the host's (SPEC §4.2). */
const hookCwd = (cwd: string | undefined): string => {
  if (cwd === undefined || cwd === '') return process.cwd();
  try {
    return statSync(cwd, { throwIfNoEntry: false })?.isDirectory() === true ? cwd : process.cwd();
  } catch {
    return process.cwd();
  }
};

/** Signals the whole process group; false when no process of it is left. */
const signalGroup = (pgid: number, signal: NodeJS.Signals): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: every process of the group is gone. EPERM cannot happen for our own children.
    return false;
  }
};

/** Keeps the first `limit` bytes and notes whether more came. */
const headBuffer = (limit: number) => {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  return {
    /** Returns true on the chunk that crosses the limit. */
    push(chunk: Buffer): boolean {
      if (overflow) return false;
      size += chunk.length;
      if (size > limit) {
        overflow = true;
        chunks.length = 0;
        return true;
      }
      chunks.push(chunk);
      return false;
    },
    get overflow() {
      return overflow;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
};

/** Keeps the last `limit` bytes. */
const tailBuffer = (limit: number) => {
  const chunks: Buffer[] = [];
  let size = 0;
  let total = 0;
  return {
    /** True once the start of the stream is no longer kept. */
    get cut(): boolean {
      return total > limit;
    },
    push(chunk: Buffer): void {
      chunks.push(chunk);
      size += chunk.length;
      total += chunk.length;
      while (chunks.length > 1 && size - (chunks[0]?.length ?? 0) >= limit) {
        size -= chunks.shift()?.length ?? 0;
      }
    },
    text: (): string => {
      const all = Buffer.concat(chunks);
      return all.subarray(Math.max(0, all.length - limit)).toString('utf8');
    },
  };
};

/** Bytes of stderr searched for its first line; a longer first line is cut there. */
const FIRST_LINE_BYTES = 4096;

/**
 * Follows the start of stderr and reports its first non-blank line each time it grows, until the
 * line is complete: the reason a fail_closed hook gets if it then times out.
 */
const firstStderrLine = () => {
  let head = '';
  let done = false;
  let reported: string | undefined;
  return {
    /** The first non-blank line so far (complete once a newline followed it). */
    get line(): string | undefined {
      return reported;
    },
    push(chunk: Buffer): string | undefined {
      if (done) return undefined;
      head += chunk.subarray(0, FIRST_LINE_BYTES - head.length).toString('utf8');
      const start = head.search(/\S/);
      if (start < 0) return undefined;
      const end = head.indexOf('\n', start);
      done = end >= 0 || head.length >= FIRST_LINE_BYTES;
      const line = (end >= 0 ? head.slice(start, end) : head.slice(start)).trim();
      if (line === '' || line === reported) return undefined;
      reported = line;
      return line;
    },
  };
};

const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The system refused a process or a pipe for now: wait and try again (SPEC §4.2). */
const REFUSALS = new Set(['EMFILE', 'ENFILE', 'EAGAIN']);

/** Out of file descriptors: Node then loses the pipes it had made (see `descriptorsFree`). */
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE']);

/** Descriptors a spawn needs at once: three socket pairs for stdio and libuv's exec-error pipe. */
const SPAWN_DESCRIPTORS = 8;

/**
 * Whether `count` more file descriptors can be opened now. Node 20 leaks the pipes libuv made when
 * a spawn fails with EMFILE or ENFILE after making them (they are never wrapped, so never closed):
 * three descriptors lost per refusal, until none is left. So once an executor has seen one such
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

const notStarted = (file: string, error: unknown): Termination => {
  const code = errorCode(error);
  return {
    kind: 'not_started',
    file,
    ...(code !== undefined && { code }),
    message: error instanceof Error ? error.message : String(error),
  };
};

/** A spawned hook process with every pipe open (Node leaves them null when it could not make them). */
type HookProcess = ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };

const hasPipes = (child: ChildProcess): child is HookProcess =>
  Boolean(child.stdin) && Boolean(child.stdout) && Boolean(child.stderr);

/**
 * The real executor (SPEC §4.2–4.5): runs a command hook as a process in its own process group and
 * emits its classified `HookResult`.
 *
 * - Cold: spawns on subscribe; emits progress notices (`stderr`: the first stderr line as it comes;
 *   `exited`: the process ended), then exactly one result, then completes; never errors (a process
 *   that cannot start is a `spawn` result).
 * - At most `maxProcesses` hook processes of this executor run at once: a hook beyond that waits
 *   for one to end. When the system refuses a process or a pipe (EMFILE, ENFILE, EAGAIN) the hook
 *   waits too, and starts when a running hook ends or after a short back-off. Waiting is inside
 *   the Observable, so the stream's timeout covers it and unsubscribing cancels it.
 * - stdin gets the event as one JSON line, then EOF; a hook that never reads it is fine (EPIPE is
 *   ignored).
 * - The result is taken when the hook process exits, after at most `drainMs` more of stdout; a
 *   background process that still holds the pipe does not delay it and is left running.
 * - Unsubscribing before the result (the stream's timeout, or cancellation) sends SIGTERM to the
 *   whole group, then SIGKILL after `killGraceMs`, even if the hook process itself is already gone.
 * - More than `stdoutLimit` bytes of stdout: the group is killed at once, `output_too_large`.
 *
 * Built on `child_process.spawn` with pipes this module reads itself, so it can stop at the hook's
 * exit instead of at the pipes' end. (execa, used before, throws from inside when the system
 * refuses the pipes and leaves the child's `error` event unhandled, which ends the host.)
 */
const perEventExecutor = (options: ExecaExecutorOptions): CommandExecutor => {
  const settings = { ...DEFAULTS, ...options };
  if (!Number.isSafeInteger(settings.maxProcesses) || settings.maxProcesses < 1) {
    throw new RangeError(`maxProcesses must be a positive integer, got ${String(settings.maxProcesses)}`);
  }
  const slots = new ProcessSlots(settings.maxProcesses);
  /** Set by the first EMFILE/ENFILE refusal: from then on, spawn only with descriptors to spare. */
  let checkDescriptors = false;
  const outOfDescriptors = new Error('no file descriptors to spare for a hook process');
  Object.assign(outOfDescriptors, { code: 'EMFILE' });
  return (hook, event) =>
    new Observable((subscriber) => {
      const { file, args } = invocationOf(hook.command);
      let line: string;
      try {
        line = `${JSON.stringify(event)}\n`;
      } catch (error) {
        subscriber.next(
          failure('spawn', `could not start: ${error instanceof Error ? error.message : String(error)}`),
        );
        subscriber.complete();
        return undefined;
      }

      let child: ChildProcess | undefined;
      /** Cancels the wait for a slot; replaced by the running process's teardown once it starts. */
      let cancelWait = noWait;
      let begun = false;
      let settled = false;
      let drainTimer: NodeJS.Timeout | undefined;
      let stdout = headBuffer(settings.stdoutLimit);
      let stderr = tailBuffer(settings.stderrLimit);
      let firstLine = firstStderrLine();
      let termination: Termination | undefined;
      /** The slot is returned once: when the process has exited and our pipe ends are closed. */
      let exited = false;
      let closed = false;
      let slotHeld = false;
      const giveSlot = () => {
        if (slotHeld && exited && closed) {
          slotHeld = false;
          slots.give();
        }
      };

      const release = () => {
        clearTimeout(drainTimer);
        child?.stdin?.destroy();
        child?.stdout?.destroy();
        child?.stderr?.destroy();
        closed = true;
        giveSlot();
      };

      const finish = () => {
        if (settled || termination === undefined) return;
        settled = true;
        if (child?.pid !== undefined) releaseGroup(child.pid);
        // Our ends of the pipes are closed: a background process the hook left behind keeps running,
        // but holds nothing of the host open (it gets EPIPE/SIGPIPE if it writes to stdout later).
        release();
        subscriber.next(
          classifyProcess({
            termination,
            stdout: stdout.text(),
            stdoutOverflow: stdout.overflow,
            stdoutLimit: settings.stdoutLimit,
            stderr: stderr.text(),
            ...(stderr.cut && firstLine.line !== undefined && { stderrFirstLine: firstLine.line }),
          }),
        );
        subscriber.complete();
      };

      /** The process could not start: a refusal waits for another try, anything else is the result. */
      const failedToStart = (error: unknown) => {
        if (termination !== undefined || settled) return;
        const current = child;
        child = undefined;
        current?.stdin?.destroy();
        current?.stdout?.destroy();
        current?.stderr?.destroy();
        const code = errorCode(error);
        if (code !== undefined && OUT_OF_DESCRIPTORS.has(code)) checkDescriptors = true;
        if (code !== undefined && REFUSALS.has(code)) {
          slotHeld = false;
          cancelWait = slots.refused(start);
          return;
        }
        exited = true;
        termination = notStarted(file, error);
        finish();
      };

      const start = () => {
        begun = true;
        cancelWait = noWait;
        slotHeld = true;
        exited = false;
        closed = false;
        stdout = headBuffer(settings.stdoutLimit);
        stderr = tailBuffer(settings.stderrLimit);
        firstLine = firstStderrLine();
        if (checkDescriptors && !descriptorsFree(SPAWN_DESCRIPTORS)) {
          failedToStart(outOfDescriptors);
          return;
        }
        let spawned: ChildProcess;
        try {
          spawned = spawnHook(file, args, hook, event);
        } catch (error) {
          // Synchronous refusals by Node: a NUL byte in the command, E2BIG, and the like.
          failedToStart(error);
          return;
        }
        child = spawned;
        // Node reports a process that could not start with `error` and no `exit`; for EMFILE and
        // ENFILE it does not even make the pipes.
        spawned.on('error', (error: unknown) => {
          if (spawned.pid === undefined && child === spawned) failedToStart(error);
        });
        if (!hasPipes(spawned)) return;
        spawned.stdin.on('error', ignore);
        spawned.stdout.on('error', ignore);
        spawned.stderr.on('error', ignore);
        spawned.stdout.on('data', (chunk: Buffer) => {
          if (stdout.push(chunk) && spawned.pid !== undefined) signalGroup(spawned.pid, 'SIGKILL');
        });
        spawned.stderr.on('data', (chunk: Buffer) => {
          stderr.push(chunk);
          const reported = firstLine.push(chunk);
          if (reported !== undefined && !settled)
            subscriber.next({ progress: 'stderr', firstLine: reported });
        });
        spawned.once('exit', (exitCode: number | null, signal: NodeJS.Signals | null) => {
          exited = true;
          giveSlot();
          if (settled) return;
          termination =
            signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', exitCode: exitCode ?? 0 };
          // The hook is done: its deadline stops here, and the drain below is bounded by drainMs.
          subscriber.next({ progress: 'exited' });
          // The timer runs before the poll phase of its loop turn: after a busy stretch (a burst of
          // spawns), output already sitting in the pipe would be lost. setImmediate runs after one
          // more poll, which reads it.
          drainTimer = setTimeout(() => setImmediate(finish), settings.drainMs);
        });
        // `close` = exited and every pipe reached EOF: the usual way a hook ends, with no drain wait.
        // A refused attempt closes too (Node made its pipes, then failed): that is not the end.
        spawned.once('close', () => {
          if (child === spawned) finish();
        });
        if (spawned.pid !== undefined) {
          ownGroup(spawned.pid);
          spawned.stdin.end(line);
        }
      };

      const cancelTake = slots.take(start);
      // `start` may have run (or even been refused) inside `take`: keep what it set then.
      if (!begun) cancelWait = cancelTake;

      return () => {
        cancelWait();
        if (settled) return;
        settled = true;
        const running = child;
        release();
        const pgid = running?.pid;
        if (pgid === undefined) return;
        if (signalGroup(pgid, 'SIGTERM')) {
          // Kept referenced on purpose: a grandchild that ignores SIGTERM must still die even if the
          // host is about to exit. The hook process itself may be gone by now; its group is not.
          setTimeout(() => {
            releaseGroup(pgid);
            signalGroup(pgid, 'SIGKILL');
          }, settings.killGraceMs);
        } else {
          releaseGroup(pgid);
        }
      };
    });
};

/**
 * The real executor, for every hook kind: a command hook as a process per event (above), except
 * hooks with `persistent: true`, answered by one long-running process per hook and run
 * (`./persistent.ts`, SPEC §8); a function hook in process (`hookExecutor`). The result is
 * run-scoped: `hookPipeline` opens it per run and ends its processes with the run.
 *
 * Example: `hookPipeline(registry, defaultDeps(execaExecutor()))(events$)`
 */
export const execaExecutor = (
  options: ExecaExecutorOptions & PersistentHookOptions = {},
): RunScopedExecutor => hookExecutor(withPersistentHooks(perEventExecutor(options), options));

/**
 * Spawns a hook process: its own process group (`detached`), a pipe on every stdio, the event's
 * folder as cwd and the environment of SPEC §4.2.
 */
const spawnHook = (
  file: string,
  args: readonly string[],
  hook: CommandHook,
  event: HookEvent,
): ChildProcess =>
  spawn(file, args, {
    detached: true,
    stdio: 'pipe',
    cwd: hookCwd(event.cwd),
    env: hookEnvironment(hook, event, process.env, process.cwd()),
  });
