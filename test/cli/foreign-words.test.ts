import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, jsonl, jsonLines } from './helpers.js';

/*
 * docs/compat.md, "A hook without dialect": a hook written for Claude Code but configured without
 * `dialect` is never a silent pass-through. Real sh hooks through the built binary.
 */

const scratch = mkdtempSync(join(tmpdir(), 'cosh-cli-foreign-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const isolated = ['--home', join(scratch, 'home'), '--system-extensions-dir', join(scratch, 'none')];

const script = (name: string, body: string): string => {
  const file = join(scratch, name);
  writeFileSync(file, `#!/bin/sh\ncat >/dev/null\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
};

const DENY = script(
  'claude-deny.sh',
  `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed"}}'`,
);
const EXIT2 = script('claude-exit2.sh', `echo 'Blocked: writes outside the project' >&2\nexit 2`);

const config = (name: string, text: string): string => {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
};

const CONFIG = config(
  'config.toml',
  [
    '[hooks]',
    'enabled = true',
    '',
    '[[hooks.PreToolUse]]',
    'name = "claude-guard"',
    `command = "${DENY}"`,
    '',
    '[[hooks.PreToolUse]]',
    'name = "exit-guard"',
    `command = "${EXIT2}"`,
    '',
  ].join('\n'),
);

const shell = (command: string, id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

describe('run: a Claude hook configured without dialect', () => {
  it('blocks with its reason, and stderr names it once, with file:line and the dialect to set', async () => {
    const audit = join(scratch, 'audit.jsonl');
    const result = await cli(['run', ...isolated, '--config', CONFIG, '--audit', audit], {
      input: jsonl(shell('rm -rf /', 't1'), shell('rm -rf ~', 't2')),
    });
    expect(result.code).toBe(0);
    const decisions = jsonLines(result.stdout).filter((line) => line['type'] === 'hook_decision');
    expect(decisions.map((line) => [line['decision'], line['reason']])).toStrictEqual([
      ['block', 'rm -rf is not allowed'],
      ['block', 'rm -rf is not allowed'],
    ]);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('another agent'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`warning: ${CONFIG}:4: hook "claude-guard" (PreToolUse, no dialect)`);
    expect(warnings[0]).toContain('read as block');
    expect(warnings[0]).toContain('permissionDecision "deny"');
    expect(warnings[0]).toContain('dialect = "claude"');
    const records = jsonLines(readFileSync(audit, 'utf8')).filter((line) => line['record'] === 'hook_result');
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ hook: 'claude-guard', effective: 'block' });
    expect(String(records[0]?.['foreign'])).toContain('permissionDecision');
  });

  it('exit 2 with a reason on stderr blocks with its first line, named at its own line', async () => {
    const only = config(
      'exit2.toml',
      `[hooks]\nenabled = true\n\n[[hooks.PreToolUse]]\nname = "exit-guard"\ncommand = "${EXIT2}"\n`,
    );
    const result = await cli(['run', ...isolated, '--config', only], {
      input: jsonl(shell('cp a /etc', 't1')),
    });
    expect(result.code).toBe(0);
    const [decision] = jsonLines(result.stdout).filter((line) => line['type'] === 'hook_decision');
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'Blocked: writes outside the project',
      hooks: [{ name: 'exit-guard', outcome: 'exit', decision: 'block' }],
    });
    expect(result.stderr).toContain(`warning: ${only}:4: hook "exit-guard" (PreToolUse, no dialect)`);
    expect(result.stderr).toContain('exit status 2 with a reason on stderr');
  });

  it('with dialect = "claude" the same hook blocks and no warning is written', async () => {
    const declared = config(
      'declared.toml',
      `[hooks]\nenabled = true\n\n[[hooks.PreToolUse]]\nname = "claude-guard"\ncommand = "${DENY}"\ndialect = "claude"\n`,
    );
    const result = await cli(['run', ...isolated, '--config', declared], {
      input: jsonl(shell('rm -rf /', 't1')),
    });
    expect(jsonLines(result.stdout).find((line) => line['type'] === 'hook_decision')).toMatchObject({
      decision: 'block',
    });
    expect(result.stderr).not.toContain('another agent');
  });
});
