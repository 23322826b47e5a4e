import { finalize, NEVER, of, Subject, throwError, type Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput, HookEvent } from '../../../src/events/codecs.js';
import type { JsonObject } from '../../../src/events/untrusted.js';
import { Background, deciding, gate, Gates, type GateDeps, type ToolCall } from '../../../src/mcp/gate.js';
import { defaultDeps } from '../../../src/pipeline/pipeline.js';
import { createSession, type Session } from '../../../src/pipeline/session.js';
import { defineHooks, type HookDefinitions } from '../../../src/registry/define.js';
import type { HookFunction } from '../../../src/registry/hook.js';

/** The gate with the real engine (in-process function hooks) and a fake upstream and client. */
const context = { server: { name: 'fs', source: 'proxy' as const }, sessionId: 'mcp-1', cwd: '/w' };
const sessions: Session[] = [];
afterEach(() => sessions.splice(0).forEach((session) => session.close()));

interface Fakes {
  readonly deps: GateDeps;
  readonly events: HookEvent[];
  readonly forwarded: JsonObject[];
  readonly background: EventInput[];
  readonly asked: string[];
}

const fakes = (
  hooks: HookDefinitions,
  upstream: (message: JsonObject) => Observable<JsonObject> = (message) =>
    of({
      jsonrpc: '2.0',
      id: message['id'] as number,
      result: { content: [{ type: 'text', text: 'done' }] },
    }),
  confirm?: (reason: string) => Observable<JsonObject>,
): Fakes => {
  const events: HookEvent[] = [];
  const record: HookFunction = (event) => void events.push(event);
  const session = createSession(
    defineHooks({ ...hooks, PreToolUse: [{ name: 'record', run: record }, ...(hooks.PreToolUse ?? [])] }),
    defaultDeps(),
    { concurrency: 'per-session' },
  );
  sessions.push(session);
  const forwarded: JsonObject[] = [];
  const background: EventInput[] = [];
  const asked: string[] = [];
  return {
    events,
    forwarded,
    background,
    asked,
    deps: {
      context,
      decide: deciding(session),
      background: (event) => background.push(event),
      upstream: (_id, message) => {
        forwarded.push(message);
        return upstream(message);
      },
      confirm: (_callId, tool, _input, reason) => {
        asked.push(`${tool}: ${reason}`);
        return confirm?.(reason);
      },
    },
  };
};

const call = (id: number | string, tool: string, input: JsonObject): ToolCall => ({
  id,
  tool,
  input,
  message: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: input, _meta: { k: 1 } },
  },
});

const reply = (deps: GateDeps, request: ToolCall): Promise<JsonObject> =>
  new Promise((resolve, reject) => gate(request, deps).subscribe({ next: resolve, error: reject }));

const blocked = (id: number | string, text: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }], isError: true },
});

describe('the gate of one tools/call', () => {
  it('a block never reaches the upstream; the client gets the reason as an error result', async () => {
    const { deps, forwarded, events } = fakes({
      PreToolUse: [
        {
          name: 'no-writes',
          matcher: '^mcp__fs__write_file$',
          run: () => ({ decision: 'block', reason: 'read-only' }),
        },
      ],
    });
    expect(await reply(deps, call(7, 'write_file', { path: '/x' }))).toStrictEqual(blocked(7, 'read-only'));
    expect(forwarded).toStrictEqual([]);
    expect(events[0]).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'mcp__fs__write_file',
      tool_input: { path: '/x' },
      tool_use_id: '7',
      mcp_server: { name: 'fs', source: 'proxy' },
    });
  });

  it('allowed: forwarded with the patched arguments (the rest of the request as written); PostToolUse may replace the result', async () => {
    const { deps, forwarded } = fakes({
      PreToolUse: [{ name: 'patch', run: () => ({ hookSpecificOutput: { tool_input: { mode: 'safe' } } }) }],
      PostToolUse: [
        { name: 'replace', run: () => ({ hookSpecificOutput: { updated_tool_response: 'secret' } }) },
      ],
    });
    expect(await reply(deps, call(1, 'read_file', { path: '/x' }))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'secret' }] },
    });
    expect(forwarded).toStrictEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: '/x', mode: 'safe' }, _meta: { k: 1 } },
      },
    ]);
  });

  it("the upstream's error goes to the client as is; PostToolUseFailure runs beside it", async () => {
    const error = { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'gone' } };
    const { deps, background } = fakes({}, () => of(error));
    expect(await reply(deps, call(2, 'read_file', {}))).toStrictEqual(error);
    expect(background).toMatchObject([
      { hook_event_name: 'PostToolUseFailure', tool_name: 'mcp__fs__read_file', error: 'gone (-32000)' },
    ]);
  });

  it('ask: the client confirms (runs) or not (blocked); a client that cannot be asked gets a block saying so', async () => {
    const asks = {
      PreToolUse: [{ name: 'confirm', run: () => ({ decision: 'ask' as const, reason: 'loud' }) }],
    };
    const accepting = fakes(asks, undefined, () =>
      of({ jsonrpc: '2.0', id: 'c', result: { action: 'accept' } }),
    );
    expect(await reply(accepting.deps, call(3, 'echo', {}))).toMatchObject({
      id: 3,
      result: { content: [{ text: 'done' }] },
    });
    expect(accepting.asked).toStrictEqual(['mcp__fs__echo: loud']);
    const declining = fakes(asks, undefined, () =>
      of({ jsonrpc: '2.0', id: 'c', result: { action: 'decline' } }),
    );
    expect(await reply(declining.deps, call(3, 'echo', {}))).toStrictEqual(
      blocked(3, 'the user did not confirm (decline): loud'),
    );
    expect(declining.forwarded).toStrictEqual([]);
    const unable = fakes(asks);
    expect(await reply(unable.deps, call(3, 'echo', {}))).toStrictEqual(
      blocked(
        3,
        'confirmation was required and this client cannot ask for it (no elicitation support): loud',
      ),
    );
  });

  it('an engine failure is a block, never a run', async () => {
    const { deps, forwarded } = fakes({});
    const broken = { decide: () => throwError(() => new Error('boom')) } as unknown as Session;
    const failing: GateDeps = { ...deps, decide: deciding(broken) };
    const answer = await reply(failing, call(4, 'echo', {}));
    expect(answer['result']).toMatchObject({ isError: true });
    expect(JSON.stringify(answer)).toContain('boom');
    expect(forwarded).toStrictEqual([]);
  });

  it('a verdict belongs to its call: calls side by side, sharing input (or tool), each get their own', async () => {
    const { deps, forwarded } = fakes({
      PreToolUse: [
        {
          name: 'per-call',
          run: (event) =>
            'tool_name' in event && (event.tool_name === 'mcp__fs__shell' || event.tool_use_id === 'b')
              ? { decision: 'block', reason: `no ${event.tool_use_id}` }
              : undefined,
        },
      ],
    });
    const input = { command: 'rm -rf /' };
    const answers = await Promise.all([
      reply(deps, call('a', 'read', input)),
      reply(deps, call('a2', 'shell', input)),
      reply(deps, call('b', 'read', input)),
    ]);
    expect(
      answers.map((answer) => [answer['id'], (answer['result'] as JsonObject)['isError'] ?? false]),
    ).toStrictEqual([
      ['a', false],
      ['a2', true],
      ['b', true],
    ]);
    expect(forwarded.map((message) => message['id'])).toStrictEqual(['a']);
  });
});

describe('the gates of a connection', () => {
  it('a call still deciding is held until stopped: stopping kills its hook, answers nothing, forwards nothing', () => {
    const replies: JsonObject[] = [];
    const slow = fakes({ PreToolUse: [{ name: 'slow', run: () => new Promise(() => undefined) }] });
    const gates = new Gates(slow.deps, (message) => replies.push(message));
    gates.open(call(1, 'echo', {}));
    expect(gates.has(1)).toBe(true);
    expect(gates.has('1')).toBe(false);
    expect(gates.stop(1)).toBe(true);
    expect(gates.has(1)).toBe(false);
    expect(gates.stop(1)).toBe(false);
    expect(replies).toStrictEqual([]);
    expect(slow.forwarded).toStrictEqual([]);
  });

  it('calls waiting for the upstream: stopAll gives their ids, and their waits end', async () => {
    let withdrawn = 0;
    const replies: JsonObject[] = [];
    const waiting = fakes({}, () => NEVER.pipe(finalize(() => (withdrawn += 1))));
    const gates = new Gates(waiting.deps, (message) => replies.push(message));
    gates.open(call(2, 'echo', {}));
    gates.open(call('3', 'echo', {}));
    while (waiting.forwarded.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(gates.size).toBe(2);
    expect(gates.stopAll()).toStrictEqual([2, '3']);
    expect(gates.size).toBe(0);
    expect(withdrawn).toBe(2);
    expect(replies).toStrictEqual([]);
  });

  it('background events are held until they end or are stopped', () => {
    const pending = new Subject<never>();
    const background = new Background(() => pending.pipe());
    background.run({
      hook_event_name: 'SessionStart',
      session_id: 's',
      cwd: '/',
      source: 'startup',
    } as EventInput);
    expect(pending.observed).toBe(true);
    background.stop();
    expect(pending.observed).toBe(false);
  });
});
