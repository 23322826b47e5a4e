import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, loadHooks, type LoadOptions } from '../../../src/config/index.js';
import { COSH_TOOL_NAMES } from '../../../src/config/checks.js';

let root: string;
let home: string;
let bin: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cosh-checks-'));
  home = join(root, 'home');
  bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'guard'), '#!/bin/sh\n');
  chmodSync(join(bin, 'guard'), 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const configFile = () => join(home, '.copilot-shell', 'config.toml');
const writeConfig = (...lines: string[]) => write(configFile(), lines.join('\n'));

/** Every problem of the load, formatted, with the temp folder shown as `<root>`. */
const problems = (options: LoadOptions = {}): string[] => {
  const result = loadHooks({
    home,
    systemExtensionsDir: null,
    workspace: join(root, 'ws'),
    env: { PATH: bin, HOME: home },
    ...options,
  });
  const all = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  return all.map((problem) => formatProblem(problem).replaceAll(root, '<root>'));
};

const hook = (event: string, name: string, command: string, ...more: string[]) => [
  `[[hooks.${event}]]`,
  `name = "${name}"`,
  `command = ${JSON.stringify(command)}`,
  ...more,
];

describe('checks at load: a command that cannot start', () => {
  it('names the hook, its file:line and what happens at run time, fail-open or fail_closed', () => {
    writeConfig(
      ...hook('PreToolUse', 'open-guard', 'missing-guard --strict'),
      ...hook('PreToolUse', 'closed-guard', 'python3 /nonexistent/guard.py', 'fail_closed = true'),
      ...hook('PreToolUse', 'fine', 'guard'),
    );
    expect(problems({ env: { PATH: `${bin}:/usr/bin:/bin` } })).toEqual([
      '<root>/home/.copilot-shell/config.toml:1: hooks.PreToolUse[0]: command cannot start: program "missing-guard" not found in PATH; it fails with `spawn` on every event, and each one passes as if the hook had no opinion (set fail_closed = true to block instead)',
      '<root>/home/.copilot-shell/config.toml:4: hooks.PreToolUse[1]: command cannot start: script "/nonexistent/guard.py" not found; it fails with `spawn` on every event, and being fail_closed it blocks each one it can block',
    ]);
  });

  it('looks programs up in the PATH of the hook env first, then the host', () => {
    writeConfig(...hook('Stop', 'a', 'guard', 'env = { PATH = "/nowhere" }'));
    expect(problems()).toEqual([expect.stringContaining('program "guard" not found in PATH')]);
  });

  it('substitutes ${extensionPath} in manifests, with a folder full of shell syntax, and checks the script', () => {
    const ext = join(home, '.copilot-shell', 'extensions', 'we"ird $(x) `y`; dir');
    write(
      join(ext, 'cosh-extension.json'),
      JSON.stringify({
        name: 'weird',
        hooks: {
          PreToolUse: [
            {
              hooks: [
                { type: 'command', name: 'present', command: 'sh ${extensionPath}/hooks/ok.sh' },
                { type: 'command', name: 'absent', command: 'sh "${extensionPath}/hooks/gone.sh"' },
              ],
            },
          ],
        },
      }),
    );
    write(join(ext, 'hooks', 'ok.sh'), 'exit 0\n');
    expect(problems({ env: { PATH: '/usr/bin:/bin' } })).toEqual([
      expect.stringMatching(
        /cosh-extension\.json:\d+: hooks\.PreToolUse\[0\]\.hooks\[1\]: command cannot start: script ".*\/we\\"ird \$\(x\) `y`; dir\/hooks\/gone\.sh" not found;/,
      ),
    ]);
  });

  it('disabled hooks are not checked; shell syntax it cannot read is not a problem', () => {
    writeConfig('[hooks]', 'enabled = false', ...hook('Stop', 'off', 'missing-guard'));
    expect(problems()).toEqual([]);
    writeConfig(
      ...hook('Stop', 'dynamic', '"$(which guard)" --x'),
      ...hook('Stop', 'cond', 'if x; then y; fi'),
    );
    expect(problems()).toEqual([]);
  });
});

describe('checks at load: matchers that can never match', () => {
  it.each([
    [
      'Bash',
      'matcher "Bash" can never match: it is written for Claude Code\'s Bash, a tool cosh calls shell, run_shell_command (write matcher = "^(shell|run_shell_command)$")',
    ],
    [
      '^Read$',
      'matcher "^Read$" can never match: it is written for Claude Code\'s Read, a tool cosh calls read_file (write matcher = "^(read_file)$")',
    ],
    [
      'Write|Edit',
      'matcher "Write|Edit" can never match: it is written for Claude Code\'s Write, Edit, tools cosh calls write_file, replace, edit (write matcher = "^(write_file|replace|edit)$")',
    ],
    [
      'bash',
      'matcher "bash" can never match: it is written for Claude Code\'s Bash, a tool cosh calls shell, run_shell_command (write matcher = "^(shell|run_shell_command)$")',
    ],
    [
      'Bash(git *)',
      'matcher "Bash(git *)" can never match: it is written for Claude Code\'s Bash, a tool cosh calls shell, run_shell_command (write matcher = "^(shell|run_shell_command)$")',
    ],
    [
      '^Shell$',
      'matcher "^Shell$" can never match: tool names are case-sensitive, and cosh\'s are lowercase (did you mean "^(shell|run_shell_command)$"?)',
    ],
  ])('%s in a cosh config', (matcher, message) => {
    writeConfig(...hook('PreToolUse', 'g', 'guard', `matcher = ${JSON.stringify(matcher)}`));
    expect(problems()).toEqual([`<root>/home/.copilot-shell/config.toml:1: hooks.PreToolUse[0]: ${message}`]);
  });

  it.each([
    'shell',
    '^(shell|run_shell_command)$',
    'write_file|replace',
    '^mcp__github__.*',
    'my_own_tool',
    'Bash|shell',
    'file',
  ])('%s is fine (matches a cosh tool, or a tool the check cannot know)', (matcher) => {
    writeConfig(...hook('PostToolUse', 'g', 'guard', `matcher = ${JSON.stringify(matcher)}`));
    expect(problems()).toEqual([]);
  });

  it('also for a claude-dialect hook (matchers are tested against the host tool name)', () => {
    writeConfig(...hook('PreToolUse', 'g', 'guard', 'matcher = "Bash"', 'dialect = "claude"'));
    expect(problems()).toEqual([expect.stringContaining('matcher "Bash" can never match')]);
  });

  it('knows the documented cosh tool names', () => {
    expect(COSH_TOOL_NAMES).toEqual(
      expect.arrayContaining([
        'shell',
        'run_shell_command',
        'read_file',
        'write_file',
        'replace',
        'edit',
        'grep_search',
        'glob',
      ]),
    );
  });
});

describe('checks at load: dialects and duplicates', () => {
  it('a claude hook on BeforeModel cannot work', () => {
    writeConfig(
      ...hook('BeforeModel', 'c', 'guard', 'dialect = "claude"'),
      ...hook('BeforeModel', 'g', 'guard --g', 'dialect = "gemini"'),
    );
    expect(problems()).toEqual([
      '<root>/home/.copilot-shell/config.toml:1: hooks.BeforeModel[0]: dialect "claude" cannot work on BeforeModel: Claude Code has no such event, so no Claude Code hook was written for it (use dialect "gemini" or "cosh", or move the hook)',
    ]);
  });

  it('the same name and command from two sources; different hooks that share a command are not duplicates', () => {
    const ext = join(home, '.copilot-shell', 'extensions', 'e');
    write(
      join(ext, 'cosh-extension.json'),
      JSON.stringify({
        name: 'e',
        hooks: {
          Stop: [
            {
              hooks: [
                { type: 'command', name: 'copied', command: 'guard --x' },
                { type: 'command', name: 'logger', command: 'guard' },
              ],
            },
          ],
        },
      }),
    );
    writeConfig(...hook('Stop', 'copied', 'guard --x'), ...hook('Stop', 'own', 'guard'));
    expect(problems()).toEqual([
      expect.stringMatching(
        /cosh-extension\.json:\d+: hooks\.Stop\[0\]\.hooks\[0\]: the same hook is loaded twice: "copied" \(config, <root>\/home\/\.copilot-shell\/config\.toml:1 \(hooks\.Stop\[0\]\)\) has the same name and command; both run on every Stop$/,
      ),
    ]);
  });

  it('the same command and matcher twice on one event', () => {
    writeConfig(
      ...hook('PreToolUse', 'a', 'guard', 'matcher = "shell"'),
      ...hook('PreToolUse', 'b', 'guard', 'matcher = "shell"'),
      ...hook('PreToolUse', 'c', 'guard', 'matcher = "read_file"'),
      ...hook('PostToolUse', 'd', 'guard', 'matcher = "shell"'),
    );
    expect(problems()).toEqual([
      '<root>/home/.copilot-shell/config.toml:5: hooks.PreToolUse[1]: the same hook is loaded twice: "a" (config, <root>/home/.copilot-shell/config.toml:1 (hooks.PreToolUse[0])) has the same command and matcher; both run on every PreToolUse',
    ]);
  });

  it('a hook of the config file and the imported settings it came from', () => {
    const settings = write(
      join(root, 'claude', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'guard --from-claude' }] }] } }),
    );
    // What `cosh-hooks import claude` wrote for it: the same name, a command edited since.
    const loaded = loadHooks({
      home,
      systemExtensionsDir: null,
      env: { PATH: bin },
      foreignSettings: [{ dialect: 'claude', file: settings }],
    });
    expect(loaded.ok).toBe(true);
    const name = loaded.ok ? loaded.registry.Stop[0]?.name : '';
    writeConfig(...hook('Stop', name ?? '', 'guard --edited', 'dialect = "claude"'));
    expect(problems({ foreignSettings: [{ dialect: 'claude', file: settings }] })).toEqual([
      `<root>/claude/settings.json: the same hook is loaded twice: "${name}" (config, <root>/home/.copilot-shell/config.toml:1 (hooks.Stop[0])) has the same name, from imported settings (loaded next to their import?); both run on every Stop`,
    ]);
  });
});
