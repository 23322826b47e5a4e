/**
 * The spawn helper: a small resident Node process that starts hook processes for its host
 * (`helper-client.ts` starts it), so that a host holding a large heap does not pay for copying its
 * page tables at every spawn (docs/execution.md, *The spawn helper*). It imports Node built-ins,
 * `process/spawn.ts` and the group signals (`groups/`) only.
 *
 * - Reads frames (`spawn-protocol.ts`) on stdin, writes frames on stdout; stderr is for its own crash.
 * - Starts each process with `startProcess`, the same function the host uses directly.
 * - Forwards stdout and stderr as they come; when the host reads slower than hooks write, it stops
 *   reading the hooks' pipes until its own output drains.
 * - The host going away (stdin EOF: its end closes however it died, SIGKILL included) kills every
 *   group the host still owns: SIGTERM, then SIGKILL after 500 ms. Then the helper exits.
 */
import { Socket } from 'node:net';
import { parseJson, describeThrown } from '../../events/untrusted.js';
import { signalGroup } from '../groups/groups.js';
import { killWithGrace } from '../groups/kill.js';
import { errorCode, startProcess, type ProcessHandle, type ProcessSpec } from '../process/spawn.js';
import {
  CLOSE,
  DETACH,
  END,
  EXIT,
  frame,
  frameReader,
  NOT_STARTED,
  RELEASE,
  SPAWN,
  STARTED,
  STDERR,
  STDOUT,
  WRITE,
} from './spawn-protocol.js';

const KILL_GRACE_MS = 500;

interface Running {
  handle: ProcessHandle | undefined;
  /** The group, once started and until the host releases it. */
  pgid: number | undefined;
}

const processes = new Map<number, Running>();
/** Groups the host still owns after it stopped reading the process (cancelled hooks in their grace). */
const owned = new Set<number>();

// A socket of our own on fd 1: writes never block (process.stdout on a pipe is synchronous on Linux).
const out = new Socket({ fd: 1, readable: false, writable: true });
out.on('error', () => undefined);
let flowing = true;

const send = (type: number, id: number, payload?: Buffer | string): void => {
  if (out.write(frame(type, id, payload)) || !flowing) return;
  flowing = false;
  for (const running of processes.values()) running.handle?.flow(false);
  out.once('drain', () => {
    flowing = true;
    for (const running of processes.values()) running.handle?.flow(true);
  });
};

const errorMessage = (error: unknown) => {
  const code = errorCode(error);
  return {
    ...(code !== undefined && { code }),
    message: describeThrown(error),
  };
};

const start = (id: number, spec: ProcessSpec): void => {
  // `started` is called before startProcess returns: the record exists first.
  const running: Running = { handle: undefined, pgid: undefined };
  processes.set(id, running);
  running.handle = startProcess(spec, {
    started: (pid) => {
      running.pgid = pid;
      owned.add(pid);
      send(STARTED, id, Buffer.from([pid >>> 24, (pid >>> 16) & 255, (pid >>> 8) & 255, pid & 255]));
    },
    notStarted: (error) => {
      processes.delete(id);
      send(NOT_STARTED, id, JSON.stringify(errorMessage(error)));
    },
    stdout: (chunk) => send(STDOUT, id, chunk),
    stderr: (chunk) => send(STDERR, id, chunk),
    exit: (code, signal) => send(EXIT, id, JSON.stringify({ code, signal })),
    close: () => {
      processes.delete(id);
      send(CLOSE, id);
    },
    lost: () => undefined,
  });
  if (!flowing) running.handle.flow(false);
};

const onFrame = (type: number, id: number, payload: Buffer): void => {
  if (type === SPAWN) {
    const spec = parseJson(payload.toString('utf8'));
    // The host's own request: unreadable only through a bug, which fails that one hook as `spawn`.
    if (spec.ok) start(id, spec.value as ProcessSpec);
    else send(NOT_STARTED, id, JSON.stringify({ message: `spawn request is not JSON: ${spec.error}` }));
    return;
  }
  const running = processes.get(id);
  if (type === WRITE) running?.handle?.write(payload);
  else if (type === END) running?.handle?.end(payload);
  else if (type === DETACH) {
    running?.handle?.detach();
    processes.delete(id);
  } else if (type === RELEASE) {
    // The host knows the group by its pid; the process may already be detached here.
    const pgid = payload.length === 4 ? payload.readUInt32BE(0) : running?.pgid;
    if (pgid !== undefined) owned.delete(pgid);
    if (running !== undefined) running.pgid = undefined;
  }
};

/** The host is gone: nothing it started may outlive it. */
const hostGone = (): void => {
  for (const running of processes.values()) running.handle?.detach();
  processes.clear();
  killWithGrace(owned, KILL_GRACE_MS, () => process.exit(0));
};

/** A bug of ours must not leave hooks behind that nobody watches: kill them all, then exit. */
const crashed = (error: unknown): void => {
  for (const pgid of owned) signalGroup(pgid, 'SIGKILL');
  process.stderr.write(`cosh-hooks spawn helper: ${describeThrown(error)}\n`);
  process.exit(70);
};

process.on('uncaughtException', crashed);
process.stdin.on('data', frameReader(onFrame));
process.stdin.on('error', () => undefined);
process.stdin.on('close', hostGone);
// Terminal signals go to the host's group, not ours (we are detached); SIGTERM or SIGHUP sent to us
// directly still end us cleanly, with the host's groups.
process.on('SIGTERM', hostGone);
process.on('SIGHUP', hostGone);
