import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from './helpers.js';

const box = sandbox(
  [
    hookTable('PreToolUse', {
      name: 'allower',
      matcher: '^allow_tool$',
      command: prints({ decision: 'allow', reason: 'looks fine' }),
    }),
    hookTable('PreToolUse', {
      name: 'blocker',
      matcher: '^block_tool$',
      command: prints({
        decision: 'block',
        reason: 'Dangerous rm -rf command',
        systemMessage: 'Command blocked by security policy',
      }),
    }),
    hookTable('PreToolUse', {
      name: 'asker',
      matcher: '^ask_tool$',
      command: prints({ decision: 'ASK', systemMessage: 'Confirm the deploy?' }),
    }),
    hookTable('PreToolUse', {
      name: 'denier',
      matcher: '^deny_tool$',
      command: prints({ decision: 'deny', reason: 'denied by policy' }),
    }),
    hookTable('PreToolUse', { name: 'quiet', matcher: '^none_tool$', command: 'cat > /dev/null' }),
    hookTable('PreToolUse', {
      name: 'guard',
      matcher: '^closed_tool$',
      command: "echo 'policy engine down' >&2; exit 3",
      fail_closed: true,
    }),
    hookTable('PreToolUse', { name: 'flaky', matcher: '^open_tool$', command: 'exit 3' }),
    hookTable('PreToolUse', { name: 'audit', command: 'cat > /dev/null' }),
    hookTable('UserPromptSubmit', {
      name: 'context',
      command: prints({ hookSpecificOutput: { additional_context: 'repo: demo', tags: { a: 1 } } }),
    }),
    hookTable('UserPromptSubmit', {
      name: 'more-context',
      command: prints({ hookSpecificOutput: { additionalContext: 'branch: main', tags: { b: 2 } } }),
    }),
    hookTable('SessionStart', {
      name: 'cannot-block',
      command: prints({ decision: 'block', reason: 'SessionStart is not interceptable' }),
    }),
  ].join('\n'),
);
afterAll(() => box.remove());

const tool = (tool_name: string, tool_use_id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 'sess-1',
  tool_name,
  tool_use_id,
  tool_input: { command: 'whatever' },
});

const notification = (hook_name: string, message: string, decision: string, tool_use_id?: string) => ({
  type: 'stream_event',
  event: {
    subtype: 'hook_notification',
    hook_name,
    message,
    decision,
    hook_event_name: 'PreToolUse',
    session_id: 'sess-1',
    ...(tool_use_id !== undefined && { tool_use_id }),
  },
});

const decision = (seq: number, tool_use_id: string, rest: Record<string, unknown>) => ({
  type: 'hook_decision',
  seq,
  hook_event_name: 'PreToolUse',
  session_id: 'sess-1',
  tool_use_id,
  ...rest,
});

const config = { source: 'config' };

describe('cosh-hooks run', () => {
  it('answers every decision value in input order, notifications before their decision', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl(
        tool('allow_tool', 't1'),
        tool('block_tool', 't2'),
        tool('ask_tool', 't3'),
        tool('deny_tool', 't4'),
        tool('none_tool', 't5'),
        tool('closed_tool', 't6'),
        tool('open_tool', 't7'),
      ),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).map(withoutTimes)).toEqual([
      notification('allower', 'looks fine', 'allow', 't1'),
      decision(1, 't1', {
        decision: 'allow',
        reason: 'looks fine',
        hooks: [
          { name: 'allower', ...config, decision: 'allow', outcome: 'ok' },
          { name: 'audit', ...config, decision: 'none', outcome: 'ok' },
        ],
      }),
      notification('blocker', 'Command blocked by security policy', 'block', 't2'),
      decision(2, 't2', {
        decision: 'block',
        reason: 'Dangerous rm -rf command',
        systemMessage: 'Command blocked by security policy',
        hooks: [
          { name: 'blocker', ...config, decision: 'block', outcome: 'ok' },
          { name: 'audit', ...config, outcome: 'skipped' },
        ],
      }),
      notification('asker', 'Confirm the deploy?', 'ask', 't3'),
      decision(3, 't3', {
        decision: 'ask',
        systemMessage: 'Confirm the deploy?',
        hooks: [
          { name: 'asker', ...config, decision: 'ask', outcome: 'ok' },
          { name: 'audit', ...config, decision: 'none', outcome: 'ok' },
        ],
      }),
      notification('denier', 'denied by policy', 'block', 't4'),
      decision(4, 't4', {
        decision: 'block',
        reason: 'denied by policy',
        hooks: [
          { name: 'denier', ...config, decision: 'block', outcome: 'ok' },
          { name: 'audit', ...config, outcome: 'skipped' },
        ],
      }),
      decision(5, 't5', {
        decision: 'none',
        hooks: [
          { name: 'quiet', ...config, decision: 'none', outcome: 'ok' },
          { name: 'audit', ...config, decision: 'none', outcome: 'ok' },
        ],
      }),
      notification('guard', 'exited with code 3: policy engine down', 'error', 't6'),
      decision(6, 't6', {
        decision: 'block',
        reason: 'policy engine down',
        hooks: [
          {
            name: 'guard',
            ...config,
            decision: 'block',
            outcome: 'exit',
            message: 'exited with code 3: policy engine down',
          },
          { name: 'audit', ...config, outcome: 'skipped' },
        ],
      }),
      notification('flaky', 'exited with code 3', 'error', 't7'),
      decision(7, 't7', {
        decision: 'none',
        hooks: [
          { name: 'flaky', ...config, outcome: 'exit', message: 'exited with code 3' },
          { name: 'audit', ...config, decision: 'none', outcome: 'ok' },
        ],
      }),
    ]);
  });

  it('joins additional context, merges hook output, and ignores decisions an event cannot take', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl(
        { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'hi' },
        { hook_event_name: 'SessionStart', session_id: 's' },
      ),
    });
    const [prompt, notice, start] = jsonLines(result.stdout).map(withoutTimes);
    expect(prompt).toEqual({
      type: 'hook_decision',
      seq: 1,
      hook_event_name: 'UserPromptSubmit',
      session_id: 's',
      decision: 'none',
      additional_context: 'repo: demo\nbranch: main',
      hook_specific_output: { tags: { a: 1, b: 2 } },
      hooks: [
        { name: 'context', ...config, decision: 'none', outcome: 'ok' },
        { name: 'more-context', ...config, decision: 'none', outcome: 'ok' },
      ],
    });
    expect(notice).toMatchObject({ event: { hook_name: 'cannot-block', decision: 'block' } });
    expect(start).toMatchObject({ seq: 2, decision: 'none' });
    expect(result.code).toBe(0);
  });

  it('answers bad lines with hook_error and their physical line number, and carries on', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl(
        tool('none_tool', 'a'),
        '',
        'not json at all',
        '   ',
        { hook_event_name: 'BeforeLunch', session_id: 's' },
        { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'x', tool_input: 'rm' },
        { hook_event_name: 'Stop' },
        '[1,2]',
        tool('none_tool', 'b'),
      ),
    });
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.filter((line) => line['type'] === 'hook_error')).toEqual([
      { type: 'hook_error', line: 3, message: expect.stringMatching(/^not JSON: /) as unknown },
      {
        type: 'hook_error',
        line: 5,
        session_id: 's',
        message:
          'hook_event_name: unknown event "BeforeLunch" (expected one of PreToolUse, PostToolUse, ' +
          'PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
      },
      { type: 'hook_error', line: 6, session_id: 's', message: 'tool_input: expected an object, got "rm"' },
      { type: 'hook_error', line: 7, message: 'session_id: missing required field (expected a string)' },
      { type: 'hook_error', line: 8, message: 'event: expected a JSON object, got an array' },
    ]);
    expect(lines.filter((line) => line['type'] === 'hook_decision').map((line) => line['seq'])).toEqual([
      1, 2,
    ]);
    expect(lines.map((line) => line['type'])).toEqual([
      'hook_decision',
      'hook_error',
      'hook_error',
      'hook_error',
      'hook_error',
      'hook_error',
      'hook_decision',
    ]);
  });

  it('rejects a line that is not UTF-8, processes a 10 MB line, and reports an over-long one', async () => {
    const huge = {
      hook_event_name: 'PostToolUse',
      session_id: 'big',
      tool_name: 'read',
      tool_input: {},
      tool_response: 'x'.repeat(10 * 1024 * 1024),
    };
    const input = Buffer.concat([
      Buffer.from('{"hook_event_name":"Stop","session_id":"caf'),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from('"}\n'),
      Buffer.from(jsonl(huge)),
      Buffer.from(jsonl({ hook_event_name: 'Stop', session_id: 'after' })),
    ]);
    const result = await cli(['run', ...box.flags], { input });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).map(withoutTimes)).toEqual([
      { type: 'hook_error', line: 1, message: 'not JSON: the line is not valid UTF-8' },
      {
        type: 'hook_decision',
        seq: 1,
        hook_event_name: 'PostToolUse',
        session_id: 'big',
        decision: 'none',
        hooks: [],
      },
      {
        type: 'hook_decision',
        seq: 2,
        hook_event_name: 'Stop',
        session_id: 'after',
        decision: 'none',
        hooks: [],
      },
    ]);

    const limited = await cli(['run', ...box.flags, '--max-line-bytes', '100'], {
      input: jsonl(
        { hook_event_name: 'Stop', session_id: 'y'.repeat(200) },
        { hook_event_name: 'Stop', session_id: 'ok' },
      ),
    });
    expect(jsonLines(limited.stdout).map(withoutTimes)).toEqual([
      { type: 'hook_error', line: 1, message: 'line is longer than 100 bytes' },
      {
        type: 'hook_decision',
        seq: 1,
        hook_event_name: 'Stop',
        session_id: 'ok',
        decision: 'none',
        hooks: [],
      },
    ]);
  });

  it('processes the last line without a trailing newline, and exits 0 on empty input', async () => {
    const last = await cli(['run', ...box.flags], { input: '{"hook_event_name":"Stop","session_id":"end"}' });
    expect(jsonLines(last.stdout)).toMatchObject([{ seq: 1, session_id: 'end' }]);
    const empty = await cli(['run', ...box.flags], { input: '' });
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

describe('cosh-hooks run with an invalid configuration', () => {
  it('exits 2 and prints every problem with file, line and path on stderr', async () => {
    const bad = sandbox(
      [
        '[[hooks.PreToolUse]]',
        'name = "slow"',
        'command = "true"',
        'timeout = 0',
        '',
        '[[hooks.PreToolUse]]',
        'name = "regex"',
        'command = "true"',
        'matcher = "(unclosed"',
        '',
        '[[hooks.NoSuchEvent]]',
        'name = "x"',
        'command = "true"',
      ].join('\n'),
    );
    try {
      const result = await cli(['run', ...bad.flags], {
        input: jsonl({ hook_event_name: 'Stop', session_id: 's' }),
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const file = bad.path('config.toml');
      const errors = result.stderr.trim().split('\n');
      expect(errors).toHaveLength(3);
      expect(errors[0]).toMatch(new RegExp(`^error: ${file}:4: hooks\\.PreToolUse\\[0\\]\\.timeout: `));
      expect(errors[1]).toMatch(new RegExp(`^error: ${file}:9: hooks\\.PreToolUse\\[1\\]\\.matcher: `));
      expect(errors.some((line) => line.includes('NoSuchEvent'))).toBe(true);
    } finally {
      bad.remove();
    }
  });

  it('exits 2 when the file named by --config does not exist', async () => {
    const result = await cli(['run', '--config', `${box.dir}/missing.toml`, '--home', box.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${box.dir}/missing.toml`);
  });
});
