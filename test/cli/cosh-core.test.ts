import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from './helpers.js';

/*
 * What docs/compat.md adopts from cosh-core, through the built binary (issue 12): tool-name
 * aliases with a manifest shaped like agent-sec-core's, the engine's environment variables,
 * cosh-core's `fail_open` and `sequential` keys, invalid `env` names, BeforeModel tool declaration
 * checks and the camelCase `additionalContext` fallback. Redaction and snake_case keys have their
 * own files (redaction.test.ts, output-keys.test.ts).
 */

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const box = sandbox(
  [
    hookTable('PreToolUse', {
      name: 'grep-guard',
      matcher: '^grep_search$',
      command: `python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"systemMessage": "grep-guard saw " + e["tool_name"]}))'`,
    }),
    hookTable('PreToolUse', {
      name: 'todo-guard',
      matcher: '^todo$',
      command: `python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"systemMessage": "todo-guard saw " + e["tool_name"]}))'`,
    }),
    hookTable('UserPromptSubmit', {
      name: 'camel-context',
      command: prints({ hook_specific_output: { additional_context: 42, additionalContext: 'camel text' } }),
    }),
    hookTable('UserPromptSubmit', {
      name: 'snake-context',
      command: prints({
        hookSpecificOutput: { additional_context: 'snake text', additionalContext: 'not this one' },
      }),
    }),
    hookTable('BeforeModel', {
      name: 'compress',
      command: prints({
        hookSpecificOutput: {
          llm_request: {
            config: { tools: [{ name: 'shell', description: 'run', parameters: { type: 'object' } }] },
          },
        },
      }),
    }),
    hookTable('BeforeModel', {
      name: 'rename',
      command: prints({
        hookSpecificOutput: {
          llm_request: {
            config: { tools: [{ name: 'sh', description: 'run', parameters: { type: 'object' } }] },
          },
        },
      }),
    }),
  ].join('\n'),
);

// agent-sec-core's manifest as shipped (alibaba/anolisa src/agent-sec-core/cosh-extension): the
// code scanner matches `run_shell_command` (unanchored, no `shell`), a `skill` group before it,
// hooks without a matcher after it; plus cosh-core's own keys (`sequential`, `fail_open`) and an
// `env` map holding a name cosh-core drops.
const extensions = box.path('extensions');
const ext = join(extensions, 'agent-sec-core');
mkdirSync(join(ext, 'hooks'), { recursive: true });
writeFileSync(
  join(ext, 'hooks', 'code_scanner_hook.py'),
  [
    'import json, os, sys',
    'event = json.load(sys.stdin)',
    'command = event["tool_input"].get("command", "")',
    'names = ["COSH_RUNTIME", "COSH_HOOKS_VERSION", "COSH_EXTENSION_PATH", "COSH_WORKSPACE_PATH", "AGENT_SEC_MODE"]',
    'seen = event["tool_name"] + " " + " ".join(n + "=" + os.environ.get(n, "-") for n in names)',
    'decision = "block" if "rm -rf" in command else "allow"',
    'print(json.dumps({"decision": decision, "reason": "code-scanner: " + decision, "hookSpecificOutput": {"additionalContext": seen}}))',
    '',
  ].join('\n'),
);
writeFileSync(
  join(ext, 'cosh-extension.json'),
  JSON.stringify(
    {
      name: 'agent-sec-core',
      version: '0.5.0',
      hooks: {
        PreToolUse: [
          {
            matcher: 'skill',
            hooks: [{ type: 'command', name: 'skill-ledger', command: 'cat > /dev/null', timeout: 5000 }],
          },
          {
            matcher: 'run_shell_command',
            sequential: true,
            hooks: [
              {
                type: 'command',
                command: 'python3 ${extensionPath}/hooks/code_scanner_hook.py',
                name: 'code-scanner',
                description: 'Scans tool code for security vulnerabilities',
                timeout: 5000,
                env: { AGENT_SEC_MODE: 'enforce', '1INVALID': 'dropped', 'WITH-DASH': 'dropped' },
              },
            ],
          },
          {
            matcher: '^write_file$',
            hooks: [
              {
                type: 'command',
                name: 'write-guard',
                command: 'echo "write-guard crashed" >&2; exit 3',
                fail_open: false,
              },
            ],
          },
          {
            hooks: [
              {
                type: 'command',
                name: 'observability-hook',
                command: 'cat > /dev/null',
                description: 'Records cosh hook observability metrics.',
                timeout: 5000,
              },
            ],
          },
        ],
      },
    },
    null,
    2,
  ),
);
const workspace = box.path('workspace');
mkdirSync(workspace);
const flags = [...box.flags, '--extensions-dir', extensions, '--workspace', workspace];
afterAll(() => box.remove());

const toolEvent = (tool_name: string, command = 'ls') => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name,
  tool_input: { command },
});

const decisions = (stdout: string) => jsonLines(stdout).filter((line) => line['type'] === 'hook_decision');

describe('cosh-hooks run: an agent-sec-core manifest on a host that calls the tool shell', () => {
  it('its run_shell_command matcher fires for shell; the hook sees shell, and blocks', async () => {
    const result = await cli(['run', ...flags], {
      input: jsonl(
        toolEvent('shell', 'rm -rf /'),
        toolEvent('run_shell_command', 'rm -rf /'),
        toolEvent('shell'),
      ),
    });
    expect(result.code).toBe(0);
    const seen = (tool: string) =>
      `${tool} COSH_RUNTIME=cosh-hooks COSH_HOOKS_VERSION=${VERSION} COSH_EXTENSION_PATH=${ext} COSH_WORKSPACE_PATH=${workspace} AGENT_SEC_MODE=enforce`;
    const blocked = (seq: number, tool: string) => ({
      type: 'hook_decision',
      seq,
      hook_event_name: 'PreToolUse',
      session_id: 's',
      decision: 'block',
      reason: 'code-scanner: block',
      additional_context: seen(tool),
      hooks: [
        { name: 'code-scanner', source: 'extension:agent-sec-core', decision: 'block', outcome: 'ok' },
        { name: 'observability-hook', source: 'extension:agent-sec-core', outcome: 'skipped' },
      ],
    });
    expect(decisions(result.stdout).map(withoutTimes)).toEqual([
      blocked(1, 'shell'),
      blocked(2, 'run_shell_command'),
      {
        type: 'hook_decision',
        seq: 3,
        hook_event_name: 'PreToolUse',
        session_id: 's',
        decision: 'allow',
        reason: 'code-scanner: allow',
        additional_context: seen('shell'),
        hooks: [
          { name: 'code-scanner', source: 'extension:agent-sec-core', decision: 'allow', outcome: 'ok' },
          { name: 'observability-hook', source: 'extension:agent-sec-core', decision: 'none', outcome: 'ok' },
        ],
      },
    ]);
  });

  it('fail_open = false (cosh-core) makes a crashing guard block, with its stderr as the reason', async () => {
    const result = await cli(['run', ...flags], { input: jsonl(toolEvent('write_file')) });
    expect(decisions(result.stdout).map(withoutTimes)).toEqual([
      {
        type: 'hook_decision',
        seq: 1,
        hook_event_name: 'PreToolUse',
        session_id: 's',
        decision: 'block',
        reason: 'write-guard crashed',
        hooks: [
          {
            name: 'write-guard',
            source: 'extension:agent-sec-core',
            decision: 'block',
            outcome: 'exit',
            message: 'exited with code 3: write-guard crashed',
          },
          { name: 'observability-hook', source: 'extension:agent-sec-core', outcome: 'skipped' },
        ],
      },
    ]);
  });

  it('grep_search ↔ grep and todo ↔ todo_write: matchers fire through the alias, hooks see the host name', async () => {
    const result = await cli(['run', ...flags], {
      input: jsonl(toolEvent('grep'), toolEvent('todo_write'), toolEvent('grep_search'), toolEvent('todo')),
    });
    const messages = jsonLines(result.stdout)
      .filter((line) => line['type'] === 'stream_event')
      .map((line) => (line['event'] as { message: string }).message)
      .filter((message) => message.includes('-guard saw'));
    expect(messages).toEqual([
      'grep-guard saw grep',
      'todo-guard saw todo_write',
      'grep-guard saw grep_search',
      'todo-guard saw todo',
    ]);
  });

  it('validate: the invalid env names are warnings naming file and line; the hook still loads', async () => {
    const result = await cli(['validate', ...flags]);
    expect(result.code).toBe(1);
    const manifest = join(ext, 'cosh-extension.json');
    const lines = readFileSync(manifest, 'utf8').split('\n');
    const lineOf = (name: string) => lines.findIndex((line) => line.includes(`"${name}"`)) + 1;
    expect([lineOf('1INVALID'), lineOf('WITH-DASH')]).toEqual([29, 30]);
    expect(result.stdout.split('\n')).toEqual([
      `warning: ${manifest}:29: hooks.PreToolUse[1].hooks[0].env.1INVALID: invalid environment variable name "1INVALID" (expected [A-Za-z_][A-Za-z0-9_]*); entry dropped`,
      `warning: ${manifest}:30: hooks.PreToolUse[1].hooks[0].env.WITH-DASH: invalid environment variable name "WITH-DASH" (expected [A-Za-z_][A-Za-z0-9_]*); entry dropped`,
      '2 warnings',
      '',
    ]);
  });
});

describe('cosh-hooks run: cosh-core output conventions', () => {
  it('additional_context that is not a string gives way to additionalContext; a string one wins', async () => {
    const result = await cli(['run', ...flags], {
      input: jsonl({ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'hi' }),
    });
    expect(decisions(result.stdout).map((line) => line['additional_context'])).toEqual([
      'camel text\nsnake text',
    ]);
  });

  it('BeforeModel: a renamed tool declaration is refused, the earlier valid rewrite stays', async () => {
    const tools = [
      { name: 'shell', description: 'run a shell command', parameters: { type: 'object', properties: {} } },
    ];
    const result = await cli(['run', ...flags], {
      input: jsonl({
        hook_event_name: 'BeforeModel',
        session_id: 's',
        llm_request: { model: 'm', config: { tools } },
      }),
    });
    expect(decisions(result.stdout).map(withoutTimes)).toEqual([
      {
        type: 'hook_decision',
        seq: 1,
        hook_event_name: 'BeforeModel',
        session_id: 's',
        decision: 'none',
        hook_specific_output: {
          llm_request: {
            config: { tools: [{ name: 'shell', description: 'run', parameters: { type: 'object' } }] },
          },
        },
        hooks: [
          { name: 'compress', source: 'config', decision: 'none', outcome: 'ok' },
          {
            name: 'rename',
            source: 'config',
            decision: 'none',
            outcome: 'ok',
            message:
              'llm_request.config.tools refused: tool 0: expected "shell", got "sh" (tools may not be renamed, added, dropped or reordered)',
          },
        ],
      },
    ]);
  });
});

describe('cosh-hooks with a config file written for cosh-core', () => {
  const config = sandbox(
    [
      '[[hooks.PreToolUse]]',
      'name = "guard"',
      'command = "echo guard down >&2; exit 3"',
      'fail_open = false',
      'sequential = true',
      '',
    ].join('\n'),
  );
  afterAll(() => config.remove());

  it('accepts fail_open and sequential; fail_open = false blocks on a failure', async () => {
    expect(await cli(['validate', ...config.flags])).toMatchObject({ code: 0, stderr: '' });
    const result = await cli(['run', ...config.flags], { input: jsonl(toolEvent('shell')) });
    expect(decisions(result.stdout).map((line) => [line['decision'], line['reason']])).toEqual([
      ['block', 'guard down'],
    ]);
  });

  it('an invalid env name in config.toml is a configuration error (spec §2), not dropped as cosh-core does', async () => {
    const bad = sandbox(
      ['[[hooks.PreToolUse]]', 'name = "g"', 'command = "true"', 'env = { "1BAD" = "x" }', ''].join('\n'),
    );
    try {
      const result = await cli(['run', ...bad.flags], { input: jsonl(toolEvent('shell')) });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        `${bad.path('config.toml')}:4: hooks.PreToolUse[0].env.1BAD: invalid environment variable name "1BAD" (expected [A-Za-z_][A-Za-z0-9_]*)`,
      );
    } finally {
      bad.remove();
    }
  });
});
