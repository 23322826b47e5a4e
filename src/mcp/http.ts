import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown } from '../events/untrusted.js';
import { parseJson } from '../events/untrusted.js';
import type { Bridge } from './bridge.js';
import { allowedHostsOf, hostPort } from './listen.js';
import { connect, type ProxyOptions } from './proxy.js';

/** Where `--listen` serves, and who may call it. */
export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  /** Origins a browser may call from, besides the server's own (`http://localhost:PORT`…). */
  readonly allowedOrigins: readonly string[];
}

/** The proxy on Streamable HTTP: one MCP session (and one upstream connection) per client. */
export interface HttpProxy {
  /** `http://host:port/mcp`, with the port the system gave when 0 was asked for. */
  readonly url: string;
  /** Stops listening and ends every session. */
  close(reason: string): Promise<void>;
}

const reply = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
};

/** The body of a POST, at most `limit` bytes, parsed; undefined when too long or not JSON. */
const readBody = (
  req: IncomingMessage,
  limit: number,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve({ ok: false, error: `a request longer than ${limit} bytes` });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (error) => resolve({ ok: false, error: describeThrown(error) }));
    req.on('end', () => {
      const parsed = parseJson(Buffer.concat(chunks).toString('utf8'));
      resolve(parsed.ok ? parsed : { ok: false, error: `not JSON: ${parsed.error}` });
    });
  });

/**
 * Serves the proxy on Streamable HTTP at `/mcp`, with the SDK's DNS-rebinding protection on (Host
 * and Origin checked against the lists above). A session starts with an `initialize` POST, which
 * is when its upstream is started or connected; its id is the `Mcp-Session-Id` and the hooks'
 * `session_id`. A request of an unknown session gets 404, as the protocol says.
 */
export const serveHttp = (options: ProxyOptions, listen: ListenOptions): Promise<HttpProxy> => {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; bridge: Bridge }>();
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];

  const open = (id: string): StreamableHTTPServerTransport => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
      maxRequestBodySize: options.maxMessageBytes,
    });
    const bridge = connect(transport, options, id, options.sessionIdleMs);
    sessions.set(id, { transport, bridge });
    void bridge.ended.then(() => sessions.delete(id));
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp')
      return reply(res, 404, 'not found: the endpoint is /mcp');
    // Checked here too, before a session (and its upstream) is made for a request the SDK would refuse.
    if (!allowedHosts.includes(req.headers.host ?? ''))
      return reply(res, 403, `Invalid Host header: ${req.headers.host}`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.includes(origin))
      return reply(res, 403, `Invalid Origin header: ${origin}`);
    const header = req.headers['mcp-session-id'];
    const id = typeof header === 'string' ? header : undefined;
    if (id !== undefined) {
      const session = sessions.get(id);
      if (session === undefined) return reply(res, 404, 'session not found');
      if (req.method !== 'POST') return session.transport.handleRequest(req, res);
      const body = await readBody(req, options.maxMessageBytes);
      if (!body.ok) return reply(res, 400, body.error);
      return session.transport.handleRequest(req, res, body.value);
    }
    if (req.method !== 'POST')
      return reply(res, 400, 'no Mcp-Session-Id: start a session with an initialize POST');
    const body = await readBody(req, options.maxMessageBytes);
    if (!body.ok) return reply(res, 400, body.error);
    if (!isInitializeRequest(body.value))
      return reply(res, 400, 'no Mcp-Session-Id: start a session with initialize');
    await open(randomUUID()).handleRequest(req, res, body.value);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.warn(`HTTP: ${describeThrown(error)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      allowedHosts = allowedHostsOf(listen.host, port);
      allowedOrigins = [...allowedHosts.map((host) => `http://${host}`), ...listen.allowedOrigins];
      resolve({
        url: `http://${hostPort(listen.host, port)}/mcp`,
        close: async (reason) => {
          server.close();
          await Promise.all([...sessions.values()].map(({ bridge }) => bridge.close(reason)));
          server.closeAllConnections();
        },
      });
    });
  });
};
