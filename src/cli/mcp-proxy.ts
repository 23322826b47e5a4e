import { isObservable, Subject, merge } from 'rxjs';
import { auditConfigRecord } from '../audit/build.js';
import type { AuditConfigRecord } from '../audit/records.js';
import type { AuditFlags } from './audit-outputs.js';
import { engineDeps, EXIT, openHostRun } from './commands.js';
import { printableLine } from './format.js';
import type { ConfigFlags, ExecutionFlags } from './options.js';
import { onStopSignals } from './terminal.js';
import { createSession } from '../pipeline/session.js';
import type { HttpProxy } from '../mcp/http.js';
import { parseListen } from '../mcp/listen.js';
import { serverNameOf, toolName } from '../mcp/mapping.js';
import type { Registry } from '../registry/index.js';
import { hasGuard, unguardedTools } from './mcp-guards.js';
import type { ProxyOptions, UpstreamSpec } from '../mcp/proxy.js';
import { describeThrown } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';

/** The flags of `mcp-proxy`, as commander parses them (docs/mcp.md). */
export interface McpProxyFlags extends ConfigFlags, ExecutionFlags, AuditFlags {
  /** The server's name in tool names: `mcp__<name>__<tool>`. Required: it is what guards match. */
  readonly name?: string;
  /** Start even when no PreToolUse hook is loaded (every call forwarded unchecked, and said). */
  readonly allowUnguarded?: boolean;
  /** `--session-idle MS`: with `--listen`, a session idle this long is closed with its upstream. */
  readonly sessionIdle: number;
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

const refuse = (message: string): number => {
  process.stderr.write(`cosh-hooks mcp-proxy: ${printableLine(message)}\n`);
  return EXIT.invalidConfig;
};

const NAME_REQUIRED =
  '--name is required: tools are called mcp__<NAME>__<tool>, the names your PreToolUse matchers select; ' +
  "give the key of the server's entry in your client's MCP configuration (e.g. --name filesystem)";

const UNGUARDED =
  'no PreToolUse hook is loaded: every tools/call would be forwarded unchecked. Check --config and ' +
  '`cosh-hooks validate`, or give --allow-unguarded to run anyway';

/**
 * `mcp-proxy`: an MCP server on stdio (or Streamable HTTP with `--listen`) in front of an upstream
 * MCP server, with the hooks between them (docs/mcp.md). It refuses to start on an invalid
 * configuration: never unguarded.
 */
export const mcpProxyCommand = async (command: readonly string[], flags: McpProxyFlags): Promise<number> => {
  const upstream = upstreamOf(command, flags.upstream);
  if (!upstream.ok) return fail(upstream.error);
  if (flags.name === undefined || flags.name === '') return refuse(NAME_REQUIRED);
  const serverName = serverNameOf(flags.name);
  const listen = flags.listen === undefined ? undefined : parseListen(flags.listen);
  if (flags.listen !== undefined && listen === undefined)
    return fail(`--listen: expected HOST:PORT or PORT, got ${flags.listen}`);
  const opened = await openHostRun(flags);
  if (!opened.ok) return opened.error;
  const host = opened.value;
  // The registry running now (with --watch, the last valid one): what the tools are checked against.
  let current: Registry | undefined = isObservable(host.registry) ? undefined : host.registry;
  const following = isObservable(host.registry)
    ? host.registry.subscribe((registry) => (current = registry))
    : undefined;
  if (current === undefined || !hasGuard(current)) {
    if (flags.allowUnguarded !== true) {
      following?.unsubscribe();
      await host.finish(false);
      return refuse(UNGUARDED);
    }
    process.stderr.write(
      'cosh-hooks mcp-proxy: no PreToolUse hook is loaded: every tools/call is forwarded unchecked (--allow-unguarded)\n',
    );
  }
  // The SDK is loaded here, by this command only.
  const [{ serveStdio }, { serveHttp }] = await Promise.all([
    import('../mcp/proxy.js'),
    import('../mcp/http.js'),
  ]);
  const warn = (text: string) => process.stderr.write(`cosh-hooks mcp-proxy: ${printableLine(text)}\n`);
  const notes = new Subject<AuditConfigRecord>();
  const session = createSession(host.registry, engineDeps(flags), {
    concurrency: 'per-session',
    ...(host.stopLoopLimit !== undefined && { stopLoopLimit: host.stopLoopLimit }),
    ...(flags.observerQueue !== undefined && { observerQueue: flags.observerQueue }),
    ...(flags.otlpContent === true && { auditContent: true }),
    auditNotes: merge(host.auditNotes, notes),
  });
  const onAudit = host.onAudit;
  const note = (subject: string, message: string, details: Record<string, unknown>): void => {
    warn(message);
    notes.next(
      auditConfigRecord({ subject, message, details: { server: serverName, ...details } }, Date.now()),
    );
  };
  // Each tool is named once, the first time a tools/list shows it.
  const listed = new Set<string>();
  const audit = onAudit === undefined ? undefined : session.audit$.subscribe(onAudit);
  const options: ProxyOptions = {
    server: { name: serverName, source: 'proxy' },
    session,
    upstream: upstream.value,
    cwd: process.cwd(),
    env: process.env,
    maxMessageBytes: flags.maxMessageBytes,
    requestTimeoutMs: flags.requestTimeout,
    killGraceMs: KILL_GRACE_MS,
    warn,
    upstreamStderr: (chunk) => process.stderr.write(chunk),
    sessionIdleMs: flags.sessionIdle,
    onTools: (tools) => {
      const fresh = tools.map((tool) => toolName(serverName, tool)).filter((name) => !listed.has(name));
      for (const name of fresh) listed.add(name);
      const open = current === undefined ? fresh : unguardedTools(current, fresh);
      if (open.length > 0)
        note(
          'unguarded_tools',
          `unguarded tools: no PreToolUse matcher selects these tools of ${serverName}; their calls are forwarded unchecked: ${[...open].sort().join(', ')}`,
          { tools: [...open].sort() },
        );
    },
    onUnansweredCall: (tool) =>
      note(
        'tools_call_notification',
        `a tools/call of ${tool} sent as a notification (no id): not forwarded (a call without an id cannot be answered)`,
        { tool },
      ),
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
    following?.unsubscribe();
    notes.complete();
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
