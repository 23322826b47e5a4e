import { defer, finalize, Observable, type Subscriber } from 'rxjs';
import type { HookEvent } from '../../events/codecs.js';
import { failure, type HookResult } from '../../protocol/result.js';
import type { CommandHook } from '../../registry/hook.js';
import { keptStderr, type Termination } from '../process/classify.js';
import { invocationOf } from '../process/command.js';
import { ownGroup, releaseGroup, signalGroup } from '../groups/groups.js';
import { killWithGrace } from '../groups/kill.js';
import {
  DEFAULT_SPAWN_HELPER_MIN_RSS,
  spawnerFor,
  type SpawnHelperOptions,
} from '../helper/helper-client.js';
import { persistentHookEnvironment } from '../process/hook-env.js';
import { firstStderrLine, tailBuffer } from '../process/output-buffers.js';
import { describeThrown } from '../../events/untrusted.js';
import {
  backoffDelay,
  backoffFailure,
  classifyDeath,
  DEFAULT_BACKOFF,
  isCrash,
  newRequestId,
  readAnswerLine,
  requestLine,
  tooLargeAnswer,
  type Backoff,
} from './persistent-answer.js';
import type { CommandExecutor, ExecutorRun, HookEmission, RunScopedExecutor } from '../port.js';
import { notStartedTermination, type ProcessHandle, type Spawner } from '../process/spawn.js';

/** Options of the persistent hook processes (spec §8) that `processExecutor` runs. */
export interface PersistentHookOptions extends SpawnHelperOptions {
  /** Delay between closing stdin (run end) or SIGTERM (timeout, cancel) and SIGKILL. Default 500 ms. */
  readonly killGraceMs?: number;
  /** Longest answer line in bytes; longer is `output_too_large` and the process is killed. Default 1 MiB. */
  readonly stdoutLimit?: number;
  /** stderr bytes kept per request (the tail), for messages and fail_closed. Default 64 KiB. */
  readonly stderrLimit?: number;
  /** Working folder of persistent processes (spec §8: the workspace). Default the host's cwd. */
  readonly workspace?: string;
  /** How restarts of a hook that keeps dying are spaced. Default 100 ms doubling up to 10 s. */
  readonly backoff?: Backoff;
  /** The clock of the back-off, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

interface Settings {
  readonly killGraceMs: number;
  readonly stdoutLimit: number;
  readonly stderrLimit: number;
  readonly workspace: string | undefined;
  readonly backoff: Backoff;
  readonly now: () => number;
  readonly spawn: Spawner;
}

const settingsOf = (options: PersistentHookOptions, spawn: Spawner | undefined): Settings => ({
  spawn:
    spawn ??
    spawnerFor(options.spawnHelper ?? 'auto', options.spawnHelperMinRss ?? DEFAULT_SPAWN_HELPER_MIN_RSS),
  killGraceMs: options.killGraceMs ?? 500,
  stdoutLimit: options.stdoutLimit ?? 1024 * 1024,
  stderrLimit: options.stderrLimit ?? 64 * 1024,
  workspace: options.workspace,
  backoff: options.backoff ?? DEFAULT_BACKOFF,
  now: options.now ?? Date.now,
});

const ignore = (): void => undefined;

// ----- process groups that must not outlive the host

/**
 * Every persistent process group still alive. A host that calls `process.exit` while a run is open
 * never gets to the run's end; the `exit` listener kills these groups synchronously then.
 */
const liveGroups = new Set<number>();

/**
 * The hooks holding a process now. An idle process does not keep the host's event loop alive (its
 * child and pipes are unreferenced between requests), so a host that never closes its run still
 * ends when it has nothing else to do: Node's `beforeExit` then ends every idle process the way a
 * run's end does (stdin closed, the grace period, the group killed), and the host exits after.
 */
const holders = new Set<PersistentHook>();
let hostListeners = false;

const listenToHost = (): void => {
  if (hostListeners) return;
  hostListeners = true;
  process.on('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
  process.on('beforeExit', () => {
    for (const hook of holders) hook.retireIdle();
  });
};

const track = (pgid: number, handle: () => ProcessHandle | undefined): void => {
  liveGroups.add(pgid);
  // Also owned in the process-wide set: a second signal to the CLI kills it at once (spec §6).
  ownGroup(pgid, () => handle()?.release());
};

/** The group is gone or killed: no longer ours. */
const forgetGroup = (pgid: number): void => {
  liveGroups.delete(pgid);
  releaseGroup(pgid);
};

const killGroupNow = (pgid: number): void => {
  if (pgid === 0) return;
  signalGroup(pgid, 'SIGKILL');
  forgetGroup(pgid);
};

/** SIGTERM now, SIGKILL after `graceMs` (a referenced timer: a host about to exit waits for it). */
const killGroupGracefully = (pgid: number, graceMs: number): void =>
  killWithGrace([pgid], graceMs, () => forgetGroup(pgid));

// ----- one request, one process, one hook

/** One event waiting for (or being answered by) a persistent process. */
interface Request {
  /** The event as sent (the hook's dialect's shape), kept to send it again to a fresh process. */
  readonly event: object;
  /** This request's `cosh_request_id`: only a line holding it answers. New for every write. */
  id: string;
  /** The line written for it: the event and the id (made once: an event may be tens of MB). */
  line: string;
  readonly subscriber: Subscriber<HookEmission>;
  stderr: ReturnType<typeof tailBuffer>;
  firstLine: ReturnType<typeof firstStderrLine>;
  /** Sent again once already, after a recycling process exited without reading it. */
  resent: boolean;
}

/**
 * The stderr a request's failure keeps: the tail, led by the first non-blank line written since the
 * request when the tail no longer holds it, so a fail_closed reason is that line however much the
 * hook wrote after it (spec §4.5, §8), as for a process per event.
 */
const requestStderr = (request: Request): string =>
  keptStderr({
    stderr: request.stderr.text(),
    ...(request.stderr.cut &&
      request.firstLine.line !== undefined && { stderrFirstLine: request.firstLine.line }),
  });

/** A running persistent process. */
interface Live {
  /** Our side of the process (set right after the spawn call). */
  handle: ProcessHandle | undefined;
  /** The process group; 0 until the process started, and when it never did. */
  pgid: number;
  /** Called when the process exits (the run's end waits for it). */
  onExit?: () => void;
  /** Bytes of the answer line read so far (no newline yet). */
  pending: Buffer[];
  pendingBytes: number;
  /** Requests it answered with their id: one that then exits with status 0 is recycling. */
  answered: number;
  /** Whether it keeps the host's event loop alive: only while a request is in flight. */
  referenced: boolean;
  /** What ended it, once the OS said so; its death is reported when its pipes are drained. */
  termination?: Termination;
  drainTimer?: NodeJS.Timeout;
}

/** How long to keep reading a dead process's pipes for its last stderr before reporting it. */
const DRAIN_MS = 100;

/**
 * One persistent hook of one run: at most one process, a FIFO of requests, one in flight at a
 * time. Every process event is checked against `this.live`, so a replaced process's late events
 * are ignored.
 */
class PersistentHook {
  private live: Live | undefined;
  private readonly queue: Request[] = [];
  private current: Request | undefined;
  private failures = 0;
  private lastFailure: string | undefined;
  private nextStartAt = 0;
  private closed = false;

  constructor(
    private readonly hook: CommandHook,
    private readonly settings: Settings,
  ) {}

  /**
   * Queues the event; the returned teardown withdraws it (queued) or kills the process (in flight).
   * Emits `started` when the event is written to the process (the hook's own time starts there),
   * and `queued` first when it has to wait for an earlier request's answer.
   */
  request(event: HookEvent, subscriber: Subscriber<HookEmission>): () => void {
    if (this.closed) {
      this.emit(subscriber, failure('spawn', 'the run has ended'));
      return ignore;
    }
    const id = newRequestId();
    let line: string;
    try {
      line = requestLine(event, id);
    } catch (error) {
      this.emit(subscriber, failure('spawn', `could not send the event: ${describeThrown(error)}`));
      return ignore;
    }
    const request: Request = {
      event,
      id,
      line,
      subscriber,
      stderr: tailBuffer(this.settings.stderrLimit),
      firstLine: firstStderrLine(),
      resent: false,
    };
    this.queue.push(request);
    this.pump();
    if (this.queue.includes(request))
      subscriber.next({ progress: 'queued', waitingFor: 'its persistent process' });
    return () => this.withdraw(request);
  }

  /** Ends the run: stdin closed, `killGraceMs` to exit, then the group is killed (spec §8). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const request of this.queue.splice(0))
      this.emit(request.subscriber, failure('spawn', 'the run has ended'));
    const live = this.live;
    this.setLive(undefined);
    if (live === undefined) return;
    const request = this.current;
    this.current = undefined;
    if (request !== undefined) {
      // Mid-answer: its state is unknown, as on cancellation.
      this.emit(request.subscriber, failure('spawn', 'the run has ended'));
      this.discard(live);
      return;
    }
    this.shutDown(live);
  }

  /**
   * The host has nothing left to do but this idle process: end it as at a run's end. The hook stays
   * usable: a later event starts a fresh process.
   */
  retireIdle(): void {
    const live = this.live;
    if (live === undefined || this.current !== undefined || this.queue.length > 0) return;
    this.setLive(undefined);
    this.shutDown(live);
  }

  /** Stdin closed, `killGraceMs` to exit, then its group killed; a dead one's group at once. */
  private shutDown(live: Live): void {
    if (live.termination !== undefined) {
      clearTimeout(live.drainTimer);
      killGroupNow(live.pgid);
      this.release(live);
      return;
    }
    live.handle?.end();
    const timer = setTimeout(() => {
      killGroupNow(live.pgid);
      this.release(live);
    }, this.settings.killGraceMs);
    live.onExit = () => {
      // Whatever it started in its group goes with it: nothing of a persistent hook outlives the run.
      clearTimeout(timer);
      killGroupNow(live.pgid);
      this.release(live);
    };
  }

  private withdraw(request: Request): void {
    const queued = this.queue.indexOf(request);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      return;
    }
    if (this.current !== request) return;
    // Cancelled or timed out mid-answer: the process is in an unknown state (it may still answer
    // this event later), so it is replaced by a fresh one.
    this.current = undefined;
    const live = this.live;
    this.setLive(undefined);
    if (live !== undefined) this.discard(live);
    this.pump();
  }

  /** Starts the next queued request when the process is free. */
  private pump(): void {
    while (this.current === undefined && !this.closed) {
      // A process already known dead (its death not yet reported) takes no request: it is let go
      // first, counting as a crash if it was one, and the request goes to a fresh process.
      if (this.live?.termination !== undefined) this.retire(this.live);
      const request = this.queue[0];
      if (request === undefined) break;
      if (this.live === undefined) {
        const waitMs = this.nextStartAt - this.settings.now();
        if (this.failures > 0 && waitMs > 0) {
          this.queue.shift();
          this.emit(request.subscriber, backoffFailure(this.failures, waitMs, this.lastFailure));
          continue;
        }
        this.setLive(this.start());
      }
      this.queue.shift();
      this.current = request;
      this.live?.handle?.write(request.line);
      request.subscriber.next({ progress: 'started' });
    }
    this.holdHost();
  }

  /** The process keeps the host alive only while a request is in flight (docs/execution.md). */
  private holdHost(): void {
    const live = this.live;
    if (live === undefined) return;
    const wanted = this.current !== undefined;
    if (live.referenced === wanted) return;
    live.referenced = wanted;
    live.handle?.ref(wanted);
  }

  private setLive(live: Live | undefined): void {
    this.live = live;
    if (live === undefined) holders.delete(this);
    else holders.add(this);
  }

  private start(): Live {
    const { file, args } = invocationOf(this.hook.command);
    const cwd = this.settings.workspace ?? process.cwd();
    const live: Live = {
      handle: undefined,
      pgid: 0,
      pending: [],
      pendingBytes: 0,
      answered: 0,
      referenced: true,
    };
    listenToHost();
    live.handle = this.settings.spawn(
      { file, args, cwd, env: persistentHookEnvironment(this.hook, process.env, cwd) },
      {
        started: (pid) => {
          live.pgid = pid;
          track(pid, () => live.handle);
        },
        notStarted: (error) => {
          if (live.termination !== undefined) return;
          live.termination = notStartedTermination(file, error);
          this.die(live);
        },
        stdout: (chunk) => this.onStdout(live, chunk),
        stderr: (chunk) => this.onStderr(live, chunk),
        exit: (exitCode, signal) => {
          live.onExit?.();
          if (live.termination !== undefined) return;
          live.termination =
            signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', exitCode: exitCode ?? 0 };
          if (this.live !== live) return;
          // An answer written just before exiting may still be in the pipe: read it before judging.
          live.drainTimer = setTimeout(() => this.die(live), DRAIN_MS);
        },
        close: () => {
          if (live.termination !== undefined) this.die(live);
        },
        lost: (reason) => {
          live.onExit?.();
          if (live.termination !== undefined) return;
          live.termination = { kind: 'lost', message: reason };
          this.die(live);
        },
      },
    );
    return live;
  }

  private onStdout(live: Live, chunk: Buffer): void {
    if (this.live !== live) return;
    const request = this.current;
    if (request === undefined) {
      // Output nobody asked for: the process is out of step, so it is replaced.
      this.setLive(undefined);
      this.discard(live);
      return;
    }
    const newline = chunk.indexOf(0x0a);
    const head = newline < 0 ? chunk : chunk.subarray(0, newline);
    live.pending.push(head);
    live.pendingBytes += head.length;
    if (live.pendingBytes > this.settings.stdoutLimit) {
      this.current = undefined;
      this.setLive(undefined);
      killGroupNow(live.pgid);
      this.release(live);
      this.emit(request.subscriber, tooLargeAnswer(this.settings.stdoutLimit, requestStderr(request)));
      this.pump();
      return;
    }
    if (newline < 0) return;
    const line = Buffer.concat(live.pending).toString('utf8');
    live.pending = [];
    live.pendingBytes = 0;
    this.current = undefined;
    const read = readAnswerLine(line, request.id, requestStderr(request), this.hook.dialect);
    if (read.kind === 'answer') {
      live.answered += 1;
      this.failures = 0;
    }
    // A line without the id, or more after the answer: the process is out of step (a banner, a
    // second answer), so nothing more it writes may be taken for an answer.
    if (read.kind === 'stray' || chunk.length > newline + 1) {
      this.setLive(undefined);
      this.discard(live);
    }
    this.emit(request.subscriber, read.result);
    this.pump();
  }

  private onStderr(live: Live, chunk: Buffer): void {
    const request = this.current;
    if (this.live !== live || request === undefined) return;
    request.stderr.push(chunk);
    const line = request.firstLine.push(chunk);
    if (line !== undefined) request.subscriber.next({ progress: 'stderr', firstLine: line });
  }

  /** The process ended on its own (or never started): report it, then serve the queue. */
  private die(live: Live): void {
    if (this.live !== live) {
      clearTimeout(live.drainTimer);
      return;
    }
    this.retire(live);
    this.pump();
  }

  /**
   * Lets a dead process go and reports its death to the request in flight, if any. A process that
   * answered before and exits with status 0 is recycling: the request it left unanswered is sent
   * again, once, to a fresh process, and nothing counts toward the back-off.
   */
  private retire(live: Live): void {
    clearTimeout(live.drainTimer);
    const termination = live.termination;
    if (this.live !== live || termination === undefined) return;
    this.setLive(undefined);
    killGroupNow(live.pgid);
    this.release(live);
    const request = this.current;
    this.current = undefined;
    if (request !== undefined && recycled(live, termination) && !request.resent) {
      request.resent = true;
      request.id = newRequestId();
      request.line = requestLine(request.event, request.id);
      request.stderr = tailBuffer(this.settings.stderrLimit);
      request.firstLine = firstStderrLine();
      this.queue.unshift(request);
      return;
    }
    if (request !== undefined || isCrash(termination)) {
      const result = classifyDeath(termination, request === undefined ? '' : requestStderr(request));
      this.failures += 1;
      this.lastFailure = result.message;
      this.nextStartAt = this.settings.now() + backoffDelay(this.failures, this.settings.backoff);
      if (request !== undefined) this.emit(request.subscriber, result);
    }
  }

  /** Kills a process we gave up on (timeout, cancellation, out of step): SIGTERM, then SIGKILL. */
  private discard(live: Live): void {
    clearTimeout(live.drainTimer);
    this.release(live);
    if (live.pgid !== 0) killGroupGracefully(live.pgid, this.settings.killGraceMs);
  }

  /** Lets go of the pipes: nothing of the process holds the host's event loop any more. */
  private release(live: Live): void {
    live.handle?.detach();
  }

  private emit(subscriber: Subscriber<HookEmission>, result: HookResult): void {
    subscriber.next(result);
    subscriber.complete();
  }
}

/** A process that answered before and then exited with status 0: worker recycling, not a crash. */
const recycled = (live: Live, termination: Termination): boolean =>
  live.answered > 0 && termination.kind === 'exited' && termination.exitCode === 0;

/** The persistent processes of one run, one per persistent hook, all ended by `close`. */
class PersistentPool {
  private readonly hooks = new Map<CommandHook, PersistentHook>();
  private closed = false;

  constructor(private readonly settings: Settings) {}

  run(hook: CommandHook, event: HookEvent): Observable<HookEmission> {
    return new Observable<HookEmission>((subscriber) => {
      if (this.closed) {
        subscriber.next(failure('spawn', 'the run has ended'));
        subscriber.complete();
        return undefined;
      }
      let entry = this.hooks.get(hook);
      if (entry === undefined) {
        entry = new PersistentHook(hook, this.settings);
        this.hooks.set(hook, entry);
      }
      return entry.request(event, subscriber);
    });
  }

  close(): void {
    this.closed = true;
    for (const entry of this.hooks.values()) entry.close();
    this.hooks.clear();
  }
}

/**
 * Adds persistent hooks (spec §8) to an executor: command hooks with `persistent: true` are
 * answered by one long-running process per hook and run, everything else goes to `perEvent`.
 *
 * - The process starts at the first event that reaches the hook: own process group, cwd = the
 *   workspace, environment = `persistentHookEnvironment` (host + hook `env` + the engine's
 *   variables that do not depend on an event + `COSH_HOOK_PERSISTENT=1`).
 * - Each event is one JSON line on its stdin; the answer is one line on its stdout (a JSON object,
 *   or empty for pass-through). One event at a time: later requests queue in arrival order.
 * - Unsubscribing mid-answer (the hook's timeout, a cancellation) kills the group (SIGTERM, then
 *   SIGKILL after `killGraceMs`); the next event starts a fresh process. So does output nobody asked
 *   for. A process that dies before answering gives `exit`/`signal`/`spawn`, and restarts back off
 *   (100 ms doubling to 10 s); events meanwhile fail at once with a message saying so.
 * - `openRun()` gives one run's executor; unsubscribing it closes every stdin, waits `killGraceMs`,
 *   then kills the groups. `hookPipeline` does this when its run ends. Called directly, outside a
 *   run, a persistent hook gets a process for that one event, ended the same way.
 *
 * Persistent processes are not counted against a bound on per-event hook processes: there is at
 * most one per persistent hook of a run.
 */
export const withPersistentHooks = (
  perEvent: CommandExecutor,
  options: PersistentHookOptions = {},
  spawn?: Spawner,
): RunScopedExecutor<CommandExecutor> => {
  const settings = settingsOf(options, spawn);
  const openRun = (): ExecutorRun<CommandExecutor> => {
    const pool = new PersistentPool(settings);
    return {
      executor: (hook, event) => (hook.persistent ? pool.run(hook, event) : perEvent(hook, event)),
      unsubscribe: () => pool.close(),
    };
  };
  const executor: CommandExecutor = (hook, event) =>
    hook.persistent
      ? defer(() => {
          const pool = new PersistentPool(settings);
          return pool.run(hook, event).pipe(finalize(() => pool.close()));
        })
      : perEvent(hook, event);
  return Object.assign(executor, { openRun });
};
