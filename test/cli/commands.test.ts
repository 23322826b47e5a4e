import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, prints, sandbox, withoutTimes } from './helpers.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const box = sandbox(
  [
    hookTable('PreToolUse', {
      name: 'guard',
      matcher: '^(shell|run_shell_command)$',
      timeout: 2000,
      fail_closed: true,
      command: `grep -q 'rm -rf' && ${prints({ decision: 'block', reason: 'Dangerous rm -rf command', systemMessage: 'Command blocked by security policy' })} || true`,
    }),
    hookTable('SessionStart', {
      name: 'context',
      command: prints({ hookSpecificOutput: { additional_context: 'repo: demo' } }),
    }),
  ].join('\n'),
);
// One user extension adding an audit hook after the guard.
const extensions = box.path('extensions');
mkdirSync(join(extensions, 'audit'), { recursive: true });
writeFileSync(
  join(extensions, 'audit', 'cosh-extension.json'),
  JSON.stringify({
    name: 'audit-ext',
    version: '1.2.0',
    hooks: {
      PreToolUse: [
        { hooks: [{ type: 'command', name: 'audit', command: 'cat > /dev/null', timeout: 1000 }] },
      ],
    },
  }),
);
const flags = [...box.flags, '--extensions-dir', extensions];
afterAll(() => box.remove());

describe.concurrent('cosh-hooks validate', () => {
  it('says what it found when there is no problem', async () => {
    const result = await cli(['validate', ...flags]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`ok: ${box.path('config.toml')}, 1 extension, 3 hooks\n`);
  });

  it('lists every problem, errors and warnings, and exits 1', async () => {
    const bad = sandbox(
      [
        '[[hooks.PreToolUse]]',
        'command = "true"',
        '',
        '[[hooks.Stop]]',
        'name = "late"',
        'command = "true"',
        'timeout = "soon"',
        'matcher = "shell"',
      ].join('\n'),
    );
    try {
      const file = bad.path('config.toml');
      const text = await cli(['validate', ...bad.flags]);
      expect(text.code).toBe(1);
      const lines = text.stdout.trim().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(new RegExp(`^error: ${file}:7: hooks\\.Stop\\[0\\]\\.timeout: expected `));
      expect(lines[1]).toMatch(
        new RegExp(`^warning: ${file}:1: hooks\\.PreToolUse\\[0\\]\\.name: hook has no name; skipped`),
      );
      expect(lines[2]).toMatch(new RegExp(`^warning: ${file}:8: hooks\\.Stop\\[0\\]\\.matcher: ignored`));
      expect(lines[3]).toBe('1 error, 2 warnings');

      const json = await cli(['validate', ...bad.flags, '--json']);
      expect(json.code).toBe(1);
      const report = JSON.parse(json.stdout) as { ok: boolean; errors: unknown[]; warnings: unknown[] };
      expect(report.ok).toBe(false);
      expect(report.errors).toEqual([
        expect.objectContaining({ file, line: 7, path: 'hooks.Stop[0].timeout' }) as unknown,
      ]);
      expect(report.warnings).toEqual([
        expect.objectContaining({ file, line: 1, path: 'hooks.PreToolUse[0].name' }) as unknown,
        expect.objectContaining({ file, line: 8 }) as unknown,
      ]);
    } finally {
      bad.remove();
    }
  });

  it('reports a broken extension manifest as a warning naming its file', async () => {
    const broken = box.path('broken-extensions');
    mkdirSync(join(broken, 'bad'), { recursive: true });
    writeFileSync(join(broken, 'bad', 'cosh-extension.json'), '{ not json');
    const result = await cli(['validate', ...box.flags, '--extensions-dir', broken, '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; errors: unknown[]; warnings: unknown[] };
    const file = join(broken, 'bad', 'cosh-extension.json');
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([
      { file, message: 'extension not loaded: 1 problem in its manifest' },
      // After our prefix comes Node's own wording of the syntax error, which changes between versions.
      { file, line: 1, message: expect.stringMatching(/^invalid JSON \(column 3\): \S/) as unknown },
    ]);
  });
});

describe.concurrent('cosh-hooks list', () => {
  it('shows each chain in order with source, matcher, timeout, fail_closed and enabled', async () => {
    const result = await cli(['list', ...flags]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`config file  ${box.path('config.toml')}`);
    expect(lines[1]).toBe(`extensions   audit-ext 1.2.0 (user)  ${join(extensions, 'audit')}`);
    const pre = lines.indexOf('PreToolUse');
    expect(lines.slice(pre, pre + 6).map((line) => line.replace(/ +/g, ' ').trim())).toEqual([
      'PreToolUse',
      '# name source matcher timeout fail_closed redact enabled mode',
      '1 guard config ^(shell|run_shell_command)$ 2000 ms yes no yes per-event',
      expect.stringMatching(/^\$ grep -q 'rm -rf'/) as unknown,
      '2 audit extension:audit-ext * 1000 ms no no yes per-event',
      '$ cat > /dev/null',
    ]);
    expect(result.stdout).toContain(
      'no hooks  PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop',
    );
  });

  it('shows disabled hooks as disabled', async () => {
    const states = box.path('states');
    mkdirSync(states, { recursive: true });
    writeFileSync(join(states, 'hooks.json'), JSON.stringify({ disabled: ['audit'] }));
    const result = await cli(['list', ...flags, '--state-dir', states, '--json']);
    const listed = JSON.parse(result.stdout) as {
      events: Record<string, { name: string; enabled: boolean }[]>;
    };
    expect(listed.events['PreToolUse']?.map((hook) => [hook.name, hook.enabled])).toEqual([
      ['guard', true],
      ['audit', false],
    ]);
  });

  it('prints the chains as JSON with --json', async () => {
    const result = await cli(['list', ...flags, '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(listed['config_file']).toBe(box.path('config.toml'));
    expect(listed['extensions']).toEqual([
      { name: 'audit-ext', version: '1.2.0', path: join(extensions, 'audit'), scope: 'user', enabled: true },
    ]);
    const events = listed['events'] as Record<string, unknown[]>;
    expect(Object.keys(events)).toEqual([
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'UserPromptSubmit',
      'SessionStart',
      'Stop',
      'BeforeModel',
      'AfterModel',
      'SessionEnd',
      'Notification',
      'PreCompact',
      'SubagentStart',
      'SubagentStop',
    ]);
    expect(events['PreToolUse']).toEqual([
      {
        name: 'guard',
        source: 'config',
        command: expect.stringMatching(/^grep/) as unknown,
        matcher: '^(shell|run_shell_command)$',
        timeout: 2000,
        fail_closed: true,
        redact: false,
        persistent: false,
        enabled: true,
      },
      {
        name: 'audit',
        source: 'extension:audit-ext',
        command: 'cat > /dev/null',
        matcher: null,
        timeout: 1000,
        fail_closed: false,
        redact: false,
        persistent: false,
        enabled: true,
        extension_path: join(extensions, 'audit'),
      },
    ]);
  });

  it('exits 2 on an invalid configuration', async () => {
    const bad = sandbox('[hooks]\nenabled = "yes"\n');
    try {
      const result = await cli(['list', ...bad.flags]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: .*config\.toml:2: hooks\.enabled: /);
    } finally {
      bad.remove();
    }
  });
});

describe.concurrent('cosh-hooks fire', () => {
  it('runs one event and prints a readable result (no colour on a pipe)', async () => {
    const result = await cli([
      'fire',
      'PreToolUse',
      '--tool',
      'shell',
      '--input',
      '{"tool_input":{"command":"rm -rf /"}}',
      ...flags,
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).not.toContain('\u001b[');
    const text = result.stdout.replace(/\d+ ms/g, 'N ms');
    expect(text).toBe(
      [
        'PreToolUse  tool shell · session cosh-hooks-fire',
        '',
        '╭─ guard · PreToolUse · block',
        '│ Command blocked by security policy',
        '╰─',
        '',
        'hook   source               mode       decision  outcome  time',
        'guard  config               per-event  block     ok       N ms',
        'audit  extension:audit-ext  per-event  -         skipped',
        '',
        'decision BLOCK  Dangerous rm -rf command',
        '  message  Command blocked by security policy',
        '',
      ].join('\n'),
    );
  });

  it('prints notifications and the decision as JSON with --json', async () => {
    const result = await cli(['fire', 'SessionStart', '--session', 'abc', '--json', ...flags]);
    expect(result.code).toBe(0);
    const fired = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(fired['event']).toEqual({ hook_event_name: 'SessionStart', session_id: 'abc', source: 'startup' });
    expect(fired['notifications']).toEqual([]);
    expect(withoutTimes(fired['decision'] as Record<string, unknown>)).toEqual({
      type: 'hook_decision',
      seq: 1,
      hook_event_name: 'SessionStart',
      session_id: 'abc',
      decision: 'none',
      additional_context: 'repo: demo',
      hooks: [{ name: 'context', source: 'config', decision: 'none', outcome: 'ok' }],
    });
  });

  it('reads the event from --event-file, and from stdin with -', async () => {
    const file = box.write(
      'event.json',
      JSON.stringify({
        session_id: 'from-file',
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls' },
      }),
    );
    const fromFile = await cli(['fire', 'PreToolUse', '--event-file', file, '--json', ...flags]);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      decision: { session_id: 'from-file', decision: 'none' },
    });
    const fromStdin = await cli(['fire', 'PreToolUse', '--event-file', '-', '--json', ...flags], {
      input: readFileSync(file),
    });
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ decision: { session_id: 'from-file' } });
  });

  it('refuses an invalid event with the field and the problem, and a bad event name', async () => {
    const invalid = await cli(['fire', 'UserPromptSubmit', '--input', '{"prompt":42}', ...flags]);
    expect(invalid).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'cosh-hooks: invalid event: prompt: expected a string, got number 42\n',
    });
    const noTool = await cli(['fire', 'PreToolUse', ...flags]);
    expect(noTool).toMatchObject({
      code: 1,
      stderr: 'cosh-hooks: PreToolUse needs a tool: pass --tool NAME\n',
    });
    const notJson = await cli(['fire', 'Stop', '--input', '{oops', ...flags]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^cosh-hooks: --input is not JSON: /);
    const unknown = await cli(['fire', 'BeforeLunch', ...flags]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("'BeforeLunch' is invalid for argument 'event'");
  });
});

describe.concurrent('--help and --version', () => {
  it('prints the version from package.json, on the program and on every command', async () => {
    for (const args of [['--version'], ['-V'], ['run', '--version'], ['fire', '--version']]) {
      expect(await cli(args)).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    }
  });

  it('prints help for the program and each command', async () => {
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    for (const command of ['run', 'validate', 'list', 'fire']) expect(main.stdout).toContain(`  ${command} `);
    const expected: Record<string, string[]> = {
      run: ['--concurrency <mode>', '--extensions-dir <dir>', '--max-line-bytes <n>', 'Exit status: 0'],
      validate: ['--json', '--config <file>'],
      list: ['--json', '--state-dir <dir>'],
      fire: ['<event>', '--tool <name>', '--input <json>', '--event-file <file>', '--session <id>'],
    };
    for (const [command, options] of Object.entries(expected)) {
      const help = await cli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: cosh-hooks ${command} [options]`);
      for (const option of options) expect(help.stdout).toContain(option);
    }
  });

  it('rejects an unknown option with a usage error', async () => {
    const result = await cli(['run', '--frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown option '--frobnicate'");
  });
});
