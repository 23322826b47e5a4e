import { statSync } from 'node:fs';
import { execa } from 'execa';
import { Observable } from 'rxjs';
import type { HookEvent } from '../events/codecs.js';
import { failure } from '../protocol/result.js';
import type { CommandHook } from '../registry/hook.js';
import { classifyProcess, type Termination } from './classify.js';
import { invocationOf } from './command.js';
import { withPersistentHooks, type PersistentHookOptions } from './persistent.js';
import type { HookExecutor, RunScopedExecutor } from './port.js';

export interface ExecaExecutorOptions {
  /** How long to keep reading stdout/stderr after the hook process exited. Default 100 ms. */
  readonly drainMs?: number;
  /** Delay between SIGTERM and SIGKILL to the process group on cancellation. Default 500 ms. */
  readonly killGraceMs?: number;
  /** stdout bytes kept; more is `output_too_large` and the group is killed. Default 1 MiB. */
  readonly stdoutLimit?: number;
  /** stderr bytes kept (the tail), for messages only. Default 64 KiB. */
  readonly stderrLimit?: number;
}

const DEFAULTS: Required<ExecaExecutorOptions> = {
  drainMs: 100,
  killGraceMs: 500,
  stdoutLimit: 1024 * 1024,
  stderrLimit: 64 * 1024,
};

const ignore = (): void => undefined;

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
  return {
    push(chunk: Buffer): void {
      chunks.push(chunk);
      size += chunk.length;
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

const notStarted = (file: string, error: unknown): Termination => {
  const code = errorCode(error);
  return {
    kind: 'not_started',
    file,
    ...(code !== undefined && { code }),
    message: error instanceof Error ? error.message : String(error),
  };
};

const hookEnv = (hook: CommandHook, event: HookEvent): Record<string, string> => ({
  ...hook.env,
  COSH_HOOK_EVENT: event.hook_event_name,
  COSH_HOOK_NAME: hook.name,
  COSH_SESSION_ID: event.session_id,
});

/**
 * The real executor (SPEC §4.2–4.5): runs a command hook as a process in its own process group and
 * emits its classified `HookResult`.
 *
 * - Cold: spawns on subscribe; emits progress notices (`stderr`: the first stderr line as it comes;
 *   `exited`: the process ended), then exactly one result, then completes; never errors (a process
 *   that cannot start is a `spawn` result).
 * - stdin gets the event as one JSON line, then EOF; a hook that never reads it is fine (EPIPE is
 *   ignored).
 * - The result is taken when the hook process exits, after at most `drainMs` more of stdout; a
 *   background process that still holds the pipe does not delay it and is left running.
 * - Unsubscribing before the result (the stream's timeout, or cancellation) sends SIGTERM to the
 *   whole group, then SIGKILL after `killGraceMs`, even if the hook process itself is already gone.
 * - More than `stdoutLimit` bytes of stdout: the group is killed at once, `output_too_large`.
 *
 * Built on execa with `buffer: false` and `reject: false`: this module reads the streams itself, so
 * it can stop at the hook's exit instead of at the pipes' end, and nothing execa does can throw.
 *
 * Example: `hookPipeline(registry, defaultDeps(execaExecutor()))(events$)`
 */
const perEventExecutor = (options: ExecaExecutorOptions): HookExecutor => {
  const settings = { ...DEFAULTS, ...options };
  return (hook, event) =>
    new Observable((subscriber) => {
      const { file, args } = invocationOf(hook.command);
      let line: string;
      let child: ReturnType<typeof spawnHook>;
      try {
        line = `${JSON.stringify(event)}\n`;
        child = spawnHook(file, args, hook, event);
      } catch (error) {
        // execa reports spawn errors as values; this catches a non-serializable event and
        // anything execa's option checks throw synchronously.
        subscriber.next(
          failure('spawn', `could not start: ${error instanceof Error ? error.message : String(error)}`),
        );
        subscriber.complete();
        return undefined;
      }

      const stdout = headBuffer(settings.stdoutLimit);
      const stderr = tailBuffer(settings.stderrLimit);
      let termination: Termination | undefined;
      let settled = false;
      let drainTimer: NodeJS.Timeout | undefined;

      const release = () => {
        clearTimeout(drainTimer);
        child.stdin.destroy();
        child.stdout.destroy();
        child.stderr.destroy();
      };

      const finish = () => {
        if (settled || termination === undefined) return;
        settled = true;
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
          }),
        );
        subscriber.complete();
      };

      child.stdin.on('error', ignore);
      child.stdout.on('error', ignore);
      child.stderr.on('error', ignore);
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.push(chunk) && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      });
      const firstLine = firstStderrLine();
      child.stderr.on('data', (chunk: Buffer) => {
        stderr.push(chunk);
        const line = firstLine.push(chunk);
        if (line !== undefined && !settled) subscriber.next({ progress: 'stderr', firstLine: line });
      });
      child.on('error', (error: unknown) => {
        // Node emits `error` without `exit` when the process could not be spawned.
        if (child.pid !== undefined || termination !== undefined) return;
        termination = notStarted(file, error);
        finish();
      });
      child.once('exit', (exitCode: number | null, signal: NodeJS.Signals | null) => {
        termination =
          signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', exitCode: exitCode ?? 0 };
        if (settled) return;
        // The hook is done: its deadline stops here, and the drain below is bounded by drainMs.
        subscriber.next({ progress: 'exited' });
        drainTimer = setTimeout(finish, settings.drainMs);
      });
      // `close` = exited and every pipe reached EOF: the usual way a hook ends, with no drain wait.
      child.once('close', finish);
      // With `reject: false` the promise always fulfils; it is the only report of an early error
      // (spawn threw synchronously, e.g. a NUL byte in the command), where no event ever fires.
      child.then((result) => {
        if (termination !== undefined || child.pid !== undefined) return;
        termination = notStarted(file, result.cause ?? new Error(result.shortMessage));
        finish();
      }, ignore);

      if (child.pid !== undefined) child.stdin.end(line);

      return () => {
        if (settled) return;
        settled = true;
        release();
        const pgid = child.pid;
        if (pgid !== undefined && signalGroup(pgid, 'SIGTERM')) {
          // Kept referenced on purpose: a grandchild that ignores SIGTERM must still die even if the
          // host is about to exit. The hook process itself may be gone by now; its group is not.
          setTimeout(() => signalGroup(pgid, 'SIGKILL'), settings.killGraceMs);
        }
      };
    });
};

/**
 * The real executor: every command hook as a process per event (above), except hooks with
 * `persistent: true`, answered by one long-running process per hook and run (`./persistent.ts`,
 * SPEC §8). The result is run-scoped: `hookPipeline` opens it per run and ends its processes with
 * the run.
 *
 * Example: `hookPipeline(registry, defaultDeps(execaExecutor()))(events$)`
 */
export const execaExecutor = (
  options: ExecaExecutorOptions & PersistentHookOptions = {},
): RunScopedExecutor => withPersistentHooks(perEventExecutor(options), options);

/**
 * The execa options of every hook process: its own process group, pipes read by this module
 * (no buffering, no encoding), errors as values, and no execa-side killing or cleanup (the
 * executor kills the whole group itself).
 */
export const HOOK_PROCESS_OPTIONS = {
  detached: true,
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'pipe',
  buffer: false,
  encoding: 'buffer',
  stripFinalNewline: false,
  reject: false,
  cleanup: false,
  forceKillAfterDelay: false,
} as const;

const spawnHook = (file: string, args: readonly string[], hook: CommandHook, event: HookEvent) =>
  execa(file, args, { ...HOOK_PROCESS_OPTIONS, cwd: hookCwd(event.cwd), env: hookEnv(hook, event) });
