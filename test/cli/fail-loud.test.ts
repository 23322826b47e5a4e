import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from './helpers.js';

/**
 * A guard that cannot run never looks like a guard that allowed (docs/execution.md, "Fail
 * loud"): through the built binary, as a host and a user run it.
 */

const RM = {
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  tool_name: 'shell',
  tool_input: { command: 'rm -rf /' },
};

const decisionsOf = (stdout: string) =>
  jsonLines(stdout)
    .filter((line) => line['type'] === 'hook_decision')
    .map(withoutTimes);

describe.concurrent('a hook whose command does not exist', () => {
  it('fail_closed: `run` blocks rm -rf / (failure spawn) and names the hook on stderr at start', async () => {
    const box = sandbox(
      hookTable('PreToolUse', {
        name: 'guard',
        command: '/opt/nowhere/security-guard --strict',
        fail_closed: true,
      }),
    );
    try {
      const result = await cli(['run', ...box.flags], { input: jsonl(RM) });
      expect(result.code).toBe(0);
      const [decision] = decisionsOf(result.stdout);
      expect(decision).toMatchObject({
        decision: 'block',
        hooks: [{ name: 'guard', source: 'config', outcome: 'spawn' }],
      });
      expect(result.stderr).toBe(
        `warning: ${box.path('config.toml')}:1: hooks.PreToolUse[0]: command cannot start: program "/opt/nowhere/security-guard" not found; it fails with \`spawn\` on every event, and being fail_closed it blocks each one it can block\n`,
      );
    } finally {
      box.remove();
    }
  });

  it('not fail_closed: the call passes through, and stderr said so before the first event', async () => {
    const box = sandbox(
      hookTable('PreToolUse', { name: 'guard', command: 'security-guard-that-is-not-installed' }),
    );
    try {
      const result = await cli(['run', ...box.flags], { input: jsonl(RM) });
      expect(result.code).toBe(0);
      expect(decisionsOf(result.stdout)).toEqual([
        expect.objectContaining({
          decision: 'none',
          hooks: [
            {
              name: 'guard',
              source: 'config',
              outcome: 'spawn',
              message: 'could not start: security-guard-that-is-not-installed: not found',
            },
          ],
        }),
      ]);
      expect(result.stderr).toMatch(
        /^warning: .*config\.toml:1: hooks\.PreToolUse\[0\]: command cannot start: program "security-guard-that-is-not-installed" not found in PATH; .*each one passes as if the hook had no opinion \(set fail_closed = true to block instead\)\n$/,
      );
    } finally {
      box.remove();
    }
  });

  it('[hooks] fail_closed = true makes it block without a word in the hook itself', async () => {
    const box = sandbox(
      [
        '[hooks]',
        'fail_closed = true',
        '',
        hookTable('PreToolUse', { name: 'guard', command: 'python3 /opt/nowhere/guard.py' }),
      ].join('\n'),
    );
    try {
      const result = await cli(['run', ...box.flags], { input: jsonl(RM) });
      expect(decisionsOf(result.stdout)[0]).toMatchObject({ decision: 'block' });
      expect(result.stderr).toContain('script "/opt/nowhere/guard.py" not found');
      const listed = await cli(['list', ...box.flags, '--json']);
      const json = JSON.parse(listed.stdout) as { events: Record<string, { fail_closed: boolean }[]> };
      expect(json.events['PreToolUse']?.[0]?.fail_closed).toBe(true);
    } finally {
      box.remove();
    }
  });

  it('validate exits 1 naming file:line; list marks the hook; a working hook next to it is not marked', async () => {
    const box = sandbox(
      [
        hookTable('PreToolUse', { name: 'ok', command: 'cat' }),
        hookTable('PreToolUse', { name: 'gone', command: 'node ./hooks/missing.mjs', fail_closed: true }),
      ].join('\n'),
    );
    try {
      const validate = await cli(['validate', ...box.flags], { cwd: box.dir });
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(
        `warning: ${box.path('config.toml')}:5: hooks.PreToolUse[1]: command cannot start: script "./hooks/missing.mjs" not found (a relative path: looked for in ${box.dir}; the hook runs in the event's cwd)`,
      );
      expect(validate.stdout.trim().split('\n').at(-1)).toBe('1 warning');

      const list = await cli(['list', ...box.flags], { cwd: box.dir });
      expect(list.code).toBe(0);
      const rows = list.stdout.split('\n');
      expect(
        rows.filter((line) => /^ {2}!?\d/.test(line)).map((line) => line.split(/\s+/).slice(1, 3)),
      ).toEqual([
        ['1', 'ok'],
        ['!2', 'gone'],
      ]);
      expect(rows).toContain(
        `     ! command cannot start: script "./hooks/missing.mjs" not found (a relative path: looked for in ${box.dir}; the hook runs in the event's cwd); it fails with \`spawn\` on every event, and being fail_closed it blocks each one it can block`,
      );
      expect(list.stderr).toContain('hooks.PreToolUse[1]: command cannot start');
    } finally {
      box.remove();
    }
  });
});

describe.concurrent('other problems are loud too', () => {
  it('a nameless fail_closed guard is skipped loudly: validate exits 1, run names it with file:line', async () => {
    const box = sandbox(hookTable('PreToolUse', { command: 'exit 2', fail_closed: true }));
    try {
      const validate = await cli(['validate', ...box.flags]);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(
        `warning: ${box.path('config.toml')}:1: hooks.PreToolUse[0].name: hook has no name; skipped: this fail_closed guard does not run`,
      );
      const run = await cli(['run', ...box.flags], { input: jsonl(RM) });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        `${box.path('config.toml')}:1: hooks.PreToolUse[0].name: hook has no name; skipped: this fail_closed guard does not run`,
      );
    } finally {
      box.remove();
    }
  });

  it('matcher = "Bash" is reported with the cosh names; run still runs and names it', async () => {
    const box = sandbox(hookTable('PreToolUse', { name: 'claude-style', matcher: 'Bash', command: 'cat' }));
    try {
      const validate = await cli(['validate', ...box.flags]);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain(
        'hooks.PreToolUse[0]: matcher "Bash" can never match: it is written for Claude Code\'s Bash, a tool cosh calls shell, run_shell_command (write matcher = "^(shell|run_shell_command)$")',
      );
      const run = await cli(['run', ...box.flags], { input: jsonl(RM) });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('matcher "Bash" can never match');
    } finally {
      box.remove();
    }
  });

  it('a misspelt fail_closed in an extension manifest is a warning, not a silent fail-open', async () => {
    const box = sandbox('');
    try {
      const ext = join(box.dir, 'extensions', 'sec');
      mkdirSync(ext, { recursive: true });
      writeFileSync(
        join(ext, 'cosh-extension.json'),
        JSON.stringify({
          name: 'sec',
          hooks: {
            PreToolUse: [{ hooks: [{ type: 'command', name: 'g', command: 'cat', failClosed: true }] }],
          },
        }),
      );
      const validate = await cli(['validate', ...box.flags, '--extensions-dir', join(box.dir, 'extensions')]);
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain('hooks.PreToolUse[0].hooks[0].failClosed: unknown key ignored');
      expect(validate.stdout).toContain('did you mean fail_closed?');
    } finally {
      box.remove();
    }
  });
});

describe.concurrent('cosh-hooks doctor', () => {
  it('dry-runs each hook in the workspace and says per hook: starts, answers, outcome, meaning', async () => {
    const box = sandbox('');
    try {
      const where = box.path('cwd-seen');
      const script = box.write(
        'allow.sh',
        `pwd > '${where}'\ncat > /dev/null\n${prints({ decision: 'allow' })}\n`,
      );
      chmodSync(script, 0o755);
      box.write(
        'config.toml',
        [
          hookTable('PreToolUse', { name: 'allows', command: script, matcher: 'shell' }),
          hookTable('PreToolUse', { name: 'blocks', command: prints({ decision: 'block', reason: 'no' }) }),
          hookTable('PreToolUse', { name: 'missing', command: 'not-installed-guard', fail_closed: true }),
          hookTable('Stop', { name: 'garbled', command: "printf 'not json'" }),
          hookTable('SessionStart', { name: 'quiet', command: 'cat > /dev/null' }),
        ].join('\n'),
      );
      const result = await cli(['doctor', ...box.flags, '--json']);
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as {
        ok: boolean;
        warnings: { message: string }[];
        hooks: Record<string, unknown>[];
      };
      expect(report.ok).toBe(false);
      expect(report.warnings.map((problem) => problem.message)).toEqual([
        expect.stringContaining('program "not-installed-guard" not found in PATH'),
      ]);
      expect(report.hooks.map(({ duration_ms: _time, ...run }) => run)).toEqual([
        {
          event: 'PreToolUse',
          name: 'allows',
          source: 'config',
          started: true,
          answered: true,
          outcome: 'allow',
          meaning: 'allows the sample',
        },
        {
          event: 'PreToolUse',
          name: 'blocks',
          source: 'config',
          started: true,
          answered: true,
          outcome: 'block',
          meaning: 'blocks even this harmless sample: no',
        },
        {
          event: 'PreToolUse',
          name: 'missing',
          source: 'config',
          started: false,
          answered: false,
          outcome: 'spawn',
          meaning: expect.stringMatching(
            /^could not start: .*not-installed-guard.*; a real event it applies to is blocked \(fail_closed\)$/,
          ),
        },
        {
          event: 'SessionStart',
          name: 'quiet',
          source: 'config',
          started: true,
          answered: true,
          outcome: 'none',
          meaning: 'no opinion (pass-through)',
        },
        {
          event: 'Stop',
          name: 'garbled',
          source: 'config',
          started: true,
          answered: false,
          outcome: 'invalid_output',
          meaning: expect.stringMatching(
            /; a real event passes as if it had no opinion \(not fail_closed\)$/,
          ),
        },
      ]);
      expect(report.hooks.every((run) => typeof run['duration_ms'] === 'number')).toBe(true);
      // The sample ran in the folder run would run it in: the workspace (here the current folder).
      const seen = readFileSync(where, 'utf8').trim();
      expect(seen).toBe(realpathSync(process.cwd()));

      const text = await cli(['doctor', ...box.flags]);
      expect(text.code).toBe(1);
      const lines = text.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^warning: .*config\.toml:\d+: hooks\.PreToolUse\[2\]: command cannot start/);
      expect(lines.find((line) => line.includes(' missing '))).toMatch(
        /PreToolUse +missing +config +no +no +spawn /,
      );
      expect(lines.at(-1)).toBe('1 warning, 2 of 5 hooks did not answer');
    } finally {
      box.remove();
    }
  });

  it('exits 0 when every hook starts and answers', async () => {
    const box = sandbox(hookTable('UserPromptSubmit', { name: 'fine', command: 'cat > /dev/null' }));
    try {
      const result = await cli(['doctor', ...box.flags]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split('\n').at(-1)).toBe('ok: 1 hook started and answered');
    } finally {
      box.remove();
    }
  });
});
