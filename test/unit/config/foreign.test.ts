import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadForeignSettings } from '../../../src/config/foreign-load.js';
import { IMPORTED_HOOK_KEYS } from '../../../src/config/codecs.js';
import { EVENT_NAMES } from '../../../src/events/names.js';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { decodeForeignText } from '../../../src/config/foreign.js';
import { foreignHooksToToml } from '../../../src/config/foreign-toml.js';
import { loadHooks } from '../../../src/config/load.js';

const FILE = '/p/.claude/settings.json';

const claude = (hooks: unknown, extra: Record<string, unknown> = {}) =>
  decodeForeignText(JSON.stringify({ ...extra, hooks }, null, 2), FILE, 'claude');

describe('decodeForeignText: Claude Code settings', () => {
  it('reads matcher groups: seconds → ms, default 600 s, matchers → cosh names, a name from the command', () => {
    const decoded = claude({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh', timeout: 10 },
            { type: 'command', command: 'node guard.js' },
          ],
        },
      ],
      Stop: [{ hooks: [{ type: 'command', command: 'say done', timeout: 0.25 }] }],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.warnings).toStrictEqual([]);
    expect(
      decoded.hooks.map(({ name, ...hook }) => ({ name: name.replace(/[0-9a-f]{8}$/, 'HASH'), ...hook })),
    ).toStrictEqual([
      {
        name: 'claude-check.sh-HASH',
        event: 'PreToolUse',
        command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh',
        timeout: 10_000,
        matcher: '^(shell|run_shell_command)$',
        dialect: 'claude',
      },
      {
        name: 'claude-guard.js-HASH',
        event: 'PreToolUse',
        command: 'node guard.js',
        timeout: 600_000,
        matcher: '^(shell|run_shell_command)$',
        dialect: 'claude',
      },
      { name: 'claude-say-HASH', event: 'Stop', command: 'say done', timeout: 250, dialect: 'claude' },
    ]);
  });

  it("a hook without a timeout gets Claude Code's default: 600 s, 30 s on UserPromptSubmit", () => {
    // Claude Code hooks reference, common fields: "Defaults: 600 for command"; Claude Code lowers
    // the command default to 30 on UserPromptSubmit.
    const decoded = claude({
      PreToolUse: [{ hooks: [{ type: 'command', command: 'a' }] }],
      PostToolUse: [{ hooks: [{ type: 'command', command: 'b' }] }],
      PostToolUseFailure: [{ hooks: [{ type: 'command', command: 'c' }] }],
      UserPromptSubmit: [
        {
          hooks: [
            { type: 'command', command: 'd' },
            { command: 'e', timeout: 45 },
          ],
        },
      ],
      SessionStart: [{ hooks: [{ type: 'command', command: 'f' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'g' }] }],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.warnings).toStrictEqual([]);
    expect(decoded.hooks.map((hook) => [hook.event, hook.command, hook.timeout])).toStrictEqual([
      ['PreToolUse', 'a', 600_000],
      ['PostToolUse', 'b', 600_000],
      ['PostToolUseFailure', 'c', 600_000],
      ['UserPromptSubmit', 'd', 30_000],
      ['UserPromptSubmit', 'e', 45_000],
      ['SessionStart', 'f', 600_000],
      ['Stop', 'g', 600_000],
    ]);
  });

  it('events with no counterpart and non-command hooks are warnings naming them; the rest loads', () => {
    const decoded = claude({
      PermissionRequest: [{ hooks: [{ type: 'command', command: 'notify' }] }],
      TeammateIdle: [],
      Stop: [
        {
          hooks: [
            { type: 'prompt', prompt: 'done?' },
            { type: 'command', command: 'ok' },
          ],
        },
      ],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(
      decoded.warnings.map((warning) => `${warning.line}: ${warning.path}: ${warning.message}`),
    ).toStrictEqual([
      '3: hooks.PermissionRequest: Claude Code event "PermissionRequest" has no cosh counterpart (cosh has no permission-dialog event (PreToolUse "ask" is the closest)); its hooks are skipped',
      '13: hooks.TeammateIdle: Claude Code event "TeammateIdle" has no cosh counterpart (cosh has no such event); its hooks are skipped',
      '18: hooks.Stop[0].hooks[0].type: skipped: a "prompt" hook cannot run here (it asks the agent\'s model, which cosh-hooks does not have)',
    ]);
    expect(decoded.hooks.map((hook) => hook.command)).toStrictEqual(['ok']);
  });

  it('an async hook loads, with a warning: here it runs in the chain and its decision counts', () => {
    // Claude Code runs an "async": true hook in the background; its decision fields have no
    // effect. cosh-hooks has no background hooks, so the difference is said, not hidden.
    const decoded = claude({
      PostToolUse: [
        {
          matcher: 'Write',
          hooks: [{ type: 'command', command: 'run-tests.sh', async: true, timeout: 120 }],
        },
      ],
      Stop: [{ hooks: [{ type: 'command', command: 'sync.sh', async: false }] }],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(
      decoded.warnings.map((warning) => `${warning.line}: ${warning.path}: ${warning.message}`),
    ).toStrictEqual([
      "10: hooks.PostToolUse[0].hooks[0].async: runs in the chain here, not in the background (cosh-hooks has no background hooks): the agent waits for it, up to its timeout, and its decision counts, where Claude Code ignores an async hook's decision",
    ]);
    expect(decoded.hooks.map((hook) => [hook.event, hook.command, hook.timeout])).toStrictEqual([
      ['PostToolUse', 'run-tests.sh', 120_000],
      ['Stop', 'sync.sh', 600_000],
    ]);
  });

  it('an "if" filter is never dropped: the hook is refused with the reason (it would run on every call); elsewhere skipped, as Claude Code never runs it there', () => {
    // Claude Code hooks reference, common fields: "if": permission rule syntax ("Bash(git *)");
    // "On other events, a hook with if set never runs."
    const decoded = claude({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'no-rm.sh', if: 'Bash(rm *)' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'never.sh', if: 'Bash(git *)' }] }],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(
      decoded.warnings.map((warning) => `${warning.line}: ${warning.path}: ${warning.message}`),
    ).toStrictEqual([
      '10: hooks.PreToolUse[0].hooks[0].if: refused: cosh-hooks cannot honour a permission-rule condition ("Bash(rm *)"), and without it the hook would run on every call its matcher selects; not imported (write the condition into the hook\'s own command)',
      '21: hooks.Stop[0].hooks[0].if: skipped: Claude Code never runs a hook with "if" on Stop',
    ]);
    expect(decoded.refused).toBe(1);
    expect(decoded.hooks).toStrictEqual([]);
  });

  it('keeps a guard\'s strength: onFailure "block" is fail_closed, seconds become milliseconds', () => {
    const decoded = claude({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: 'hard.sh', timeout: 30, onFailure: 'block' },
            { type: 'command', command: 'soft.sh', timeout: 1.5, onFailure: 'continue' },
            { type: 'command', command: 'odd.sh', onFailure: 'maybe' },
          ],
        },
      ],
    });
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.hooks.map((hook) => [hook.command, hook.timeout, hook.failClosed])).toStrictEqual([
      ['hard.sh', 30_000, true],
      ['soft.sh', 1_500, undefined],
      ['odd.sh', 600_000, true],
    ]);
    expect(decoded.warnings.map((warning) => `${warning.path}: ${warning.message}`)).toStrictEqual([
      'hooks.PreToolUse[0].hooks[2].onFailure: unknown value "maybe" (Claude Code knows "block"): read as "block", so the guard stays fail_closed',
    ]);
    const text = foreignHooksToToml(decoded.hooks, { file: FILE, dialect: 'claude' });
    const back = decodeConfigText(text, 'i.toml');
    expect(back.errors).toStrictEqual([]);
    expect(
      back.hooks.PreToolUse.map((hook) => [
        hook.kind === 'command' && hook.command,
        hook.timeoutMs,
        hook.failClosed,
      ]),
    ).toStrictEqual([
      ['hard.sh', 30_000, true],
      ['soft.sh', 1_500, false],
      ['odd.sh', 600_000, true],
    ]);
    // Loaded directly (--claude-settings), the guard is fail_closed too.
    const dir = mkdtempSync(join(tmpdir(), 'cosh-foreign-'));
    try {
      const file = join(dir, 'settings.json');
      writeFileSync(
        file,
        JSON.stringify({
          hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', onFailure: 'block' }] }] },
        }),
      );
      const loaded = loadForeignSettings([{ dialect: 'claude', file }], dir);
      expect(loaded.hooks.Stop.map((hook) => hook.failClosed)).toStrictEqual([true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an "if" that is not a string is an error naming it', () => {
    const decoded = claude({ PreToolUse: [{ hooks: [{ type: 'command', command: 'a', if: ['Bash'] }] }] });
    expect(decoded.errors.map((error) => `${error.path}: ${error.message}`)).toStrictEqual([
      'hooks.PreToolUse[0].hooks[0].if: expected a string, got an array',
    ]);
    expect(decoded.hooks).toStrictEqual([]);
  });

  it('a hook with a wrong field is an error naming file, line and field; other hooks still load', () => {
    const decoded = claude({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: 'a', timeout: '10s' },
            { type: 'command', command: '' },
            { type: 'command', command: 'b' },
          ],
        },
      ],
    });
    expect(decoded.errors).toStrictEqual([
      {
        file: FILE,
        line: 10,
        path: 'hooks.PreToolUse[0].hooks[0].timeout',
        message: 'expected a positive number of seconds, got "10s"',
      },
      {
        file: FILE,
        line: 14,
        path: 'hooks.PreToolUse[0].hooks[1].command',
        message: 'expected a non-empty string, got ""',
      },
    ]);
    expect(decoded.hooks.map((hook) => hook.command)).toStrictEqual(['b']);
  });

  it("a timeout over cosh's 10 minutes is capped with a warning", () => {
    const decoded = claude({ Stop: [{ hooks: [{ type: 'command', command: 'slow', timeout: 3600 }] }] });
    expect(decoded.hooks[0]?.timeout).toBe(600_000);
    expect(decoded.warnings.map((warning) => warning.message)).toStrictEqual([
      "3600000 ms is over cosh's limit; 600000 ms is used",
    ]);
  });

  it('disableAllHooks loads nothing, with a warning', () => {
    const decoded = claude(
      { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] },
      { disableAllHooks: true },
    );
    expect(decoded.hooks).toStrictEqual([]);
    expect(decoded.warnings.map((warning) => warning.message)).toStrictEqual([
      'hooks are turned off in this file; none are loaded',
    ]);
  });

  it('names are unique when the same hook is listed twice', () => {
    const entry = { hooks: [{ type: 'command', command: 'audit.sh' }] };
    const names = claude({ Stop: [entry, entry] }).hooks.map((hook) => hook.name);
    expect(names[1]).toBe(`${names[0] ?? ''}-2`);
  });
});

describe('decodeForeignText: Gemini CLI settings', () => {
  it('maps events, keeps names, ms timeouts and matchers; AfterTool runs after failures too', () => {
    const decoded = decodeForeignText(
      JSON.stringify({
        hooks: {
          enabled: true,
          BeforeTool: [
            {
              matcher: 'write_file|replace',
              hooks: [{ name: 'scan', type: 'command', command: 'scan', timeout: 5000 }],
            },
          ],
          AfterTool: [{ hooks: [{ name: 'log', type: 'command', command: 'log' }] }],
          BeforeAgent: [{ hooks: [{ name: 'ctx', type: 'command', command: 'ctx' }] }],
          AfterAgent: [{ hooks: [{ name: 'check', type: 'command', command: 'check' }] }],
          BeforeToolSelection: [{ hooks: [{ name: 'tools', type: 'command', command: 'tools' }] }],
        },
      }),
      '/p/.gemini/settings.json',
      'gemini',
    );
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.hooks.map((hook) => [hook.event, hook.name, hook.timeout, hook.matcher])).toStrictEqual([
      ['PreToolUse', 'scan', 5000, 'write_file|replace'],
      ['PostToolUse', 'log', 60_000, undefined],
      ['PostToolUseFailure', 'log', 60_000, undefined],
      ['UserPromptSubmit', 'ctx', 60_000, undefined],
      ['Stop', 'check', 60_000, undefined],
    ]);
    expect(decoded.warnings.map((warning) => warning.message)).toStrictEqual([
      'Gemini CLI event "BeforeToolSelection" has no cosh counterpart (cosh has no tool-selection event); its hooks are skipped',
    ]);
  });

  it('honours hooksConfig.enabled = false', () => {
    const decoded = decodeForeignText(
      JSON.stringify({ hooksConfig: { enabled: false }, hooks: { BeforeTool: [] } }),
      'g.json',
      'gemini',
    );
    expect(decoded).toMatchObject({ hooks: [], errors: [] });
    expect(decoded.warnings).toHaveLength(1);
  });
});

describe('decodeForeignText: hostile files', () => {
  it.each([
    ['not JSON', '{"hooks": ', /^invalid JSON: /],
    ['an array', '[1,2]', /^expected a JSON object, got an array$/],
    [
      'hooks not an object',
      '{"hooks": "rm -rf /"}',
      /^expected an object keyed by event name, got "rm -rf \/"$/,
    ],
  ])('%s is one clear error', (_, text, message) => {
    const decoded = decodeForeignText(text, 'f.json', 'claude');
    expect(decoded.hooks).toStrictEqual([]);
    expect(decoded.errors).toHaveLength(1);
    expect(decoded.errors[0]?.message).toMatch(message);
  });

  it('deeply nested JSON is walked only as deep as the known shape', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const decoded = decodeForeignText(
      `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","extra":${deep}}]}]}}`,
      'f.json',
      'claude',
    );
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.hooks.map((hook) => hook.command)).toStrictEqual(['x']);
  });

  it('a file over 4 MiB is refused before parsing', () => {
    const decoded = decodeForeignText(
      `{"hooks":{},"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`,
      'f.json',
      'claude',
    );
    expect(decoded.errors.map((error) => error.message)).toStrictEqual(['file is larger than 4194304 bytes']);
  });

  it('__proto__ and constructor are events like any other unknown name', () => {
    const decoded = decodeForeignText('{"hooks":{"__proto__":[],"constructor":[]}}', 'f.json', 'claude');
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.warnings.map((warning) => warning.path)).toStrictEqual([
      'hooks.__proto__',
      'hooks.constructor',
    ]);
  });
});

describe('foreignHooksToToml', () => {
  const hostile = [
    'echo "quoted" \'single\'',
    'printf "a\\nb" | sed "s/\\\\/x/"',
    'cat <<"""\nline 1\n"""\n',
    'tab\there \u0001 \u007f end',
    'python3 -c \'print("""x""")\'',
  ];

  it('writes commands as TOML strings that read back exactly, with the dialect kept', () => {
    const text = foreignHooksToToml(
      hostile.map((command, index) => ({
        event: 'PreToolUse' as const,
        name: `h${index}`,
        command,
        timeout: 60_000,
        matcher: '^(shell|run_shell_command)$',
        dialect: 'claude' as const,
      })),
      { file: '/p/a "b"\nc/settings.json', dialect: 'claude' },
    );
    const decoded = decodeConfigText(text, 'imported.toml');
    expect(decoded.errors).toStrictEqual([]);
    expect(
      decoded.hooks.PreToolUse.map((hook) => [
        hook.kind === 'command' && hook.command,
        hook.dialect,
        hook.timeoutMs,
      ]),
    ).toStrictEqual(hostile.map((command) => [command, 'claude', 60_000]));
    expect(text.split('\n')[1]).toBe(
      '# Imported from Claude Code hooks in /p/a \\"b\\"\\nc/settings.json by cosh-hooks import claude.',
    );
  });

  it("a plugin's hooks.json: its folder becomes an environment variable, never part of the command", () => {
    const text = foreignHooksToToml(
      [{ event: 'Stop', name: 's', command: '${CLAUDE_PLUGIN_ROOT}/s.sh', timeout: 1000, dialect: 'claude' }],
      { file: '/x/my "plugin"/hooks/hooks.json', dialect: 'claude' },
    );
    const hook = decodeConfigText(text, 'i.toml').hooks.Stop[0];
    if (hook?.kind !== 'command') throw new Error('expected a command hook');
    expect(hook.command).toBe('${CLAUDE_PLUGIN_ROOT}/s.sh');
    expect(hook.env).toStrictEqual({ CLAUDE_PLUGIN_ROOT: '/x/my "plugin"' });
  });
});

describe('[[imported_hooks]] tables in config.toml', () => {
  it('are checked like hook tables, with an event; every problem has its line and path', () => {
    const decoded = decodeConfigText(
      [
        '[[imported_hooks]]',
        'event = "Nope"',
        'name = "a"',
        'command = "x"',
        '',
        '[[imported_hooks]]',
        'event = "Stop"',
        'name = "b"',
        'command = "c"',
        'bogus = 1',
        '',
        '[[imported_hooks]]',
        'name = "c"',
        'command = "c"',
      ].join('\n'),
      'c.toml',
    );
    const events = EVENT_NAMES.join(', ');
    expect(decoded.errors).toStrictEqual([
      {
        file: 'c.toml',
        line: 2,
        path: 'imported_hooks[0].event',
        message: `expected one of ${events}, got "Nope"`,
      },
      {
        file: 'c.toml',
        line: 10,
        path: 'imported_hooks[1].bogus',
        message: `unknown key (expected ${IMPORTED_HOOK_KEYS.join(', ')})`,
      },
      {
        file: 'c.toml',
        line: 12,
        path: 'imported_hooks[2].event',
        message: `missing required key (expected one of ${events})`,
      },
    ]);
  });

  it('an unnamed one is skipped, like any config hook table; a matcher off matched events is ignored', () => {
    const decoded = decodeConfigText(
      '[[imported_hooks]]\nevent = "Stop"\ncommand = "d"\nmatcher = "^x$"\n',
      'c.toml',
    );
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.warnings.map((warning) => [warning.line, warning.path])).toStrictEqual([
      [1, 'imported_hooks[0].name'],
      [4, 'imported_hooks[0].matcher'],
    ]);
    expect(
      decoded.hooks.Stop.map((hook) => [hook.enabled, hook.kind === 'command' && hook.skipped !== undefined]),
    ).toStrictEqual([[false, true]]);
  });

  it('run after the [hooks] tables of their event, in file order, whatever the order in the file', () => {
    const decoded = decodeConfigText(
      [
        '[[imported_hooks]]',
        'event = "Stop"',
        'name = "i1"',
        'command = "i1"',
        '[hooks]',
        'Stop = [{ name = "own", command = "own" }]',
        '[[imported_hooks]]',
        'event = "Stop"',
        'name = "i2"',
        'command = "i2"',
      ].join('\n'),
      'c.toml',
    );
    expect(decoded.hooks.Stop.map((hook) => hook.name)).toStrictEqual(['own', 'i1', 'i2']);
  });
});

describe('the dialect key', () => {
  it("config.toml: claude and gemini hooks get their agent's variables at load time", () => {
    const text = [
      '[[hooks.PreToolUse]]',
      'name = "c"',
      'command = "c"',
      'dialect = "claude"',
      '[[hooks.PreToolUse]]',
      'name = "g"',
      'command = "g"',
      'dialect = "gemini"',
      'env = { GEMINI_PROJECT_DIR = "/mine" }',
      '[[hooks.PreToolUse]]',
      'name = "plain"',
      'command = "p"',
    ].join('\n');
    const decoded = decodeConfigText(text, 'c.toml');
    expect(decoded.hooks.PreToolUse.map((hook) => hook.dialect)).toStrictEqual([
      'claude',
      'gemini',
      undefined,
    ]);
  });

  it('an unknown dialect is an error naming the key', () => {
    const decoded = decodeConfigText(
      '[[hooks.Stop]]\nname = "x"\ncommand = "x"\ndialect = "codex"\n',
      'c.toml',
    );
    expect(decoded.errors).toStrictEqual([
      {
        file: 'c.toml',
        line: 4,
        path: 'hooks.Stop[0].dialect',
        message: 'expected "cosh", "claude", "gemini", got "codex"',
      },
    ]);
  });

  it("loadHooks sets CLAUDE_PROJECT_DIR / GEMINI_PROJECT_DIR to the workspace; the hook's env wins", async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = mkdtempSync(join(tmpdir(), 'cosh-dialect-'));
    try {
      const config = join(home, 'config.toml');
      writeFileSync(
        config,
        '[[hooks.Stop]]\nname = "c"\ncommand = "c"\ndialect = "claude"\n[[hooks.Stop]]\nname = "g"\ncommand = "g"\ndialect = "gemini"\nenv = { GEMINI_PROJECT_DIR = "/mine" }\n[[hooks.Stop]]\nname = "p"\ncommand = "p"\n',
      );
      const loaded = loadHooks({
        home,
        configPath: config,
        workspace: '/ws',
        systemExtensionsDir: join(home, 'none'),
      });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      expect(loaded.registry.Stop.map((hook) => (hook.kind === 'command' ? hook.env : {}))).toStrictEqual([
        { CLAUDE_PROJECT_DIR: '/ws' },
        { GEMINI_PROJECT_DIR: '/mine', CLAUDE_PROJECT_DIR: '/ws' },
        {},
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the dialect of an extension', () => {
  it('a manifest-wide dialect applies to its hooks; an entry may override it; claude hooks get CLAUDE_PLUGIN_ROOT, gemini ones do not', async () => {
    const { decodeManifestText } = await import('../../../src/config/manifest.js');
    const { withDialectEnv } = await import('../../../src/dialects/env.js');
    const decoded = decodeManifestText(
      JSON.stringify({
        name: 'guards',
        dialect: 'claude',
        hooks: {
          PreToolUse: [
            {
              hooks: [
                { type: 'command', name: 'a', command: 'a' },
                { type: 'command', name: 'b', command: 'b', dialect: 'cosh' },
                { type: 'command', name: 'c', command: 'c', dialect: 'gemini' },
              ],
            },
          ],
        },
      }),
      '/ext/guards/cosh-extension.json',
      { extensionPath: '/ext/guards', workspacePath: '/ws' },
    );
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.error));
    const hooks = decoded.value.hooks.PreToolUse.map((hook) => withDialectEnv(hook, '/ws'));
    expect(hooks.map((hook) => [hook.name, hook.dialect, hook.env])).toStrictEqual([
      ['a', 'claude', { CLAUDE_PROJECT_DIR: '/ws', CLAUDE_PLUGIN_ROOT: '/ext/guards' }],
      ['b', undefined, {}],
      ['c', 'gemini', { GEMINI_PROJECT_DIR: '/ws', CLAUDE_PROJECT_DIR: '/ws' }],
    ]);
  });

  it('a wrong manifest dialect is an error naming it', async () => {
    const { decodeManifestText } = await import('../../../src/config/manifest.js');
    const decoded = decodeManifestText('{"name":"x","dialect":"vim"}', 'm.json', {
      extensionPath: '/e',
      workspacePath: '/w',
    });
    expect(decoded).toMatchObject({
      ok: false,
      error: [
        {
          file: 'm.json',
          line: 1,
          path: 'dialect',
          message: 'expected "cosh", "claude", "gemini", got "vim"',
        },
      ],
    });
  });
});
