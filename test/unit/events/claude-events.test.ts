import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/events/codecs.js';
import { decodeEvent } from '../../../src/events/decode.js';
import { INTERCEPTABLE, MATCHED_EVENTS, MATCHED_FIELD } from '../../../src/events/names.js';
import { claudeEvent, geminiEvent } from '../../../src/dialects/events.js';
import { mapMatcher } from '../../../src/dialects/import.js';
import { chainFor } from '../../../src/registry/chain.js';
import { defineHooks } from '../../../src/registry/define.js';

// SessionEnd, Notification, PreCompact, SubagentStart and SubagentStop, with the fields Claude
// Code sends (docs/protocol.md).

const defaults = { now: () => new Date('2026-07-01T10:00:00Z'), cwd: () => '/w' };
const decode = (value: Record<string, unknown>) => decodeEvent({ session_id: 's', ...value }, defaults);

describe('decodeEvent: the Claude Code event points', () => {
  it.each([
    [{ hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }],
    [{ hook_event_name: 'SessionEnd' }],
    [{ hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' }],
    [
      {
        hook_event_name: 'Notification',
        message: 'waiting',
        title: 'Claude Code',
        notification_type: 'idle_prompt',
      },
    ],
    [{ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }],
    [{ hook_event_name: 'SubagentStart', agent_id: 'a1', agent_type: 'Explore' }],
    [{ hook_event_name: 'SubagentStop' }],
    [
      {
        hook_event_name: 'SubagentStop',
        agent_id: 'a1',
        agent_type: 'Explore',
        agent_transcript_path: '/t/a1.jsonl',
        last_assistant_message: 'done',
        stop_hook_active: false,
        // unknown fields are kept (forward compatibility)
        background: true,
      },
    ],
  ])('admits %j as sent', (value) => {
    const decoded = decode(value);
    expect(decoded).toStrictEqual({
      ok: true,
      value: { session_id: 's', ...value, cwd: '/w', timestamp: '2026-07-01T10:00:00.000Z' },
    });
  });

  it.each([
    [{ hook_event_name: 'Notification' }, 'message: missing required field (expected a string)'],
    [
      { hook_event_name: 'Notification', message: 'm', notification_type: 3 },
      'notification_type: expected a string, got number 3',
    ],
    [{ hook_event_name: 'PreCompact' }, 'trigger: missing required field (expected a string)'],
    [
      { hook_event_name: 'SubagentStart', agent_id: 'a' },
      'agent_type: missing required field (expected a string)',
    ],
    [
      { hook_event_name: 'SubagentStop', stop_hook_active: 'yes' },
      'stop_hook_active: expected a boolean, got "yes"',
    ],
    [{ hook_event_name: 'SessionEnd', reason: ['clear'] }, 'reason: expected a string, got an array'],
    [{ hook_event_name: 'sessionend' }, 'hook_event_name: unknown event "sessionend"'],
  ])('rejects %j naming the field', (value, message) => {
    const decoded = decode(value);
    expect(decoded.ok).toBe(false);
    expect(decoded.ok ? '' : decoded.error).toContain(message);
  });

  it('only SubagentStop can block, like Stop; the others are observed', () => {
    expect(INTERCEPTABLE.SubagentStop).toStrictEqual(['allow', 'block']);
    for (const name of ['SessionEnd', 'Notification', 'PreCompact', 'SubagentStart'] as const)
      expect(INTERCEPTABLE[name]).toStrictEqual([]);
    expect(INTERCEPTABLE.UserPromptSubmit).toStrictEqual(['allow', 'block', 'ask']);
  });

  it('matchers filter the field Claude Code matches', () => {
    expect(MATCHED_FIELD).toStrictEqual({
      PreToolUse: 'tool_name',
      PostToolUse: 'tool_name',
      PostToolUseFailure: 'tool_name',
      SessionEnd: 'reason',
      Notification: 'notification_type',
      PreCompact: 'trigger',
      SubagentStart: 'agent_type',
      SubagentStop: 'agent_type',
    });
    expect(MATCHED_EVENTS).not.toContain('SessionStart');
  });
});

const event = (fields: Record<string, unknown>): HookEvent =>
  ({ session_id: 's', cwd: '/w', timestamp: '2026-07-01T10:00:00Z', ...fields }) as unknown as HookEvent;

describe('chainFor: matchers on the Claude Code event points', () => {
  const registry = defineHooks({
    Notification: [
      { name: 'permission', command: 'x', matcher: '^permission_prompt$' },
      { name: 'idle-or-auth', command: 'x', matcher: 'idle_prompt|auth_success' },
      { name: 'every', command: 'x' },
    ],
    PreCompact: [
      { name: 'auto-only', command: 'x', matcher: '^auto$' },
      { name: 'star', command: 'x', matcher: '*' },
    ],
    SubagentStart: [{ name: 'explore', command: 'x', matcher: '^Explore$' }],
    SubagentStop: [
      { name: 'explore', command: 'x', matcher: '^Explore$' },
      // A sub-agent type named like a tool is not a tool: no alias applies to it.
      { name: 'shell-type', command: 'x', matcher: '^run_shell_command$' },
    ],
    SessionEnd: [{ name: 'on-clear', command: 'x', matcher: '^clear$' }],
  });
  const names = (value: Record<string, unknown>) => chainFor(registry, event(value)).map((hook) => hook.name);

  it.each([
    [
      { hook_event_name: 'Notification', message: 'm', notification_type: 'permission_prompt' },
      ['permission', 'every'],
    ],
    [
      { hook_event_name: 'Notification', message: 'm', notification_type: 'auth_success' },
      ['idle-or-auth', 'every'],
    ],
    // No type sent: only hooks that match every notification run.
    [{ hook_event_name: 'Notification', message: 'm' }, ['every']],
    [{ hook_event_name: 'PreCompact', trigger: 'auto' }, ['auto-only', 'star']],
    [{ hook_event_name: 'PreCompact', trigger: 'manual' }, ['star']],
    [{ hook_event_name: 'SubagentStart', agent_id: 'a', agent_type: 'Explore' }, ['explore']],
    [{ hook_event_name: 'SubagentStart', agent_id: 'a', agent_type: 'Plan' }, []],
    [{ hook_event_name: 'SubagentStop', agent_type: 'Explore' }, ['explore']],
    [{ hook_event_name: 'SubagentStop', agent_type: 'shell' }, []],
    [{ hook_event_name: 'SubagentStop' }, []],
    [{ hook_event_name: 'SessionEnd', reason: 'clear' }, ['on-clear']],
    [{ hook_event_name: 'SessionEnd', reason: 'logout' }, []],
  ])('%j runs %j', (value, expected) => {
    expect(names(value)).toStrictEqual(expected);
  });

  it('an event a registry has no hooks for costs one lookup: the empty chain is returned as is', () => {
    const empty = defineHooks({});
    expect(chainFor(empty, event({ hook_event_name: 'Notification', message: 'm' }))).toBe(
      empty.Notification,
    );
  });
});

describe('dialects: the events as each agent sends them', () => {
  it('Claude hooks get the names and fields Claude Code sends, with its defaults', () => {
    expect(
      claudeEvent(event({ hook_event_name: 'SubagentStop', agent_type: 'Explore' })).event,
    ).toStrictEqual(
      event({
        hook_event_name: 'SubagentStop',
        agent_type: 'Explore',
        transcript_path: '',
        permission_mode: 'default',
        stop_hook_active: false,
      }),
    );
    expect(claudeEvent(event({ hook_event_name: 'PreCompact', trigger: 'auto' })).event).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'auto',
      custom_instructions: '',
    });
    expect(claudeEvent(event({ hook_event_name: 'SessionEnd' })).event).toMatchObject({ reason: 'other' });
    expect(
      claudeEvent(event({ hook_event_name: 'Notification', message: 'm', notification_type: 'idle_prompt' }))
        .event,
    ).toMatchObject({ hook_event_name: 'Notification', notification_type: 'idle_prompt' });
  });

  it("Gemini hooks get Gemini CLI's names: PreCompress, ToolPermission with details", () => {
    expect(geminiEvent(event({ hook_event_name: 'PreCompact', trigger: 'manual' })).event).toMatchObject({
      hook_event_name: 'PreCompress',
      trigger: 'manual',
    });
    expect(
      geminiEvent(
        event({ hook_event_name: 'Notification', message: 'm', notification_type: 'permission_prompt' }),
      ).event,
    ).toMatchObject({ hook_event_name: 'Notification', notification_type: 'ToolPermission', details: {} });
    expect(
      geminiEvent(event({ hook_event_name: 'Notification', message: 'm', notification_type: 'idle_prompt' }))
        .event,
    ).toMatchObject({ notification_type: 'idle_prompt' });
    expect(geminiEvent(event({ hook_event_name: 'SessionEnd' })).event).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'other',
    });
    // Gemini CLI has no sub-agent events: the cosh name is kept.
    expect(
      geminiEvent(event({ hook_event_name: 'SubagentStart', agent_id: 'a', agent_type: 'Plan' })).event,
    ).toMatchObject({ hook_event_name: 'SubagentStart' });
  });
});

describe('mapMatcher on events that match another field than the tool name', () => {
  it.each([
    ['claude', 'permission_prompt', 'Notification', '^(permission_prompt)$'],
    ['claude', 'idle_prompt|auth_success', 'Notification', '^(idle_prompt|auth_success)$'],
    // A Claude agent type named Bash is not the Bash tool: no translation to shell names.
    ['claude', 'Bash', 'SubagentStart', '^(Bash)$'],
    ['claude', 'Expl.*', 'SubagentStop', 'Expl.*'],
    ['claude', 'manual', 'PreCompact', '^(manual)$'],
    ['gemini', 'ToolPermission', 'Notification', '^permission_prompt$'],
    ['gemini', 'auto', 'PreCompress', '^auto$'],
    ['gemini', 'exit', 'SessionEnd', '^exit$'],
  ] as const)('%s %j on %s becomes %j', (dialect, matcher, foreignEvent, expected) => {
    expect(mapMatcher(dialect, matcher, { tools: false, event: foreignEvent })).toStrictEqual({
      matcher: expected,
    });
  });

  it('"*" and "" still match everything', () => {
    expect(mapMatcher('claude', '*', { tools: false, event: 'Notification' })).toStrictEqual({});
    expect(mapMatcher('gemini', '', { tools: false, event: 'Notification' })).toStrictEqual({});
  });
});
