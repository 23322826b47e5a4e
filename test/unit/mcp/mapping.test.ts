import { describe, expect, it } from 'vitest';
import {
  callOf,
  canElicit,
  confirmation,
  confirmed,
  idKey,
  preToolUse,
  progressTokenOf,
  replacementResult,
  serverNameOf,
  toolName,
} from '../../../src/mcp/mapping.js';

const context = { server: { name: 'github', source: 'proxy' as const }, sessionId: 'mcp-1', cwd: '/w' };

describe('the MCP mapping', () => {
  it('names tools as Claude Code does, and makes any server name fit', () => {
    expect(toolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(serverNameOf('my server/v2.1')).toBe('my_server_v2_1');
  });

  it('a tools/call becomes a PreToolUse with the ids of the session and the request', () => {
    expect(preToolUse(context, 'create_issue', { title: 't' }, 7)).toStrictEqual({
      hook_event_name: 'PreToolUse',
      session_id: 'mcp-1',
      cwd: '/w',
      tool_name: 'mcp__github__create_issue',
      tool_input: { title: 't' },
      tool_use_id: '7',
      mcp_server: { name: 'github', source: 'proxy' },
    });
  });

  it.each([
    [{ name: 'x' }, { ok: true, tool: 'x', input: {} }],
    [
      { name: 'x', arguments: { a: 1 } },
      { ok: true, tool: 'x', input: { a: 1 } },
    ],
    [{ name: 1 }, { ok: false, message: 'tools/call: params.name must be a string' }],
    [undefined, { ok: false, message: 'tools/call: params.name must be a string' }],
    [
      { name: 'x', arguments: [1] },
      { ok: false, message: 'tools/call: params.arguments must be an object' },
    ],
    [
      { name: 'x', arguments: 'a' },
      { ok: false, message: 'tools/call: params.arguments must be an object' },
    ],
  ])('callOf(%j)', (params, expected) => {
    expect(callOf(params)).toStrictEqual(expected);
  });

  it('ids 1 and "1" are different requests', () => {
    expect(idKey(1)).not.toBe(idKey('1'));
  });

  it.each([
    [{ capabilities: { elicitation: {} } }, true],
    [{ capabilities: { elicitation: { form: {} } } }, true],
    [{ capabilities: { elicitation: { url: {} } } }, false],
    [{ capabilities: {} }, false],
    [{ capabilities: { elicitation: true } }, false],
    [null, false],
  ])('canElicit(%j) = %s', (params, expected) => {
    expect(canElicit(params)).toBe(expected);
  });

  it('reads a confirmation: only accept runs the call', () => {
    expect(confirmed({ result: { action: 'accept' } }, 'r')).toStrictEqual({ ok: true });
    expect(confirmed({ result: { action: 'cancel' } }, 'r')).toStrictEqual({
      ok: false,
      reason: 'the user did not confirm (cancel): r',
    });
    expect(confirmed({ error: { code: -1, message: 'nope' } }, 'r')).toStrictEqual({
      ok: false,
      reason: 'confirmation failed (nope): r',
    });
    expect(confirmed({ result: {} }, 'r')).toStrictEqual({
      ok: false,
      reason: 'confirmation failed (no answer): r',
    });
  });

  it('a replacement with content is a tool result as is; anything else is shown as text', () => {
    const result = { content: [{ type: 'text', text: 'x' }], isError: false };
    expect(replacementResult(result)).toBe(result);
    expect(replacementResult('plain')).toStrictEqual({ content: [{ type: 'text', text: 'plain' }] });
    expect(replacementResult({ a: 1 })).toStrictEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
  });

  it('a confirmation shows the reason, the tool and its input, cut when huge', () => {
    const small = confirmation('c1', 'mcp__fs__write', { path: '/a' }, 'writes need a yes');
    expect(small['params']).toStrictEqual({
      message: 'writes need a yes\n\nAllow mcp__fs__write with {"path":"/a"}?',
      requestedSchema: { type: 'object', properties: {} },
    });
    const huge = confirmation('c2', 't', { text: 'x'.repeat(10_000) }, 'r');
    const message = (huge['params'] as { message: string }).message;
    expect(message.length).toBeLessThan(2_100);
    expect(message).toContain('… (10011 characters)?');
  });

  it('finds the progress token of a request', () => {
    expect(progressTokenOf({ _meta: { progressToken: 'p' } })).toBe('p');
    expect(progressTokenOf({ _meta: { progressToken: { x: 1 } } })).toBeUndefined();
    expect(progressTokenOf({})).toBeUndefined();
  });
});
