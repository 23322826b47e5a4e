import { describe, expect, it } from 'vitest';
import {
  coshEventsOf,
  mapMatcher,
  nameFor,
  timeoutMsOf,
  unmappedEventMessage,
} from '../../../src/dialects/import.js';

describe('mapMatcher', () => {
  it.each([
    [undefined, {}],
    ['', {}],
    ['*', {}],
    ['Bash', { matcher: '^(shell|run_shell_command)$' }],
    ['Edit|Write', { matcher: '^(replace|edit|write_file)$' }],
    ['Edit|MultiEdit|Write', { matcher: '^(replace|edit|write_file)$' }],
    ['mcp__github__create_issue', { matcher: '^(mcp__github__create_issue)$' }],
    ['Task', { matcher: '^(Task)$' }],
    ['mcp__.*', { matcher: 'mcp__.*' }],
    // Claude Code reads letters, digits, _, -, spaces, ',' and '|' as a list of exact names,
    // separated by '|' or ',' with optional spaces around them (hooks reference, "Matcher patterns").
    ['Edit, Write', { matcher: '^(replace|edit|write_file)$' }],
    ['Edit | Write', { matcher: '^(replace|edit|write_file)$' }],
    ['Bash,Read', { matcher: '^(shell|run_shell_command|read_file)$' }],
    [' Bash ', { matcher: '^(shell|run_shell_command)$' }],
    ['code-reviewer', { matcher: '^(code\\-reviewer)$' }],
  ])('claude %j → %j', (matcher, expected) => {
    expect(mapMatcher('claude', matcher)).toStrictEqual(expected);
  });

  it('keeps a Claude regular expression that names Claude tools, with a warning', () => {
    expect(mapMatcher('claude', 'Bash.*')).toStrictEqual({
      matcher: 'Bash.*',
      warning:
        'regular expression kept as is: it names Claude tools (Bash) that cosh calls shell/run_shell_command; rewrite it with cosh tool names',
    });
  });

  it('keeps Gemini matchers: its tools carry cosh names', () => {
    expect(mapMatcher('gemini', 'write_file|replace')).toStrictEqual({ matcher: 'write_file|replace' });
    expect(mapMatcher('gemini', '*')).toStrictEqual({});
  });

  it('mapped alternations are RE2-style: no lookaround, no backreference', () => {
    const { matcher } = mapMatcher('claude', 'Bash|Read|Grep|WebSearch|TodoWrite');
    expect(matcher).toBe(
      '^(shell|run_shell_command|read_file|grep|grep_search|google_web_search|web_search|todo|todo_write|write_todos)$',
    );
    expect(new RegExp(matcher ?? '').test('run_shell_command')).toBe(true);
    expect(new RegExp(matcher ?? '').test('run_shell_command_2')).toBe(false);
  });
});

describe('events', () => {
  it("maps each agent's events to cosh events", () => {
    expect(coshEventsOf('claude', 'PreToolUse')).toStrictEqual(['PreToolUse']);
    expect(coshEventsOf('claude', 'Notification')).toStrictEqual(['Notification']);
    expect(coshEventsOf('claude', 'SessionEnd')).toStrictEqual(['SessionEnd']);
    expect(coshEventsOf('claude', 'PreCompact')).toStrictEqual(['PreCompact']);
    expect(coshEventsOf('claude', 'SubagentStart')).toStrictEqual(['SubagentStart']);
    expect(coshEventsOf('claude', 'SubagentStop')).toStrictEqual(['SubagentStop']);
    expect(coshEventsOf('claude', 'PermissionRequest')).toStrictEqual([]);
    expect(coshEventsOf('gemini', 'PreCompress')).toStrictEqual(['PreCompact']);
    expect(coshEventsOf('gemini', 'SessionEnd')).toStrictEqual(['SessionEnd']);
    expect(coshEventsOf('gemini', 'Notification')).toStrictEqual(['Notification']);
    expect(coshEventsOf('gemini', 'PreCompact')).toStrictEqual([]);
    expect(coshEventsOf('claude', 'toString')).toStrictEqual([]);
    expect(coshEventsOf('gemini', 'BeforeTool')).toStrictEqual(['PreToolUse']);
    expect(coshEventsOf('gemini', 'AfterTool')).toStrictEqual(['PostToolUse', 'PostToolUseFailure']);
    expect(coshEventsOf('gemini', 'BeforeAgent')).toStrictEqual(['UserPromptSubmit']);
    expect(coshEventsOf('gemini', 'AfterAgent')).toStrictEqual(['Stop']);
    expect(coshEventsOf('gemini', 'PreToolUse')).toStrictEqual([]);
  });

  it('names the event and why it is skipped', () => {
    expect(unmappedEventMessage('claude', 'PermissionDenied')).toBe(
      'Claude Code event "PermissionDenied" has no cosh counterpart (cosh has no permission-denied event); its hooks are skipped',
    );
    expect(unmappedEventMessage('gemini', 'Whatever')).toBe(
      'Gemini CLI event "Whatever" has no cosh counterpart (cosh has no such event); its hooks are skipped',
    );
  });
});

describe('timeoutMsOf', () => {
  it('Claude seconds become milliseconds; Gemini milliseconds stay', () => {
    expect(timeoutMsOf('claude', 30)).toBe(30_000);
    expect(timeoutMsOf('claude', 0.5)).toBe(500);
    expect(timeoutMsOf('gemini', 5000)).toBe(5000);
  });
});

describe('nameFor', () => {
  it('is made of the script name and a hash: stable, and different per hook', () => {
    const a = nameFor('claude', 'PreToolUse', 'Bash', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh');
    expect(a).toMatch(/^claude-check\.sh-[0-9a-f]{8}$/);
    expect(nameFor('claude', 'PreToolUse', 'Bash', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh')).toBe(a);
    expect(nameFor('claude', 'PostToolUse', 'Bash', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh')).not.toBe(
      a,
    );
  });

  it.each([
    ['python3 ${CLAUDE_PLUGIN_ROOT}/scripts/format.py --fix', /^claude-format\.py-/],
    ['FOO=1 node ./guard.mjs', /^claude-guard\.mjs-/],
    ['jq -r .tool_input.command | xargs echo', /^claude-jq-/],
    ['$(rm -rf /)', /^claude-rm-/],
    ['   ', /^claude-hook-/],
  ])('%j', (command, pattern) => {
    expect(nameFor('claude', 'Stop', undefined, command)).toMatch(pattern);
    expect(nameFor('claude', 'Stop', undefined, command)).toMatch(/^[A-Za-z0-9._-]+$/);
  });
});
