import { statSync } from 'node:fs';
import { Observable } from 'rxjs';
import { failure } from '../protocol/result.js';
import { classifyProcess, type Termination } from './classify.js';
import { invocationOf } from './command.js';
import { firstStderrLine, headBuffer, tailBuffer } from './output-buffers.js';
import { ownGroup, releaseGroup, signalGroup } from './groups.js';
import { DEFAULT_SPAWN_HELPER_MIN_RSS, spawnerFor, type SpawnHelperOptions } from './helper-client.js';
import { hookEnvironment } from './hook-env.js';
import { withPersistentHooks, type PersistentHookOptions } from './persistent.js';
import { hookExecutor } from './hook-executor.js';
import type { CommandExecutor, RunScopedExecutor } from './port.js';
import { ProcessSlots } from './process-slots.js';
import { DEFAULT_MAX_PROCESSES } from './limits.js';
import { errorCode, notStartedTermination, type ProcessHandle, type Spawner } from './spawn.js';
import { describeThrown } from '../events/untrusted.js';
import type { HookEvent } from '../events/codecs.js';

/** Limits of the real executor; every field has a default (docs/execution.md). */
export interface ExecaExecutorOptions extends SpawnHelperOptions {
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

export { DEFAULT_MAX_PROCESSES };

const DEFAULTS = {
  drainMs: 100,
  killGraceMs: 500,
  stdoutLimit: 1024 * 1024,
  stderrLimit: 64 * 1024,
  maxProcesses: DEFAULT_MAX_PROCESSES,
};

const noWait = (): void => undefined;

/**
 * Each event's stdin line, made once however many hooks of its chain read it: for a 30 MB event,
 * serializing and encoding it is tens of milliseconds of the one event loop every session shares.
 */
const eventLines = new WeakMap<HookEvent, Buffer>();

const eventLine = (event: HookEvent): Buffer => {
  let line = eventLines.get(event);
  if (line === undefined) {
    line = Buffer.from(`${JSON.stringify(event)}\n`);
    eventLines.set(event, line);
  }
  return line;
};

/** The event's folder when it is an existing directory, else the host's (SPEC §4.2). */
const hookCwd = (cwd: string | undefined): string => {
  if (cwd === undefined || cwd === '') return process.cwd();
  try {
    return statSync(cwd, { throwIfNoEntry: false })?.isDirectory() === true ? cwd : process.cwd();
  } catch {
    return process.cwd();
  }
};

/** The system refused a process or a pipe for now: wait and try again (SPEC §4.2). */
const REFUSALS = new Set(['EMFILE', 'ENFILE', 'EAGAIN']);

/**
 * The real executor (SPEC §4.2–4.5): runs a command hook as a process in its own process group and
 * emits its classified `HookResult`.
 *
 * - Cold: spawns on subscribe; emits progress notices (`queued` then `started`: it had to wait to
 *   start; `stderr`: the first stderr line as it comes; `exited`: the process ended), then exactly
 *   one result, then completes; never errors (a process that cannot start is a `spawn` result).
 * - At most `maxProcesses` hook processes of this executor run at once: a hook beyond that waits
 *   for one to end. When the system refuses a process or a pipe (EMFILE, ENFILE, EAGAIN) the hook
 *   waits too, and starts when a running hook ends or after a short back-off. Waiting is inside
 *   the Observable, announced by `queued` (so the stream's deadline leaves it out and bounds it on
 *   its own), and unsubscribing cancels it.
 * - stdin gets the event as one JSON line, then EOF; a hook that never reads it is fine (EPIPE is
 *   ignored).
 * - The result is taken when the hook process exits, after at most `drainMs` more of stdout; a
 *   background process that still holds the pipe does not delay it and is left running.
 * - Unsubscribing before the result (the stream's timeout, or cancellation) sends SIGTERM to the
 *   whole group, then SIGKILL after `killGraceMs`, even if the hook process itself is already gone.
 * - More than `stdoutLimit` bytes of stdout: the group is killed at once, `output_too_large`.
 *
 * Processes start through `spawn`: `startProcess` directly, or the spawn helper (`spawnHelper`).
 */
const perEventExecutor = (options: ExecaExecutorOptions, spawn: Spawner): CommandExecutor => {
  const settings = { ...DEFAULTS, ...options };
  if (!Number.isSafeInteger(settings.maxProcesses) || settings.maxProcesses < 1) {
    throw new RangeError(`maxProcesses must be a positive integer, got ${String(settings.maxProcesses)}`);
  }
  const slots = new ProcessSlots(settings.maxProcesses);
  return (hook, event) =>
    new Observable((subscriber) => {
      const { file, args } = invocationOf(hook.command);
      let line: Buffer;
      try {
        line = eventLine(event);
      } catch (error) {
        subscriber.next(failure('spawn', `could not start: ${describeThrown(error)}`));
        subscriber.complete();
        return undefined;
      }

      /** The running attempt: its handle and group; replaced on a retry after a refusal. */
      let handle: ProcessHandle | undefined;
      let pgid: number | undefined;
      /** Counts attempts, so callbacks of a refused one are ignored. */
      let attempt = 0;
      /** Cancels the wait for a slot; replaced by the running process's teardown once it starts. */
      let cancelWait = noWait;
      let begun = false;
      /** The process has started (its pid is known); `queued` says that it had to wait for it. */
      let running = false;
      let queued = false;
      let settled = false;
      let drainTimer: NodeJS.Timeout | undefined;
      // Made per attempt in `start` (a refused attempt starts over).
      let stdout: ReturnType<typeof headBuffer> | undefined;
      let stderr: ReturnType<typeof tailBuffer> | undefined;
      let firstLine: ReturnType<typeof firstStderrLine> | undefined;
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
        handle?.detach();
        closed = true;
        giveSlot();
      };

      const finish = () => {
        if (settled || termination === undefined) return;
        settled = true;
        if (pgid !== undefined) releaseGroup(pgid);
        // Our ends of the pipes are closed: a background process the hook left behind keeps running,
        // but holds nothing of the host open (it gets EPIPE/SIGPIPE if it writes to stdout later).
        release();
        subscriber.next(
          classifyProcess({
            termination,
            stdout: stdout?.text() ?? '',
            stdoutOverflow: stdout?.overflow ?? false,
            stdoutLimit: settings.stdoutLimit,
            stderr: stderr?.text() ?? '',
            ...(stderr?.cut === true && firstLine?.line !== undefined && { stderrFirstLine: firstLine.line }),
          }),
        );
        subscriber.complete();
      };

      const start = () => {
        begun = true;
        cancelWait = noWait;
        slotHeld = true;
        exited = false;
        closed = false;
        const out = (stdout = headBuffer(settings.stdoutLimit));
        const err = (stderr = tailBuffer(settings.stderrLimit));
        const first = (firstLine = firstStderrLine());
        const current = (attempt += 1);
        const live = () => current === attempt && !settled;
        const runDir = hookCwd(event.cwd);
        const spec = {
          file,
          args,
          cwd: runDir,
          env: hookEnvironment(hook, event, process.env, process.cwd(), runDir),
        };
        const started = spawn(spec, {
          started: (pid) => {
            if (!live()) return;
            pgid = pid;
            ownGroup(pid, () => started.release());
            running = true;
            // The hook's own deadline starts now, not when it was queued (docs/execution.md).
            if (queued) subscriber.next({ progress: 'started' });
          },
          notStarted: (error) => {
            if (current !== attempt) return;
            if (settled) {
              // Cancelled before it was known not to start: the slot it held is free now.
              exited = true;
              giveSlot();
              return;
            }
            handle = undefined;
            if (REFUSALS.has(errorCode(error) ?? '')) {
              // The system refused a process or a pipe for now: first in line again (SPEC §4.2).
              slotHeld = false;
              cancelWait = slots.refused(start);
              return;
            }
            exited = true;
            closed = true;
            termination = notStartedTermination(file, error);
            finish();
          },
          stdout: (chunk) => {
            if (out.push(chunk) && pgid !== undefined) signalGroup(pgid, 'SIGKILL');
          },
          stderr: (chunk) => {
            err.push(chunk);
            const reported = first.push(chunk);
            if (reported !== undefined && !settled)
              subscriber.next({ progress: 'stderr', firstLine: reported });
          },
          exit: (exitCode, signal) => {
            exited = true;
            giveSlot();
            if (settled || !live()) return;
            termination =
              signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', exitCode: exitCode ?? 0 };
            // The hook is done: its deadline stops here, and the drain below is bounded by drainMs.
            subscriber.next({ progress: 'exited' });
            // The timer runs before the poll phase of its loop turn: after a busy stretch (a burst
            // of spawns), output already sitting in the pipe would be lost. setImmediate runs after
            // one more poll, which reads it.
            drainTimer = setTimeout(() => setImmediate(finish), settings.drainMs);
          },
          // `close` = exited and every pipe reached EOF: the usual way a hook ends, with no drain wait.
          close: () => {
            if (live()) finish();
          },
          lost: (reason) => {
            if (!live()) return;
            exited = true;
            termination = { kind: 'lost', message: reason };
            finish();
          },
        });
        handle = started;
        started.end(line);
      };

      const cancelTake = slots.take(start);
      // `start` may have run (or even been refused) inside `take`: keep what it set then.
      if (!begun) cancelWait = cancelTake;
      // Not running yet (no free slot, a refusal, or the spawn helper's answer still to come): the
      // wait is not the hook's own time.
      if (!running && !settled) {
        queued = true;
        subscriber.next({
          progress: 'queued',
          waitingFor: begun ? 'its process to start' : 'a process slot',
        });
      }

      return () => {
        cancelWait();
        if (settled) return;
        settled = true;
        release();
        const group = pgid;
        if (group === undefined) return;
        if (signalGroup(group, 'SIGTERM')) {
          // Kept referenced on purpose: a grandchild that ignores SIGTERM must still die even if the
          // host is about to exit. The hook process itself may be gone by now; its group is not.
          setTimeout(() => {
            releaseGroup(group);
            signalGroup(group, 'SIGKILL');
          }, settings.killGraceMs);
        } else {
          releaseGroup(group);
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
): RunScopedExecutor => {
  const spawn = spawnerFor(
    options.spawnHelper ?? 'auto',
    options.spawnHelperMinRss ?? DEFAULT_SPAWN_HELPER_MIN_RSS,
  );
  return hookExecutor(withPersistentHooks(perEventExecutor(options, spawn), options, spawn));
};
