import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/events/untrusted.js';
import { bridge, type Bridge } from '../../../src/mcp/bridge.js';
import { defaultDeps } from '../../../src/pipeline/pipeline.js';
import { createSession, type Session } from '../../../src/pipeline/session.js';
import { defineHooks, type HookDefinitions } from '../../../src/registry/define.js';

/** The router between two fake transports, the real engine (function hooks), deadlines on virtual time. */
class FakeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sent: JsonObject[] = [];
  closed = false;
  failSends: Error | undefined;

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.failSends !== undefined) return Promise.reject(this.failSends);
    this.sent.push(message as JsonObject);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }

  deliver(message: JsonObject): void {
    this.onmessage?.(message as JSONRPCMessage);
  }
}

const sessions: Session[] = [];
afterEach(() => sessions.splice(0).forEach((session) => session.close()));

const setup = (hooks: HookDefinitions, more: { idleMs?: number } = {}) => {
  const session = createSession(defineHooks(hooks), defaultDeps(), { concurrency: 'per-session' });
  sessions.push(session);
  const client = new FakeTransport();
  const upstream = new FakeTransport();
  const scheduler = new VirtualTimeScheduler();
  const tools: string[][] = [];
  const unanswered: string[] = [];
  const warnings: string[] = [];
  const connection: Bridge = bridge(client, upstream, {
    context: { server: { name: 'fs', source: 'proxy' }, sessionId: 'mcp-1', cwd: '/w' },
    session,
    requestTimeoutMs: 1_000,
    warn: (text) => warnings.push(text),
    scheduler,
    onTools: (names) => tools.push([...names]),
    onUnansweredCall: (tool) => unanswered.push(tool),
    ...more,
  });
  const at = (ms: number) => {
    scheduler.schedule(() => undefined, ms - scheduler.frame);
    scheduler.maxFrames = ms;
    scheduler.flush();
  };
  return { client, upstream, connection, at, tools, unanswered, warnings };
};

/** Lets promises and the engine's in-process hooks run until `done` holds (a bounded number of turns). */
const until = async (done: () => boolean): Promise<void> => {
  for (let turn = 0; turn < 1_000 && !done(); turn += 1)
    await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
};
const turns = async (count = 20) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

const toolCall = (id: number | string | undefined, name: string, args: JsonObject = {}): JsonObject => ({
  jsonrpc: '2.0',
  ...(id !== undefined && { id }),
  method: 'tools/call',
  params: { name, arguments: args },
});
const guard = {
  PreToolUse: [
    {
      name: 'no-writes',
      matcher: '^mcp__fs__write_file$',
      run: () => ({ decision: 'block' as const, reason: 'read-only' }),
    },
  ],
};

describe('the router of one MCP connection', () => {
  it('passes requests through with their ids, answers back; a tools/list answer names its tools', async () => {
    const { client, upstream, tools } = setup(guard);
    client.deliver({ jsonrpc: '2.0', id: 'x', method: 'tools/list' });
    await until(() => upstream.sent.length === 1);
    expect(upstream.sent[0]).toStrictEqual({ jsonrpc: '2.0', id: 'x', method: 'tools/list' });
    const answer = {
      jsonrpc: '2.0',
      id: 'x',
      result: { tools: [{ name: 'read_file' }, { name: 'write_file' }] },
    };
    upstream.deliver(answer);
    await until(() => client.sent.length === 1);
    expect(client.sent[0]).toStrictEqual(answer);
    expect(tools).toStrictEqual([['read_file', 'write_file']]);
  });

  it('a blocked tools/call never goes upstream; an allowed one does, and its answer comes back', async () => {
    const { client, upstream } = setup(guard);
    client.deliver(toolCall(1, 'write_file', { path: '/x' }));
    client.deliver(toolCall(2, 'read_file', { path: '/x' }));
    await until(() => client.sent.length === 1 && upstream.sent.length === 1);
    expect(client.sent[0]).toMatchObject({
      id: 1,
      result: { isError: true, content: [{ text: 'read-only' }] },
    });
    expect(upstream.sent[0]).toMatchObject({ id: 2, params: { name: 'read_file' } });
    upstream.deliver({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    await until(() => client.sent.length === 2);
    expect(client.sent[1]).toStrictEqual({ jsonrpc: '2.0', id: 2, result: { content: [] } });
  });

  it('a tools/call sent as a notification (no id, or an id that is not one) is never forwarded, and is reported', async () => {
    const { client, upstream, unanswered } = setup(guard);
    client.deliver(toolCall(undefined, 'read_file'));
    client.deliver({ ...toolCall(undefined, 'write_file'), id: null });
    client.deliver({ jsonrpc: '2.0', id: 9, method: 'ping' });
    await until(() => upstream.sent.length === 1);
    await turns();
    expect(upstream.sent.map((message) => message['method'])).toStrictEqual(['ping']);
    expect(unanswered).toStrictEqual(['read_file', 'write_file']);
  });

  it('an id still in use is refused', async () => {
    const { client, upstream } = setup(guard);
    client.deliver({ jsonrpc: '2.0', id: 5, method: 'ping' });
    client.deliver({ jsonrpc: '2.0', id: 5, method: 'ping' });
    await until(() => client.sent.length === 1);
    expect(client.sent[0]).toMatchObject({ id: 5, error: { code: -32600 } });
    expect(upstream.sent).toHaveLength(1);
  });

  it('a cancelled call still in its hook never goes upstream, nor does the cancellation; a forwarded one is cancelled upstream too', async () => {
    const { client, upstream } = setup({
      PreToolUse: [{ name: 'slow', matcher: 'slow', run: () => new Promise(() => undefined) }],
    });
    const cancel = (id: number) => ({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'no' },
    });
    client.deliver(toolCall(1, 'slow_tool'));
    await turns();
    // A session's events are decided in order: the second call waits for the first, until it is cancelled.
    client.deliver(toolCall(2, 'fast_tool'));
    client.deliver(cancel(1));
    await until(() => upstream.sent.length === 1);
    client.deliver(cancel(2));
    await until(() => upstream.sent.length === 2);
    expect(upstream.sent.map((message) => [message['id'], message['method']])).toStrictEqual([
      [2, 'tools/call'],
      [undefined, 'notifications/cancelled'],
    ]);
    expect(upstream.sent[1]).toMatchObject({ params: { requestId: 2 } });
    // The upstream's late answer is dropped: the client no longer waits.
    upstream.deliver({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    await turns();
    expect(client.sent).toStrictEqual([]);
  });

  it('deadlines on the scheduler: no answer in time is -32001 and a cancellation upstream; progress restarts it', async () => {
    const { client, upstream, at } = setup(guard);
    client.deliver({ jsonrpc: '2.0', id: 1, method: 'ping' });
    client.deliver({ jsonrpc: '2.0', id: 2, method: 'slow', params: { _meta: { progressToken: 't' } } });
    await until(() => upstream.sent.length === 2);
    at(900);
    upstream.deliver({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1 },
    });
    at(1_000);
    await until(() => client.sent.length === 2);
    expect(client.sent).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } },
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32001, message: 'the upstream server did not answer within 1000 ms' },
      },
    ]);
    expect(upstream.sent[2]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 1 } });
    at(1_900);
    await until(() => client.sent.length === 3);
    expect(client.sent[2]).toMatchObject({ id: 2, error: { code: -32001 } });
  });

  it('idle past idleMs with nothing pending: the connection ends and its upstream is closed; a pending request holds it', async () => {
    const { client, upstream, connection, at } = setup(guard, { idleMs: 1_000 });
    client.deliver({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await until(() => upstream.sent.length === 1);
    at(500);
    at(999);
    at(1_000);
    await turns();
    expect(upstream.closed).toBe(false);
    upstream.deliver({ jsonrpc: '2.0', id: 1, result: {} });
    await until(() => client.sent.length === 1);
    at(1_999);
    expect(upstream.closed).toBe(false);
    at(3_000);
    expect(await connection.ended).toStrictEqual({
      reason: 'the session was idle for 1000 ms',
      byUpstream: false,
    });
    expect(upstream.closed).toBe(true);
    expect(client.closed).toBe(true);
  });

  it('the upstream ends: every pending request gets -32000 with its reason', async () => {
    const { client, upstream, connection } = setup(guard);
    client.deliver({ jsonrpc: '2.0', id: 1, method: 'ping' });
    client.deliver(toolCall(2, 'read_file'));
    await until(() => upstream.sent.length === 2);
    upstream.onerror?.(new Error('the upstream server `srv --x` exited with status 3'));
    await upstream.close();
    expect(await connection.ended).toStrictEqual({
      reason: 'the upstream server `srv --x` exited with status 3',
      byUpstream: true,
    });
    const message = 'cosh-hooks mcp-proxy: the upstream server `srv --x` exited with status 3';
    expect(client.sent).toStrictEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message } },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message } },
    ]);
  });

  it('an upstream that fails before the client says anything: the first request still gets why', async () => {
    const { client, upstream, connection } = setup(guard);
    upstream.onerror?.(new Error('the upstream server `nope` could not start nope: spawn nope ENOENT'));
    await upstream.close();
    await turns();
    expect(client.closed).toBe(false);
    client.deliver({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect((await connection.ended).byUpstream).toBe(true);
    expect(client.sent).toStrictEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32000,
          message: 'cosh-hooks mcp-proxy: the upstream server `nope` could not start nope: spawn nope ENOENT',
        },
      },
    ]);
    expect(client.closed).toBe(true);
  });

  it('an upstream that cannot be reached: the request gets -32000 naming it, and the connection ends', async () => {
    const { client, upstream, connection } = setup(guard);
    upstream.failSends = new Error(
      'the upstream server http://127.0.0.1:1/mcp cannot be reached: fetch failed',
    );
    client.deliver({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await connection.ended).toMatchObject({ byUpstream: true });
    expect(client.sent).toStrictEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32000,
          message:
            'cosh-hooks mcp-proxy: the upstream server http://127.0.0.1:1/mcp cannot be reached: fetch failed',
        },
      },
    ]);
  });
});
