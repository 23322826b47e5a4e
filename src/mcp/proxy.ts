import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OutputLine } from '../output/lines.js';
import type { Session } from '../pipeline/session.js';
import { bridge, type Bridge } from './bridge.js';
import { HttpUpstream } from './http-upstream.js';
import type { McpServer } from './mapping.js';
import { StdioUpstream } from './stdio-upstream.js';

/** The upstream MCP server: a command the proxy starts (stdio), or a Streamable HTTP endpoint. */
export type UpstreamSpec =
  { readonly command: string; readonly args: readonly string[] } | { readonly url: URL };

/** Everything a proxy needs, whatever the client side is. */
export interface ProxyOptions {
  readonly server: McpServer;
  /** The engine, made with `concurrency: 'per-session'`. */
  readonly session: Session;
  readonly upstream: UpstreamSpec;
  /** The working folder of the upstream command and of the hooks' events. */
  readonly cwd: string;
  /** The upstream command's environment (the proxy's own: what the client's config gave it). */
  readonly env: NodeJS.ProcessEnv;
  /** The longest message either side may send, in bytes. */
  readonly maxMessageBytes: number;
  /** How long the upstream may take to answer (a progress notification restarts it). */
  readonly requestTimeoutMs: number;
  readonly killGraceMs: number;
  /** A warning line for stderr (never stdout: it carries the protocol). */
  readonly warn: (text: string) => void;
  /** The upstream command's stderr. */
  readonly upstreamStderr: (chunk: Buffer) => void;
  readonly onLine?: (line: OutputLine) => void;
  /** With `--listen`: a session with nothing pending and nothing from its client this long is closed. */
  readonly sessionIdleMs?: number;
  /** Each `tools/list` answer's tool names (the upstream's own), for the unguarded-tools report. */
  readonly onTools?: (tools: readonly string[]) => void;
  /** A `tools/call` sent as a notification: never forwarded, reported. */
  readonly onUnansweredCall?: (tool: string) => void;
}

/** A new connection to the upstream: one per client session (a stdio server holds one session). */
export const upstreamTransport = (options: ProxyOptions): Transport =>
  'url' in options.upstream
    ? new HttpUpstream(options.upstream.url)
    : new StdioUpstream({
        command: options.upstream.command,
        args: options.upstream.args,
        cwd: options.cwd,
        env: options.env,
        maxFrameBytes: options.maxMessageBytes,
        killGraceMs: options.killGraceMs,
        stderr: options.upstreamStderr,
      });

/** The bridge of one client session, with that session's id (and an idle limit on HTTP). */
export const connect = (
  client: Transport,
  options: ProxyOptions,
  sessionId: string,
  idleMs?: number,
): Bridge =>
  bridge(client, upstreamTransport(options), {
    context: { server: options.server, sessionId, cwd: options.cwd },
    session: options.session,
    requestTimeoutMs: options.requestTimeoutMs,
    warn: options.warn,
    ...(options.onLine !== undefined && { onLine: options.onLine }),
    ...(idleMs !== undefined && { idleMs }),
    ...(options.onTools !== undefined && { onTools: options.onTools }),
    ...(options.onUnansweredCall !== undefined && { onUnansweredCall: options.onUnansweredCall }),
  });

/**
 * The proxy on stdio: one client, one MCP session (a new id), until the client closes stdin, the
 * upstream ends, or `close`. Nothing but protocol frames is written to `stdout`.
 */
export const serveStdio = (options: ProxyOptions, stdin: Readable, stdout: Writable): Bridge => {
  const client = new StdioServerTransport(stdin, stdout, { maxBufferSize: options.maxMessageBytes });
  // The SDK's transport does not watch for the end of stdin: the end of the client's connection.
  const closed = () => void client.close();
  stdin.once('end', closed);
  stdin.once('close', closed);
  return connect(client, options, randomUUID());
};
