import { describe, expect, it } from 'vitest';
import { admit, decodeEvent, readInput, JsonLine } from '../../../src/events/index.js';

const defaults = { now: () => new Date('2026-07-01T10:00:00Z'), cwd: () => '/host' };
const base = { session_id: 's1', cwd: '/p', timestamp: '2026-07-01T09:00:00Z' };

const valid: Record<string, Record<string, unknown>> = {
  PreToolUse: { tool_name: 'shell', tool_input: { command: 'ls' } },
  PostToolUse: { tool_name: 'shell', tool_input: {}, tool_response: 'anything' },
  PostToolUseFailure: { tool_name: 'shell', tool_input: {}, error: { code: 1 } },
  UserPromptSubmit: { prompt: 'hi' },
  SessionStart: {},
  Stop: { stop_hook_active: false },
  BeforeModel: { llm_request: { model: 'm' } },
  AfterModel: { llm_response: {} },
};

describe('decodeEvent', () => {
  it.each(Object.entries(valid))('accepts a minimal %s', (name, fields) => {
    const input = { hook_event_name: name, ...base, ...fields };
    expect(decodeEvent(input, defaults)).toEqual({ ok: true, value: input });
  });

  it.each([
    '2026-07-01T10:00:00Z',
    '2026-07-01T10:00:00.123456+02:00',
    '2026-07-01t10:00:00z',
    '2026-07-01 10:00:00-05:30',
  ])('accepts the RFC 3339 timestamp %s', (timestamp) => {
    expect(decodeEvent({ hook_event_name: 'Stop', session_id: 's', timestamp }, defaults).ok).toBe(true);
  });

  it('keeps unknown fields and fills cwd and timestamp', () => {
    const result = decodeEvent(
      { hook_event_name: 'SessionStart', session_id: 's', future_field: { x: [1] } },
      defaults,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        hook_event_name: 'SessionStart',
        session_id: 's',
        future_field: { x: [1] },
        cwd: '/host',
        timestamp: '2026-07-01T10:00:00.000Z',
      },
    });
  });

  it.each([
    [null, 'event: expected a JSON object, got null'],
    [[1], 'event: expected a JSON object, got an array'],
    ['x', 'event: expected a JSON object, got "x"'],
    [3, 'event: expected a JSON object, got number 3'],
    [{ session_id: 's' }, 'hook_event_name: missing required field'],
    [
      { hook_event_name: 'pretooluse', session_id: 's' },
      'hook_event_name: unknown event "pretooluse" (expected one of PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
    ],
    [{ hook_event_name: 'SessionStart' }, 'session_id: missing required field (expected a string)'],
    [{ hook_event_name: 'SessionStart', session_id: 7 }, 'session_id: expected a string, got number 7'],
    [{ hook_event_name: 'SessionStart', session_id: 's', cwd: 1 }, 'cwd: expected a string, got number 1'],
    [
      { hook_event_name: 'SessionStart', session_id: 's', timestamp: '2026-07-01 10:00' },
      'timestamp: expected an RFC 3339 timestamp, got "2026-07-01 10:00"',
    ],
    [
      { hook_event_name: 'SessionStart', session_id: 's', timestamp: '2026-13-45T10:00:00Z' },
      'timestamp: expected an RFC 3339 timestamp, got "2026-13-45T10:00:00Z"',
    ],
    [
      { hook_event_name: 'SessionStart', session_id: 's', timestamp: 17 },
      'timestamp: expected an RFC 3339 timestamp, got number 17',
    ],
    [
      { hook_event_name: 'SessionStart', session_id: 's', source: false },
      'source: expected a string, got boolean false',
    ],
    [
      { hook_event_name: 'PreToolUse', session_id: 's', tool_input: {} },
      'tool_name: missing required field (expected a string)',
    ],
    [
      { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 't', tool_input: 'ls' },
      'tool_input: expected an object, got "ls"',
    ],
    [
      { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 't', tool_input: [] },
      'tool_input: expected an object, got an array',
    ],
    [
      { hook_event_name: 'PostToolUse', session_id: 's', tool_name: 't', tool_input: {} },
      'tool_response: missing required field (expected any JSON value)',
    ],
    [
      { hook_event_name: 'PostToolUseFailure', session_id: 's', tool_name: 't', tool_input: {}, error: 3 },
      'error: expected a string or an object, got number 3',
    ],
    [
      { hook_event_name: 'UserPromptSubmit', session_id: 's' },
      'prompt: missing required field (expected a string)',
    ],
    [
      { hook_event_name: 'Stop', session_id: 's', stop_hook_active: 'yes' },
      'stop_hook_active: expected a boolean, got "yes"',
    ],
    [
      { hook_event_name: 'BeforeModel', session_id: 's', llm_request: null },
      'llm_request: expected an object, got null',
    ],
    [
      { hook_event_name: 'AfterModel', session_id: 's', llm_response: {}, llm_request: 1 },
      'llm_request: expected an object, got number 1',
    ],
  ])('rejects %j', (input, error) => {
    expect(decodeEvent(input, defaults)).toEqual({ ok: false, error });
  });

  it('checks an optional field the event inherits, as io-ts reads it', () => {
    const inherited = Object.assign(Object.create({ source: 5 }) as object, {
      hook_event_name: 'SessionStart',
      session_id: 's',
    });
    expect(decodeEvent(inherited, defaults)).toEqual({
      ok: false,
      error: 'source: expected a string, got number 5',
    });
  });

  it('accepts an optional field present as undefined', () => {
    const input = { hook_event_name: 'Stop', session_id: 's', last_assistant_message: undefined };
    expect(decodeEvent(input, defaults).ok).toBe(true);
  });
});

describe('admit', () => {
  it('parses JSON lines and keeps the line number on errors', () => {
    expect(
      admit(readInput(new JsonLine(3, '{"hook_event_name":"Stop","session_id":"s"}')), defaults),
    ).toMatchObject({
      ok: true,
      value: { hook_event_name: 'Stop' },
    });
    expect(admit(readInput(new JsonLine(4, '{nope')), defaults)).toMatchObject({ ok: false, line: 4 });
    expect(
      admit(readInput(new JsonLine(5, '{"hook_event_name":"Nope","session_id":"s"}')), defaults),
    ).toMatchObject({
      ok: false,
      line: 5,
      error: expect.stringContaining('unknown event "Nope"'),
    });
  });

  it('plain values have no line', () => {
    expect(admit(readInput({}), defaults)).toStrictEqual({
      ok: false,
      error: 'hook_event_name: missing required field',
    });
  });
});
