import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { processExecutor } from '../src/exec/process-executor.js';
import { bridge } from '../src/mcp/bridge.js';
import { StdioUpstream } from '../src/mcp/stdio-upstream.js';
import { defaultDeps } from '../src/pipeline/pipeline.js';
import { createSession, type Session } from '../src/pipeline/session.js';
import { defineHooks } from '../src/registry/define.js';
import type { Registry } from '../src/registry/hook.js';
import { INLINE_SH_ALLOW } from './fixtures.js';
import { comparisonRow, medianCell, rawSeries, type Context, type Measured } from './measurement.js';
import { summarize } from './stats.js';
import { interleave } from './timing.js';

/**
 * Measurement 11: what `cosh-hooks mcp-proxy` adds to a `tools/call`. The SDK's client calls
 * `echo` on the reference server `@modelcontextprotocol/server-everything` over stdio, directly and
 * through the proxy's bridge (the client on an in-memory link, the server started by the proxy as
 * it is in production), with one PreToolUse hook that allows: a function hook, then a command hook
 * (one process per call). Per-call milliseconds, the median of each round of sequential calls.
 */

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const EVERYTHING = join(dirname(manifest), Object.values(bin)[0] ?? '');

const client = () => new Client({ name: 'bench', version: '1.0.0' });

const direct = async (): Promise<Client> => {
  const connected = client();
  await connected.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  return connected;
};

const proxied = async (session: Session, cwd: string): Promise<Client> => {
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
  const upstream = new StdioUpstream({
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    cwd,
    env: process.env,
    maxFrameBytes: 64 * 1024 * 1024,
    killGraceMs: 500,
    stderr: () => undefined,
  });
  bridge(proxySide, upstream, {
    context: { server: { name: 'everything', source: 'proxy' }, sessionId: `bench-${Math.random()}`, cwd },
    session,
    requestTimeoutMs: 60_000,
    warn: (text) => process.stderr.write(`${text}\n`),
  });
  const connected = client();
  await connected.connect(clientSide);
  return connected;
};

/** Milliseconds per call: the median of `calls` sequential echo calls. */
const perCall = (connected: Client, calls: number) => async (): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    const result = await connected.callTool({ name: 'echo', arguments: { message: `m${i}` } });
    times.push(performance.now() - start);
    const text = (result as { content: { text: string }[] }).content[0]?.text;
    if (text !== `Echo: m${i}`) throw new Error(`unexpected answer: ${text}`);
  }
  return summarize(times).median;
};

export const measureMcpProxy = async (context: Context): Promise<Measured> => {
  const calls = context.quick ? 20 : 100;
  const counts = context.quick ? { warmup: 1, iterations: 3 } : { warmup: 2, iterations: 10 };
  const cwd = context.fixtures.dir;
  const registry = (kind: 'function' | 'command'): Registry =>
    defineHooks({
      PreToolUse: [
        kind === 'function'
          ? { name: 'allow-fn', matcher: '^mcp__everything__', run: () => ({ decision: 'allow' as const }) }
          : { name: 'allow-sh', matcher: '^mcp__everything__', command: INLINE_SH_ALLOW },
      ],
    });
  const sessions = {
    function: createSession(registry('function'), defaultDeps(processExecutor()), {
      concurrency: 'per-session',
    }),
    command: createSession(registry('command'), defaultDeps(processExecutor()), {
      concurrency: 'per-session',
    }),
  };
  const clients = {
    direct: await direct(),
    function: await proxied(sessions.function, cwd),
    command: await proxied(sessions.command, cwd),
  };
  context.log(
    `11 mcp-proxy: ${counts.iterations} rounds of ${calls} echo calls, direct / function hook / command hook`,
  );
  try {
    const samples = await interleave(counts, {
      direct: perCall(clients.direct, calls),
      function: perCall(clients.function, calls),
      command: perCall(clients.command, calls),
    });
    // What the gateway adds to one call, round by round (both measured in the same round).
    const added = samples.function.map((ms, round) => ms - (samples.direct[round] ?? ms));
    const summaries = {
      direct: summarize(samples.direct),
      function: summarize(samples.function),
      command: summarize(samples.command),
      added: summarize(added),
    };
    return {
      rows: [
        comparisonRow(
          '12a',
          '`mcp-proxy`, one function hook: ms per `tools/call` / direct stdio connection',
          summaries.function,
          summaries.direct,
        ),
        {
          id: '12c',
          what: '`mcp-proxy`, one function hook: latency added per `tools/call` (proxied − direct, per round)',
          subject: medianCell(summaries.added, 'ms'),
          baseline: medianCell(summaries.direct, 'ms'),
        },
        comparisonRow(
          '12b',
          '`mcp-proxy`, one command hook (a process per call): ms per `tools/call` / direct',
          summaries.command,
          summaries.direct,
        ),
      ],
      raw: {
        mcpProxy: {
          calls,
          direct: rawSeries(samples.direct),
          function: rawSeries(samples.function),
          command: rawSeries(samples.command),
          added: rawSeries(added),
        },
      },
    };
  } finally {
    await Promise.all(Object.values(clients).map((connected) => connected.close()));
    for (const session of Object.values(sessions)) session.close();
  }
};
