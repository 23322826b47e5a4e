import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startServerProcess, type ServerProcess } from '../exec/server-process.js';
import { parseJson } from '../events/untrusted.js';
import { FrameReader } from './frames.js';

/** How the upstream server is started, and what it may cost. */
export interface StdioUpstreamOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The longest message it may write; a longer one ends it (the proxy's bounded buffer). */
  readonly maxFrameBytes: number;
  /** Grace between SIGTERM and SIGKILL when it is stopped. */
  readonly killGraceMs: number;
  /** Where its stderr goes (the proxy's own stderr): never to the client's stdout. */
  readonly stderr: (chunk: Buffer) => void;
}

/** A transport that can stop reading: backpressure toward a client that reads slowly. */
export interface Flow {
  flow(on: boolean): void;
}

/**
 * The SDK's `Transport` over an upstream MCP server started as a process by `src/exec` (its own
 * process group, killed with the proxy), instead of the SDK's `StdioClientTransport`, which
 * spawns by itself. A line that is not a JSON-RPC message, or one past `maxFrameBytes`, is a
 * broken upstream: `onerror`, then the process is stopped and `onclose` follows.
 */
export class StdioUpstream implements Transport, Flow {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process: ServerProcess | undefined;
  private closed = false;
  private readonly frames: FrameReader;

  constructor(private readonly options: StdioUpstreamOptions) {
    this.frames = new FrameReader(options.maxFrameBytes);
  }

  /** `the upstream server \`COMMAND ARGS…\``: every message about it names it. */
  private get name(): string {
    const line = [this.options.command, ...this.options.args].join(' ');
    return `the upstream server \`${line.length > 200 ? `${line.slice(0, 200)}…` : line}\``;
  }

  start(): Promise<void> {
    const { options } = this;
    this.process = startServerProcess(
      { file: options.command, args: options.args, cwd: options.cwd, env: options.env },
      {
        stdout: (chunk) => this.read(chunk),
        stderr: options.stderr,
        ended: (reason) => this.broken(`${this.name} ${reason}`),
      },
    );
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.process?.write(`${JSON.stringify(message)}\n`) ?? Promise.resolve();
  }

  flow(on: boolean): void {
    this.process?.flow(on);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.process?.stop(this.options.killGraceMs);
    this.onclose?.();
    return Promise.resolve();
  }

  private read(chunk: Buffer): void {
    const lines = this.frames.push(chunk);
    if (!lines.ok) {
      this.broken(`${this.name} wrote ${lines.error}`);
      return;
    }
    for (const line of lines.value) {
      if (this.closed) return;
      const parsed = parseJson(line);
      // The value as written goes on: the schema checks it, and would strip what it does not know.
      if (!parsed.ok || !JSONRPCMessageSchema.safeParse(parsed.value).success) {
        this.broken(`${this.name} wrote a line that is not a JSON-RPC message: ${line.slice(0, 120)}`);
        return;
      }
      this.onmessage?.(parsed.value as JSONRPCMessage);
    }
  }

  private broken(reason: string): void {
    if (this.closed) return;
    this.onerror?.(new Error(reason));
    void this.close();
  }
}
