import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from '../cli/helpers.js';

/**
 * Issue 10 class 7 and issue 12 item 1 (spec §4.1): matchers are RE2 patterns matched in linear
 * time, what needs backtracking is a configuration error naming the matcher, and a matcher also
 * matches a tool's other name (cosh-core's aliases). Drives the built binary.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/config/extensions/', import.meta.url));

const boxes: { remove: () => void }[] = [];
afterAll(() => boxes.forEach((box) => box.remove()));
const box = (config: string) => {
  const made = sandbox(config);
  boxes.push(made);
  return made;
};

const preToolUse = (tool_name: string, tool_use_id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name,
  tool_use_id,
  tool_input: { command: 'ls' },
});

const summary = (line: Record<string, unknown>) => {
  const { hooks, seq, tool_use_id, decision, reason } = withoutTimes(line) as Record<string, unknown>;
  return { seq, tool_use_id, decision, reason, hooks };
};

describe('catastrophic matchers (issue 10 class 7)', () => {
  it(
    'a ^(a+)+$ matcher against a 32-character tool name decides at once, and the next event too',
    { timeout: 20_000 },
    async () => {
      const sandboxed = box(
        hookTable('PreToolUse', {
          name: 'evil',
          matcher: '^(a+)+$',
          command: prints({ decision: 'block' }),
        }) +
          hookTable('PreToolUse', { name: 'audit', command: prints({ decision: 'allow', reason: 'seen' }) }),
      );
      const { code, stdout, stderr } = await cli(['run', ...sandboxed.flags], {
        input: jsonl(preToolUse(`${'a'.repeat(31)}!`, 't1'), preToolUse('a'.repeat(32), 't2')),
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(
        jsonLines(stdout)
          .filter((line) => line['type'] === 'hook_decision')
          .map(summary),
      ).toStrictEqual([
        {
          seq: 1,
          tool_use_id: 't1',
          decision: 'allow',
          reason: 'seen',
          hooks: [{ name: 'audit', source: 'config', decision: 'allow', outcome: 'ok' }],
        },
        {
          seq: 2,
          tool_use_id: 't2',
          decision: 'block',
          reason: undefined,
          hooks: [
            { name: 'evil', source: 'config', decision: 'block', outcome: 'ok' },
            { name: 'audit', source: 'config', outcome: 'skipped' },
          ],
        },
      ]);
    },
  );

  it.each([
    [
      'a backreference',
      '(a)\\\\1',
      'invalid regular expression "(a)\\\\1" (RE2 syntax): invalid escape sequence: `\\1`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    [
      'a lookahead',
      '^(?!read_)',
      'invalid regular expression "^(?!read_)" (RE2 syntax): invalid or unsupported Perl syntax: `(?!`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    [
      'a lookbehind',
      '(?<=run_)shell',
      'invalid regular expression "(?<=run_)shell" (RE2 syntax): invalid named capture: `(?<=run_)shell`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
  ])(
    '%s in config.toml fails validate with file:line and the dotted path; run exits 2',
    async (_, toml, message) => {
      const sandboxed = box(
        `[[hooks.PreToolUse]]\nname = "ok"\ncommand = "true"\n\n[[hooks.PreToolUse]]\nname = "g"\ncommand = "true"\nmatcher = "${toml}"\n`,
      );
      const validated = await cli(['validate', ...sandboxed.flags]);
      expect(validated.code).toBe(1);
      expect(validated.stdout).toBe(
        `error: ${sandboxed.path('config.toml')}:8: hooks.PreToolUse[1].matcher: ${message}\n1 error\n`,
      );
      const run = await cli(['run', ...sandboxed.flags], { input: jsonl(preToolUse('shell', 't')) });
      expect([run.code, run.stdout]).toStrictEqual([2, '']);
      expect(run.stderr).toContain(`hooks.PreToolUse[1].matcher: ${message}`);
    },
  );

  it('a lookahead in a manifest disables that extension with warnings; the others still run', async () => {
    const sandboxed = box(
      hookTable('PreToolUse', { name: 'config-hook', command: prints({ decision: 'allow' }) }),
    );
    const extensions = sandboxed.path('extensions');
    mkdirSync(join(extensions, 'lookahead'), { recursive: true });
    const manifest = join(extensions, 'lookahead', 'cosh-extension.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: 'lookahead',
        hooks: {
          PreToolUse: [
            { matcher: '^(?!read_)', hooks: [{ type: 'command', name: 'guard', command: 'echo x' }] },
          ],
        },
      }),
    );
    const flags = [...sandboxed.flags, '--extensions-dir', extensions];
    const validated = await cli(['validate', ...flags]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toBe(
      [
        `warning: ${manifest}: extension not loaded: 1 problem in its manifest`,
        `warning: ${manifest}:1: hooks.PreToolUse[0].matcher: invalid regular expression "^(?!read_)" (RE2 syntax): invalid or unsupported Perl syntax: \`(?!\`; lookaround and backreferences need backtracking, which RE2 syntax does not have`,
        '2 warnings',
        '',
      ].join('\n'),
    );
    const run = await cli(['run', ...flags], { input: jsonl(preToolUse('shell', 't')) });
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).map(summary)).toStrictEqual([
      {
        seq: 1,
        tool_use_id: 't',
        decision: 'allow',
        reason: undefined,
        hooks: [{ name: 'config-hook', source: 'config', decision: 'allow', outcome: 'ok' }],
      },
    ]);
  });
});

describe('tool-name aliases in matchers (issue 12 item 1)', () => {
  it('an agent-sec-core manifest matching run_shell_command fires for a host tool called shell, which it receives as sent', async () => {
    const sandboxed = box('');
    const extensions = sandboxed.path('extensions');
    const folder = join(extensions, 'agent-sec-core');
    cpSync(join(FIXTURES, 'agent-sec-core'), folder, { recursive: true });
    // The shipped shape, with a hook that reports which tool_name it was given.
    writeFileSync(
      join(folder, 'cosh-extension.json'),
      JSON.stringify({
        name: 'agent-sec-core',
        version: '0.7.0',
        hooks: {
          PreToolUse: [
            {
              matcher: 'run_shell_command',
              sequential: true,
              hooks: [
                {
                  type: 'command',
                  name: 'code-scanner',
                  command: `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify({decision:"block",reason:"saw "+JSON.parse(s).tool_name})))'`,
                  timeout: 5000,
                  fail_closed: false,
                },
              ],
            },
            {
              matcher: '^grep_search$|^todo$',
              hooks: [{ type: 'command', name: 'search-audit', command: prints({ decision: 'allow' }) }],
            },
          ],
        },
      }),
    );
    const { code, stdout, stderr } = await cli(['run', ...sandboxed.flags, '--extensions-dir', extensions], {
      input: jsonl(
        preToolUse('shell', 't1'),
        preToolUse('run_shell_command', 't2'),
        preToolUse('grep', 't3'),
        preToolUse('todo_write', 't4'),
        preToolUse('bash', 't5'),
      ),
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const source = 'extension:agent-sec-core';
    expect(
      jsonLines(stdout)
        .filter((line) => line['type'] === 'hook_decision')
        .map((line) => [
          line['tool_use_id'],
          line['decision'],
          line['reason'],
          withoutTimes(line)['hooks'] as unknown[],
        ]),
    ).toStrictEqual([
      ['t1', 'block', 'saw shell', [{ name: 'code-scanner', source, decision: 'block', outcome: 'ok' }]],
      [
        't2',
        'block',
        'saw run_shell_command',
        [{ name: 'code-scanner', source, decision: 'block', outcome: 'ok' }],
      ],
      ['t3', 'allow', undefined, [{ name: 'search-audit', source, decision: 'allow', outcome: 'ok' }]],
      ['t4', 'allow', undefined, [{ name: 'search-audit', source, decision: 'allow', outcome: 'ok' }]],
      ['t5', 'none', undefined, []],
    ]);
  });

  it('fire PreToolUse --tool shell runs a config hook whose matcher is ^run_shell_command$', async () => {
    const sandboxed = box(
      hookTable('PreToolUse', {
        name: 'shell-guard',
        matcher: '^run_shell_command$',
        command: prints({ decision: 'block', reason: 'no shell' }),
      }),
    );
    const fired = await cli(['fire', 'PreToolUse', '--tool', 'shell', '--json', ...sandboxed.flags]);
    expect(fired.code).toBe(0);
    const result = JSON.parse(fired.stdout) as {
      event: Record<string, unknown>;
      decision: Record<string, unknown>;
    };
    expect(result.event['tool_name']).toBe('shell');
    expect(result.decision).toMatchObject({ decision: 'block', reason: 'no shell' });
  });
});
