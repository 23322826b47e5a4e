import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/events/codecs.js';
import { claudeEvent, geminiEvent } from '../../../src/dialects/events.js';
import { claudeToolCall, geminiToolCall } from '../../../src/dialects/tools.js';

const base = { session_id: 's1', cwd: '/w', timestamp: '2026-07-01T10:00:00Z' };
const ev = (fields: Record<string, unknown>): HookEvent => ({ ...base, ...fields }) as unknown as HookEvent;

describe('claudeToolCall', () => {
  it.each([
    ['shell', { command: 'ls' }, 'Bash', { command: 'ls' }],
    ['run_shell_command', { command: 'ls', dir_path: 'src' }, 'Bash', { command: 'ls', dir_path: 'src' }],
    ['read_file', { absolute_path: '/w/a.ts', limit: 5 }, 'Read', { file_path: '/w/a.ts', limit: 5 }],
    ['write_file', { file_path: '/w/a.ts', content: 'x' }, 'Write', { file_path: '/w/a.ts', content: 'x' }],
    [
      'replace',
      { file_path: '/w/a', old_string: 'a', new_string: 'b' },
      'Edit',
      { file_path: '/w/a', old_string: 'a', new_string: 'b' },
    ],
    ['edit', { path: '/w/a' }, 'Edit', { file_path: '/w/a' }],
    [
      'grep_search',
      { pattern: 'x', dir_path: 'src', include: '*.ts' },
      'Grep',
      { pattern: 'x', path: 'src', glob: '*.ts' },
    ],
    ['glob', { pattern: '**/*.ts' }, 'Glob', { pattern: '**/*.ts' }],
    ['todo', { todos: [] }, 'TodoWrite', { todos: [] }],
    ['web_fetch', { url: 'https://x' }, 'WebFetch', { url: 'https://x' }],
    ['mcp__github__create_issue', { title: 't' }, 'mcp__github__create_issue', { title: 't' }],
  ])('%s %j → %s %j', (name, input, claudeName, claudeInput) => {
    const call = claudeToolCall(name, input);
    expect(call.name).toBe(claudeName);
    expect(call.input).toStrictEqual(claudeInput);
    // What the hook returns in its own names comes back in the names the host sent.
    expect(call.back(call.input)).toStrictEqual(input);
  });

  it('keeps a field the event already has under the Claude name', () => {
    const call = claudeToolCall('read_file', { file_path: '/a', absolute_path: '/b' });
    expect(call.input).toStrictEqual({ file_path: '/a', absolute_path: '/b' });
  });

  it('writes __proto__ keys back as data', () => {
    const input = JSON.parse('{"absolute_path":"/a","__proto__":{"polluted":true}}') as Record<
      string,
      unknown
    >;
    const call = claudeToolCall('read_file', input);
    const back = call.back(
      JSON.parse('{"file_path":"/b","__proto__":{"polluted":true}}') as Record<string, unknown>,
    );
    expect(Object.keys(back)).toStrictEqual(['absolute_path', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });
});

describe('geminiToolCall', () => {
  it.each([
    ['shell', 'run_shell_command'],
    ['grep', 'grep_search'],
    ['edit', 'replace'],
    ['todo_write', 'write_todos'],
    ['read_file', 'read_file'],
    ['run_shell_command', 'run_shell_command'],
  ])('%s → %s, input unchanged', (name, geminiName) => {
    const input = { command: 'ls', file_path: '/w/a' };
    expect(geminiToolCall(name, input)).toMatchObject({ name: geminiName, input });
  });
});

describe('claudeEvent', () => {
  it('PreToolUse: Claude tool, fields Claude hooks read, the rest kept', () => {
    const sent = claudeEvent(
      ev({
        hook_event_name: 'PreToolUse',
        tool_use_id: 't1',
        run_id: 'r',
        tool_name: 'shell',
        tool_input: { command: 'ls' },
      }),
    );
    expect(sent.event).toStrictEqual({
      ...base,
      hook_event_name: 'PreToolUse',
      tool_use_id: 't1',
      run_id: 'r',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      transcript_path: '',
      permission_mode: 'default',
    });
  });

  it('keeps a transcript_path and permission_mode the host sent', () => {
    const sent = claudeEvent(
      ev({
        hook_event_name: 'UserPromptSubmit',
        prompt: 'hi',
        transcript_path: '/t.jsonl',
        permission_mode: 'plan',
      }),
    );
    expect(sent.event).toMatchObject({ transcript_path: '/t.jsonl', permission_mode: 'plan', prompt: 'hi' });
  });

  it('SessionStart gets source "startup", Stop gets stop_hook_active false when absent', () => {
    expect(claudeEvent(ev({ hook_event_name: 'SessionStart' })).event['source']).toBe('startup');
    expect(claudeEvent(ev({ hook_event_name: 'SessionStart', source: 'resume' })).event['source']).toBe(
      'resume',
    );
    expect(claudeEvent(ev({ hook_event_name: 'Stop' })).event['stop_hook_active']).toBe(false);
  });

  it('back maps a returned Read input to the cosh field the event used', () => {
    const sent = claudeEvent(
      ev({
        hook_event_name: 'PreToolUse',
        tool_name: 'read_file',
        tool_input: { absolute_path: '/w/x.log' },
      }),
    );
    expect(sent.back({ file_path: '/w/x.log', limit: 200 })).toStrictEqual({
      absolute_path: '/w/x.log',
      limit: 200,
    });
  });
});

describe('geminiEvent', () => {
  it.each([
    ['PreToolUse', 'BeforeTool'],
    ['PostToolUse', 'AfterTool'],
    ['UserPromptSubmit', 'BeforeAgent'],
    ['Stop', 'AfterAgent'],
    ['SessionStart', 'SessionStart'],
    ['BeforeModel', 'BeforeModel'],
    ['AfterModel', 'AfterModel'],
  ])('%s is sent as %s', (cosh, gemini) => {
    expect(
      geminiEvent(ev({ hook_event_name: cosh, tool_name: 'x', tool_input: {} })).event['hook_event_name'],
    ).toBe(gemini);
  });

  it('Stop → AfterAgent with prompt_response and stop_hook_active', () => {
    const sent = geminiEvent(ev({ hook_event_name: 'Stop', last_assistant_message: 'Done.' }));
    expect(sent.event).toStrictEqual({
      ...base,
      hook_event_name: 'AfterAgent',
      last_assistant_message: 'Done.',
      prompt: '',
      prompt_response: 'Done.',
      stop_hook_active: false,
      transcript_path: '',
    });
  });

  it('PostToolUseFailure → AfterTool whose tool_response holds the error', () => {
    const sent = geminiEvent(
      ev({
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'shell',
        tool_input: { command: 'x' },
        error: 'boom',
      }),
    );
    expect(sent.event).toMatchObject({
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_response: { error: 'boom' },
    });
  });
});
