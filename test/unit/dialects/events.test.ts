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

  it('keeps a field the event already has under the Claude name (same value under both names)', () => {
    const call = claudeToolCall('read_file', { file_path: '/a', absolute_path: '/a' });
    expect(call.input).toStrictEqual({ file_path: '/a', absolute_path: '/a' });
    expect(call.conflict).toBeUndefined();
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

/**
 * Decoys (docs/compat.md, "Fields with several names"): cosh-core's file tools read `path`, the
 * Gemini-family tools `file_path` (`absolute_path` in older Gemini CLI), Claude hooks `file_path`.
 * An event that names two different values under two names of one field could show a hook the
 * harmless one while the tool uses the other: such an event is never shown to a foreign hook.
 */
const GROUPS: ReadonlyArray<readonly [readonly string[], readonly string[]]> = [
  [
    ['read_file', 'write_file', 'replace', 'edit'],
    ['file_path', 'absolute_path', 'path'],
  ],
  [
    ['grep', 'grep_search', 'glob', 'list_directory'],
    ['path', 'dir_path', 'directory'],
  ],
  [
    ['grep', 'grep_search'],
    ['glob', 'include'],
  ],
];
const PAIRS = GROUPS.flatMap(([tools, fields]) =>
  tools.flatMap((tool) =>
    fields.flatMap((first, i) => fields.slice(i + 1).map((second) => [tool, first, second] as const)),
  ),
);

describe('aliased tool_input fields that disagree', () => {
  it('covers every pair of names of one field (26 pairs)', () => {
    expect(PAIRS).toHaveLength(4 * 3 + 4 * 3 + 2 * 1);
  });

  it.each(PAIRS)(
    '%s with %s and %s: a conflict for Claude and Gemini hooks, in either order',
    (tool, a, b) => {
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const input = { [x]: '/etc/shadow', [y]: 'notes.txt', other: 1 };
        for (const sent of [claudeEvent, geminiEvent].map((dialect) =>
          dialect(ev({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input })),
        )) {
          expect(sent.conflict).toBe(
            `tool_input of "${tool}" gives ${[a, b]
              .map((field) => `${field} ${JSON.stringify(input[field])}`)
              .join(' and ')}: the tool uses one of them`,
          );
        }
      }
    },
  );

  it.each(PAIRS)('%s with %s and %s equal: no conflict', (tool, a, b) => {
    const input = { [a]: '/w/a', [b]: '/w/a' };
    expect(
      claudeEvent(
        ev({ hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_response: 'ok' }),
      ).conflict,
    ).toBeUndefined();
    expect(
      geminiEvent(ev({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input })).conflict,
    ).toBeUndefined();
  });

  it('all three names of the file path, two of them equal: a conflict naming the ones that differ first', () => {
    const sent = claudeEvent(
      ev({
        hook_event_name: 'PreToolUse',
        tool_name: 'read_file',
        tool_input: { file_path: 'notes.txt', absolute_path: 'notes.txt', path: '/etc/shadow' },
      }),
    );
    expect(sent.conflict).toBe(
      'tool_input of "read_file" gives file_path "notes.txt" and path "/etc/shadow": the tool uses one of them',
    );
  });

  it('a value that is not a string still counts: two different values are two different targets', () => {
    const sent = geminiEvent(
      ev({
        hook_event_name: 'PreToolUse',
        tool_name: 'write_file',
        tool_input: { file_path: 'a', path: ['/etc/passwd'] },
      }),
    );
    expect(sent.conflict).toBe(
      'tool_input of "write_file" gives file_path "a" and path ["/etc/passwd"]: the tool uses one of them',
    );
  });

  it('a long value is cut in the message', () => {
    const long = `/${'x'.repeat(200)}`;
    const sent = claudeEvent(
      ev({ hook_event_name: 'PreToolUse', tool_name: 'edit', tool_input: { path: long, file_path: 'a' } }),
    );
    expect(sent.conflict).toBe(
      `tool_input of "edit" gives file_path "a" and path ${JSON.stringify(long).slice(0, 60)}…: the tool uses one of them`,
    );
  });

  it('tools without aliased fields, and unknown tools, have no conflict whatever their fields', () => {
    for (const tool of ['shell', 'run_shell_command', 'web_fetch', 'mcp__fs__read']) {
      const input = { file_path: 'a', absolute_path: 'b', path: 'c' };
      expect(
        claudeEvent(ev({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input })).conflict,
      ).toBeUndefined();
    }
  });

  it('events without a tool have no conflict', () => {
    expect(
      claudeEvent(ev({ hook_event_name: 'UserPromptSubmit', prompt: 'x', path: 'a', file_path: 'b' }))
        .conflict,
    ).toBeUndefined();
  });
});
