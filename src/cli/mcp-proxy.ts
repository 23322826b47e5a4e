import { basename } from 'node:path';
import type { AuditFlags } from './audit-outputs.js';
import { engineDeps, EXIT, openHostRun } from './commands.js';
import { printableLine } from './format.js';
import type { ConfigFlags, ExecutionFlags } from './options.js';
import { onStopSignals } from './terminal.js';
import { createSession } from '../pipeline/session.js';
import type { HttpProxy } from '../mcp/http.js';
import { parseListen } from '../mcp/listen.js';
import { serverNameOf } from '../mcp/mapping.js';
import type { ProxyOptions, UpstreamSpec } from '../mcp/proxy.js';
import { describeThrown } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';

/** The flags of `mcp-proxy`, as commander parses them (docs/mcp.md). */
export interface McpProxyFlags extends ConfigFlags, ExecutionFlags, AuditFlags {
  /** The server's name in tool names: `mcp__<name>__<tool>` (default: the command's or host's name). */
  readonly name?: string;
  /** `--upstream URL`: a Streamable HTTP upstream instead of a command. */
  readonly upstream?: string;
  readonly watch?: boolean;
  readonly observerQueue?: number;
  /** `--listen HOST:PORT`: serve Streamable HTTP instead of stdio. */
  readonly listen?: string;
  /** `--allowed-origin ORIGIN` (repeatable): browser origins `--listen` accepts besides its own. */
  readonly allowedOrigin?: readonly string[];
  readonly requestTimeout: number;
  readonly maxMessageBytes: number;
}

/** Grace between SIGTERM and SIGKILL for the upstream command's group. */
const KILL_GRACE_MS = 2_000;

const fail = (message: string): number => {
  process.stderr.write(`cosh-hooks mcp-proxy: ${printableLine(message)}\n`);
  return EXIT.failed;
};

/** The upstream from `-- COMMAND [ARGS…]` or `--upstream URL`: exactly one of them. */
export const upstreamOf = (command: readonly string[], url: string | undefined): Result<UpstreamSpec> => {
  const [file, ...args] = command;
  if (url !== undefined && file !== undefined)
    return err('give either -- COMMAND [ARGS…] or --upstream URL, not both');
  if (url !== undefined) {
    if (!URL.canParse(url)) return err(`--upstream: not a URL: ${url}`);
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return err(`--upstream: expected an http: or https: URL, got ${parsed.protocol}`);
    return ok({ url: parsed });
  }
  if (file === undefined || file === '')
    return err('no upstream server: give -- COMMAND [ARGS…] or --upstream URL');
  return ok({ command: file, args });
};

const defaultName = (upstream: UpstreamSpec): string =>
  'url' in upstream ? upstream.url.hostname : basename(upstream.command);

/**
 * `mcp-proxy`: an MCP server on stdio (or Streamable HTTP with `--listen`) in front of an upstream
 * MCP server, with the hooks between them (docs/mcp.md). It refuses to start on an invalid
 * configuration: never unguarded.
 */
export const mcpProxyCommand = async (command: readonly string[], flags: McpProxyFlags): Promise<number> => {
  const upstream = upstreamOf(command, flags.upstream);
  if (!upstream.ok) return fail(upstream.error);
  const listen = flags.listen === undefined ? undefined : parseListen(flags.listen);
  if (flags.listen !== undefined && listen === undefined)
    return fail(`--listen: expected HOST:PORT or PORT, got ${flags.listen}`);
  const opened = await openHostRun(flags);
  if (!opened.ok) return opened.error;
  const host = opened.value;
  // The SDK is loaded here, by this command only.
  const [{ serveStdio }, { serveHttp }] = await Promise.all([
    import('../mcp/proxy.js'),
    import('../mcp/http.js'),
  ]);
  const session = createSession(host.registry, engineDeps(flags), {
    concurrency: 'per-session',
    ...(host.stopLoopLimit !== undefined && { stopLoopLimit: host.stopLoopLimit }),
    ...(flags.observerQueue !== undefined && { observerQueue: flags.observerQueue }),
    ...(flags.otlpContent === true && { auditContent: true }),
    auditNotes: host.auditNotes,
  });
  const onAudit = host.onAudit;
  const audit = onAudit === undefined ? undefined : session.audit$.subscribe(onAudit);
  const warn = (text: string) => process.stderr.write(`cosh-hooks mcp-proxy: ${printableLine(text)}\n`);
  const options: ProxyOptions = {
    server: { name: serverNameOf(flags.name ?? defaultName(upstream.value)), source: 'proxy' },
    session,
    upstream: upstream.value,
    cwd: process.cwd(),
    env: process.env,
    maxMessageBytes: flags.maxMessageBytes,
    requestTimeoutMs: flags.requestTimeout,
    killGraceMs: KILL_GRACE_MS,
    warn,
    upstreamStderr: (chunk) => process.stderr.write(chunk),
    onLine: (line) => {
      host.onLine(line);
      // What `run` prints as notification lines: here on stderr, stdout carrying the protocol.
      if (line.type === 'stream_event')
        warn(`hook ${line.event.hook_name} (${line.event.hook_event_name}): ${line.event.message}`);
    },
  };
  let stopped: number | undefined;
  const finish = async (status: number): Promise<number> => {
    session.close();
    audit?.unsubscribe();
    await host.finish(stopped !== undefined);
    return status;
  };

  if (listen !== undefined) {
    let http: HttpProxy;
    try {
      http = await serveHttp(options, { ...listen, allowedOrigins: flags.allowedOrigin ?? [] });
    } catch (error) {
      return finish(fail(`--listen ${flags.listen ?? ''}: ${describeThrown(error)}`));
    }
    warn(`listening on ${http.url}`);
    const status = await new Promise<number>((resolve) =>
      onStopSignals((signalled) => {
        stopped = signalled;
        void http.close('the proxy was stopped').then(() => resolve(signalled));
      }),
    );
    return finish(status);
  }

  const proxy = serveStdio(options, process.stdin, process.stdout);
  onStopSignals((status) => {
    stopped = status;
    void proxy.close('the proxy was stopped');
  });
  const ended = await proxy.ended;
  return finish(stopped ?? (ended.byUpstream ? EXIT.failed : EXIT.ok));
};
