import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, jsonl, jsonLines, prints, sandbox, type Sandbox } from './helpers.js';

/**
 * The seed's rule 5 (a hook definition without a name is skipped), loudly: the nameless table is
 * left out with its file:line everywhere, and every other hook of the file still runs.
 */
const CONFIG = [
  '[[hooks.PreToolUse]]',
  'command = "true"',
  'fail_closed = true',
  '',
  '[[hooks.PreToolUse]]',
  'name = "  "',
  'command = "true"',
  '',
  '[[hooks.PreToolUse]]',
  'name = "guard"',
  `command = ${JSON.stringify(prints({ decision: 'block', reason: 'no' }))}`,
  '',
].join('\n');

const event = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_use_id: 't1',
  tool_input: { command: 'ls' },
};

let box: Sandbox;
afterEach(() => box.remove());

describe('a hook without a name in config.toml', () => {
  it('is skipped with its file:line on stderr and in the audit; the guard beside it still blocks', async () => {
    box = sandbox(CONFIG);
    const file = box.path('config.toml');
    const audit = box.path('audit.jsonl');
    const run = await cli(['run', ...box.flags, '--audit', audit], { input: jsonl(event) });
    expect(run.code).toBe(0);
    const decision = jsonLines(run.stdout).find((line) => line['type'] === 'hook_decision');
    expect(decision).toMatchObject({ decision: 'block', reason: 'no' });
    expect(run.stderr).toContain(`${file}:1: hooks.PreToolUse[0].name: hook has no name; skipped`);
    expect(run.stderr).toContain('this fail_closed guard does not run');
    expect(run.stderr).toContain(`${file}:6: hooks.PreToolUse[1].name: hook has a blank name; skipped`);
    const skipped = jsonLines(readFileSync(audit, 'utf8')).filter(
      (record) => record['record'] === 'config' && record['subject'] === 'skipped_hook',
    );
    // The audit names the hook table (line 5), the warning its blank name (line 6).
    expect(skipped.map((record) => record['file'])).toEqual([`${file}:1`, `${file}:5`]);
  });

  it('is a validate problem (exit 1) with its file:line', async () => {
    box = sandbox(CONFIG);
    const validate = await cli(['validate', ...box.flags]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `${box.path('config.toml')}:1: hooks.PreToolUse[0].name: hook has no name; skipped`,
    );
  });

  it('is marked in list, in its place, and is not run', async () => {
    box = sandbox(CONFIG);
    const list = await cli(['list', ...box.flags]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/!1 +\(no name\) .* skipped/);
    expect(list.stdout).toMatch(/!2 +\(no name\) .* skipped/);
    expect(list.stdout).toMatch(/ 3 +guard /);
    const json = await cli(['list', '--json', ...box.flags]);
    const chain = (
      JSON.parse(json.stdout) as {
        events: Record<string, { name: string; enabled: boolean; skipped?: string }[]>;
      }
    ).events['PreToolUse'];
    expect(chain?.map((hook) => [hook.name, hook.enabled, hook.skipped !== undefined])).toEqual([
      ['', false, true],
      ['', false, true],
      ['guard', true, false],
    ]);
  });
});
