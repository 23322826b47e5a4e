import { ownGroup, releaseGroup } from './groups/groups.js';
import { killWithGrace } from './groups/kill.js';
import { describeThrown } from '../events/untrusted.js';
import { startProcess, type ProcessSpec, type Spawner } from './process/spawn.js';

/**
 * A long-lived server process that speaks on its stdio (the upstream of `cosh-hooks mcp-proxy`),
 * started in its own process group by the one spawner (`process/spawn.ts`). Its group is owned
 * while it runs, so it dies with this process however this process ends (`killOwnedGroupsNow`).
 */

/** What a server process reports. */
export interface ServerProcessListener {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** It ended, or never started: once, and nothing follows. `reason` says which, for a person. */
  ended(reason: string): void;
}

/** The host's side of a running server process. */
export interface ServerProcess {
  /** Writes to its stdin; resolves once the pipe is not backed up (bounded memory for a flood). */
  write(data: string): Promise<void>;
  /** Pauses (false) or resumes (true) reading its output: backpressure toward a slow reader. */
  flow(on: boolean): void;
  /** Closes its stdin, then SIGTERM to its group and SIGKILL after `graceMs`. Idempotent. */
  stop(graceMs: number): void;
}

const exitReason = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal === null ? `exited with status ${code ?? 'unknown'}` : `was killed by ${signal}`;

/** Starts `spec` and reports to `listener`; never throws (a refused start is one `ended`). */
export const startServerProcess = (
  spec: ProcessSpec,
  listener: ServerProcessListener,
  spawn: Spawner = startProcess,
): ServerProcess => {
  let pgid: number | undefined;
  let ended = false;
  let stopped = false;
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    listener.ended(reason);
  };
  const handle = spawn(spec, {
    started: (pid) => {
      pgid = pid;
      ownGroup(pid, () => handle.release());
    },
    notStarted: (error) => end(`could not start ${spec.file}: ${describeThrown(error)}`),
    stdout: (chunk) => {
      if (!ended) listener.stdout(chunk);
    },
    stderr: (chunk) => {
      if (!ended) listener.stderr(chunk);
    },
    // Reported at `exit`, not at `close`: a grandchild holding the pipes must not keep a dead
    // server looking alive. Its group stays owned until `stop`, which kills what is left of it.
    exit: (code, signal) => end(exitReason(code, signal)),
    close: () => undefined,
    lost: (reason) => end(reason),
  });
  return {
    write: (data) =>
      new Promise((resolve) => {
        if (ended || stopped) {
          resolve();
          return;
        }
        handle.write(data);
        handle.whenDrained(resolve);
      }),
    flow: (on) => handle.flow(on),
    stop: (graceMs) => {
      if (stopped) return;
      stopped = true;
      handle.end();
      if (pgid === undefined) return;
      const group = pgid;
      killWithGrace([group], graceMs, () => releaseGroup(group));
    },
  };
};
