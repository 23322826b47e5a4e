import { DEFAULT_MAX_PROCESSES } from '../limits.js';
import { statSync } from 'node:fs';
import { Observable, type Subscriber } from 'rxjs';
import type { HookEvent } from '../../events/codecs.js';
import { describeThrown } from '../../events/untrusted.js';
import { failure } from '../../protocol/result.js';
import type { CommandHook } from '../../registry/hook.js';
import { ownGroup, releaseGroup, signalGroup } from '../groups/groups.js';
import { killWithGrace } from '../groups/kill.js';
import type { SpawnHelperOptions } from '../helper/helper-client.js';
import type { CommandExecutor, HookEmission } from '../port.js';
import { classifyProcess, type Termination } from './classify.js';
import { invocationOf } from './command.js';
import { hookEnvironment } from './hook-env.js';
import { firstStderrLine, headBuffer, tailBuffer } from './output-buffers.js';
import { ProcessSlots } from './process-slots.js';
import {
  errorCode,
  notStartedTermination,
  type ProcessHandle,
  type ProcessSpec,
  type Spawner,
} from './spawn.js';

/** Limits of the process executor; every field has a default (docs/execution.md). */
export interface ProcessExecutorOptions extends SpawnHelperOptions {
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
   * timeout (spec §4.2). Default 32.
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

type Settings = typeof DEFAULTS;

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

/** The event's folder when it is an existing directory, else the host's (spec §4.2). */
const hookCwd = (cwd: string | undefined): string => {
  if (cwd === undefined || cwd === '') return process.cwd();
  try {
    return statSync(cwd, { throwIfNoEntry: false })?.isDirectory() === true ? cwd : process.cwd();
  } catch {
    return process.cwd();
  }
};

/** The system refused a process or a pipe for now: wait and try again (spec §4.2). */
const REFUSALS = new Set(['EMFILE', 'ENFILE', 'EAGAIN']);

/**
 * The process slot one attempt holds: given back once, when its process has exited and our pipe
 * ends are closed (or never, when the system refused the attempt and took the slot back itself).
 */
class SlotHold {
  private held = true;
  private exited = false;
  private closed = false;

  constructor(private readonly slots: ProcessSlots) {}

  /** The process exited (or, cancelled first, turned out never to start). */
  exit(): void {
    this.exited = true;
    this.giveBack();
  }

  /** Our pipe ends are closed. */
  close(): void {
    this.closed = true;
    this.giveBack();
  }

  /** The system refused the attempt: `ProcessSlots.refused` takes the slot back. */
  drop(): void {
    this.held = false;
  }

  private giveBack(): void {
    if (this.held && this.exited && this.closed) {
      this.held = false;
      this.slots.give();
    }
  }
}

/** What one attempt reads from its process, bounded. */
interface Output {
  readonly stdout: ReturnType<typeof headBuffer>;
  readonly stderr: ReturnType<typeof tailBuffer>;
  readonly firstLine: ReturnType<typeof firstStderrLine>;
}

/**
 * One hook run for one event, from its subscription to its one result: waits for a slot, starts
 * the process (again, after a refusal), reads it, and classifies how it ended, or is cancelled.
 */
class EventProcess {
  /** Counts attempts, so callbacks of a refused one are ignored. */
  private attempt = 0;
  /** The running attempt: its handle, group, slot and output; replaced on a retry after a refusal. */
  private handle: ProcessHandle | undefined;
  private pgid: number | undefined;
  private hold: SlotHold | undefined;
  private output: Output | undefined;
  /** How the process ended, once known. */
  private termination: Termination | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  /** Cancels the wait for a slot (or for a retry); a no-op once an attempt has started. */
  private cancelWait = noWait;
  /** An attempt was made (the slot was taken at least once). */
  private begun = false;
  /** The process has started (its pid is known); `queued` says that it had to wait for it. */
  private running = false;
  private queued = false;
  /** The result is out, or the run was cancelled: nothing more is emitted. */
  private settled = false;

  constructor(
    private readonly settings: Settings,
    private readonly slots: ProcessSlots,
    private readonly spawn: Spawner,
    private readonly hook: CommandHook,
    private readonly invocation: { readonly file: string; readonly args: readonly string[] },
    private readonly event: HookEvent,
    private readonly line: Buffer,
    private readonly subscriber: Subscriber<HookEmission>,
  ) {}

  /** Takes a slot (or queues for one, announced by `queued`); returns the teardown. */
  subscribe(): () => void {
    const cancelTake = this.slots.take(() => this.start());
    // `start` may have run (or even been refused) inside `take`: keep what it set then.
    if (!this.begun) this.cancelWait = cancelTake;
    // Not running yet (no free slot, a refusal, or the spawn helper's answer still to come): the
    // wait is not the hook's own time.
    if (!this.running && !this.settled) {
      this.queued = true;
      this.subscriber.next({
        progress: 'queued',
        waitingFor: this.begun ? 'its process to start' : 'a process slot',
      });
    }
    return () => this.cancel();
  }

  private start(): void {
    this.begun = true;
    this.cancelWait = noWait;
    this.hold = new SlotHold(this.slots);
    this.output = {
      stdout: headBuffer(this.settings.stdoutLimit),
      stderr: tailBuffer(this.settings.stderrLimit),
      firstLine: firstStderrLine(),
    };
    const { file, args } = this.invocation;
    const cwd = hookCwd(this.event.cwd);
    const spec: ProcessSpec = {
      file,
      args,
      cwd,
      env: hookEnvironment(this.hook, this.event, process.env, process.cwd(), cwd),
    };
    this.attempt += 1;
    const started = this.spawn(
      spec,
      this.listen(this.attempt, file, this.hold, this.output, () => started),
    );
    this.handle = started;
    started.end(this.line);
  }

  /** The callbacks of one attempt; `handle` is the attempt's handle, known once `spawn` returned. */
  private listen(
    current: number,
    file: string,
    hold: SlotHold,
    output: Output,
    handle: () => ProcessHandle,
  ): Parameters<Spawner>[1] {
    const live = () => current === this.attempt && !this.settled;
    return {
      started: (pid) => {
        if (!live()) return;
        this.pgid = pid;
        ownGroup(pid, () => handle().release());
        this.running = true;
        // The hook's own deadline starts now, not when it was queued (docs/execution.md).
        if (this.queued) this.subscriber.next({ progress: 'started' });
      },
      notStarted: (error) => {
        if (current !== this.attempt) return;
        if (this.settled) {
          // Cancelled before it was known not to start: the slot it held is free now.
          hold.exit();
          return;
        }
        this.handle = undefined;
        if (REFUSALS.has(errorCode(error) ?? '')) {
          // The system refused a process or a pipe for now: first in line again (spec §4.2).
          hold.drop();
          this.cancelWait = this.slots.refused(() => this.start());
          return;
        }
        hold.exit();
        this.termination = notStartedTermination(file, error);
        this.finish();
      },
      stdout: (chunk) => {
        if (output.stdout.push(chunk) && this.pgid !== undefined) signalGroup(this.pgid, 'SIGKILL');
      },
      stderr: (chunk) => {
        output.stderr.push(chunk);
        const reported = output.firstLine.push(chunk);
        if (reported !== undefined && !this.settled)
          this.subscriber.next({ progress: 'stderr', firstLine: reported });
      },
      exit: (exitCode, signal) => {
        hold.exit();
        if (!live()) return;
        this.termination =
          signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', exitCode: exitCode ?? 0 };
        // The hook is done: its deadline stops here, and the drain below is bounded by drainMs.
        this.subscriber.next({ progress: 'exited' });
        // The timer runs before the poll phase of its loop turn: after a busy stretch (a burst
        // of spawns), output already sitting in the pipe would be lost. setImmediate runs after
        // one more poll, which reads it.
        this.drainTimer = setTimeout(() => setImmediate(() => this.finish()), this.settings.drainMs);
      },
      // `close` = exited and every pipe reached EOF: the usual way a hook ends, with no drain wait.
      close: () => {
        if (live()) this.finish();
      },
      lost: (reason) => {
        if (!live()) return;
        hold.exit();
        this.termination = { kind: 'lost', message: reason };
        this.finish();
      },
    };
  }

  /** Stops reading: our pipe ends closed, the slot given back once the process has exited too. */
  private release(): void {
    clearTimeout(this.drainTimer);
    this.handle?.detach();
    this.hold?.close();
  }

  /** Emits the classified result, once the process's end is known. */
  private finish(): void {
    const termination = this.termination;
    if (this.settled || termination === undefined) return;
    this.settled = true;
    if (this.pgid !== undefined) releaseGroup(this.pgid);
    // Our ends of the pipes are closed: a background process the hook left behind keeps running,
    // but holds nothing of the host open (it gets EPIPE/SIGPIPE if it writes to stdout later).
    this.release();
    const output = this.output;
    this.subscriber.next(
      classifyProcess({
        termination,
        stdout: output?.stdout.text() ?? '',
        stdoutOverflow: output?.stdout.overflow ?? false,
        stdoutLimit: this.settings.stdoutLimit,
        stderr: output?.stderr.text() ?? '',
        ...(output?.stderr.cut === true &&
          output.firstLine.line !== undefined && { stderrFirstLine: output.firstLine.line }),
      }),
    );
    this.subscriber.complete();
  }

  /** Unsubscribed before the result: the whole group gets SIGTERM, then SIGKILL after the grace. */
  private cancel(): void {
    this.cancelWait();
    if (this.settled) return;
    this.settled = true;
    this.release();
    const group = this.pgid;
    if (group === undefined) return;
    // Even if the hook process itself is already gone: its group may not be.
    killWithGrace([group], this.settings.killGraceMs, () => releaseGroup(group));
  }
}

/**
 * Command hooks as one process per event (spec §4.2–4.5): runs a command hook as a process in its
 * own process group and emits its classified `HookResult`.
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
 *   whole group, then SIGKILL after `killGraceMs` (`killWithGrace`), even if the hook process
 *   itself is already gone.
 * - More than `stdoutLimit` bytes of stdout: the group is killed at once, `output_too_large`.
 *
 * Processes start through `spawn`: `startProcess` directly, or the spawn helper (`spawnHelper`).
 */
export const perEventExecutor = (options: ProcessExecutorOptions, spawn: Spawner): CommandExecutor => {
  const settings = { ...DEFAULTS, ...options };
  if (!Number.isSafeInteger(settings.maxProcesses) || settings.maxProcesses < 1) {
    throw new RangeError(`maxProcesses must be a positive integer, got ${String(settings.maxProcesses)}`);
  }
  const slots = new ProcessSlots(settings.maxProcesses);
  return (hook, event) =>
    new Observable((subscriber) => {
      const invocation = invocationOf(hook.command);
      let line: Buffer;
      try {
        line = eventLine(event);
      } catch (error) {
        subscriber.next(failure('spawn', `could not start: ${describeThrown(error)}`));
        subscriber.complete();
        return undefined;
      }
      return new EventProcess(settings, slots, spawn, hook, invocation, event, line, subscriber).subscribe();
    });
};
