import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeManifestText, substitute, substituteCommand } from '../../../src/config/manifest.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/config/extensions/', import.meta.url));
const FILE = '/ext/x/cosh-extension.json';
const VARS = { extensionPath: '/opt/ext/x', workspacePath: '/work/project' };

const decode = (manifest: unknown) => decodeManifestText(JSON.stringify(manifest, null, 2), FILE, VARS);
const withoutFile = <T extends { file: string }>(problems: readonly T[]) =>
  problems.map(({ file: _file, ...rest }) => rest);

/** A manifest with one PreToolUse group holding `hook`. */
const oneHook = (hook: Record<string, unknown>, group: Record<string, unknown> = {}) => ({
  name: 'x',
  hooks: { PreToolUse: [{ ...group, hooks: [hook] }] },
});

describe('substitute', () => {
  it.each([
    ['python3 ${extensionPath}/hooks/a.py', 'python3 /opt/ext/x/hooks/a.py'],
    ['--dir=${workspacePath}', '--dir=/work/project'],
    ['a${/}b${pathSeparator}c', 'a/b/c'],
    ['${extensionPath}${extensionPath}', '/opt/ext/x/opt/ext/x'],
    ['echo ${HOME} $extensionPath ${EXTENSIONPATH}', 'echo ${HOME} $extensionPath ${EXTENSIONPATH}'],
  ])('%s', (text, expected) => {
    expect(substitute(text, VARS)).toBe(expected);
  });
});

describe('substituteCommand: a path with shell syntax becomes an expansion chosen by quote context', () => {
  const HOSTILE = { extensionPath: "/opt/a b'$(x)", workspacePath: '/w;`y`' };
  it.each([
    ['unquoted', 'sh ${extensionPath}/a.sh', 'sh "${COSH_EXTENSION_PATH}"/a.sh'],
    ['double quotes', 'cat "${workspacePath}/R"', 'cat "${COSH_WORKSPACE_PATH}/R"'],
    ['single quotes', "echo 'p=${extensionPath}!'", `echo 'p='"\${COSH_EXTENSION_PATH}"'!'`],
    ['$( ) inside double quotes', 'echo "$(cat ${workspacePath})"', 'echo "$(cat "${COSH_WORKSPACE_PATH}")"'],
    ['nested quotes in $( )', 'echo "$(cat "${workspacePath}")"', 'echo "$(cat "${COSH_WORKSPACE_PATH}")"'],
    ['backquotes in double quotes', 'echo "`ls ${workspacePath}`"', 'echo "`ls "${COSH_WORKSPACE_PATH}"`"'],
    ['after a $( ) with parentheses', 'a $( (b) ) ${workspacePath}', 'a $( (b) ) "${COSH_WORKSPACE_PATH}"'],
    ['a comment holding a quote', "a # it's\nb ${workspacePath}", 'a # it\'s\nb "${COSH_WORKSPACE_PATH}"'],
    ['an escaped $ (text for sh)', 'echo \\${extensionPath}', 'echo \\${extensionPath}'],
    ['an escaped quote', 'echo \\" ${extensionPath}', 'echo \\" "${COSH_EXTENSION_PATH}"'],
    ['${/} in any context', "a${/}b '${/}'", "a/b '/'"],
  ])('%s', (_what, command, expected) => {
    expect(substituteCommand(command.replace(/\\n/g, '\n'), HOSTILE)).toBe(expected.replace(/\\n/g, '\n'));
  });

  it('pastes a path made of plain characters, so the command can still run without sh', () => {
    expect(substituteCommand("python3 ${extensionPath}/h.py '${workspacePath}'", VARS)).toBe(
      "python3 /opt/ext/x/h.py '/work/project'",
    );
  });
});

describe('decodeManifestText: shipped third-party manifests load unchanged', () => {
  it('agent-sec-core: nested groups, matchers, substitution, ms timeouts, env, extra fields', () => {
    const path = `${FIXTURES}agent-sec-core`;
    const file = `${path}/cosh-extension.json`;
    const result = decodeManifestText(readFileSync(file, 'utf8'), file, {
      extensionPath: path,
      workspacePath: '/w',
    });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    expect(result.value.name).toBe('agent-sec-core');
    expect(result.value.version).toBe('0.7.0');
    const shellMatcher = expect.objectContaining({ source: '^(run_shell_command|shell)$' });
    expect(result.value.hooks.PreToolUse).toEqual([
      {
        kind: 'command',
        name: 'code-scanner',
        source: 'extension:agent-sec-core',
        command: `python3 ${path}/hooks/code_scanner_hook.py`,
        env: { AGENT_SEC_MODE: 'enforce', AGENT_SEC_HOME: `${path}/data` },
        persistent: false,
        timeoutMs: 5000,
        failClosed: false,
        redact: false,
        enabled: true,
        extensionPath: path,
        workspacePath: '/w',
        matcher: shellMatcher,
        description: 'Scans shell commands for dangerous patterns',
        origin: expect.objectContaining({ file, path: 'hooks.PreToolUse[0].hooks[0]' }),
      },
      {
        kind: 'command',
        name: 'pii-checker',
        source: 'extension:agent-sec-core',
        command: `python3 ${path}/hooks/pii_checker_hook.py --workspace /w`,
        env: {},
        persistent: false,
        timeoutMs: 3000,
        failClosed: false,
        redact: false,
        enabled: true,
        extensionPath: path,
        workspacePath: '/w',
        matcher: shellMatcher,
        description: 'Flags personal data leaving the workspace',
        origin: expect.objectContaining({ file, path: 'hooks.PreToolUse[0].hooks[1]' }),
      },
      {
        kind: 'command',
        name: 'secret-guard',
        source: 'extension:agent-sec-core',
        command: `python3 ${path}/hooks/secret_guard.py`,
        env: {},
        persistent: false,
        timeoutMs: 10000,
        failClosed: true,
        redact: false,
        enabled: true,
        extensionPath: path,
        workspacePath: '/w',
        matcher: expect.objectContaining({ source: 'write_file|replace' }),
        origin: expect.objectContaining({ file, path: 'hooks.PreToolUse[1].hooks[0]' }),
      },
    ]);
    expect(result.value.hooks.PreToolUse.map((hook) => hook.origin?.line)).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(
      result.value.hooks.UserPromptSubmit.map((hook) => [hook.name, hook.timeoutMs, hook.matcher]),
    ).toEqual([['prompt-injection-check', 2000, undefined]]);
    expect(result.value.hooks.SessionStart.map((hook) => [hook.name, hook.command, hook.timeoutMs])).toEqual([
      ['sec-context', `${path}/hooks/load-context.sh`, 5000],
    ]);
    expect(result.value.hooks.Stop).toEqual([]);
  });

  it('reads persistent: true on a command hook (absent = false)', () => {
    const result = decode({
      name: 'x',
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', name: 'kept', command: 'python3 k.py', persistent: true },
              { type: 'command', name: 'once', command: 'python3 o.py' },
            ],
          },
        ],
      },
    });
    if (!result.ok) throw new Error('expected a valid manifest');
    expect(
      result.value.hooks.Stop.map((hook) => [hook.name, hook.kind === 'command' && hook.persistent]),
    ).toEqual([
      ['kept', true],
      ['once', false],
    ]);
  });

  it('tokenless: env values substituted, names untouched, PostToolUse group', () => {
    const path = `${FIXTURES}tokenless`;
    const file = `${path}/cosh-extension.json`;
    const result = decodeManifestText(readFileSync(file, 'utf8'), file, {
      extensionPath: path,
      workspacePath: '/w',
    });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    expect(result.value.hooks.PreToolUse.map((hook) => [hook.name, hook.env])).toEqual([
      ['tokenless-tool-ready', { TOKENLESS_SPEC: `${path}/tool-ready-spec.json` }],
      ['tokenless-rewrite', { TOKENLESS_MODE: 'rewrite', TOKENLESS_STATS_DIR: '/w/.tokenless' }],
    ]);
    expect(
      result.value.hooks.PostToolUse.map((hook) => [hook.name, hook.timeoutMs, hook.matcher?.source]),
    ).toEqual([['tokenless-compress', 8000, '^(run_shell_command|shell|read_file)$']]);
  });

  it('a manifest without hooks (skills or MCP servers only) is a valid extension', () => {
    const result = decode({ name: 'docs-only', skills: 'skills', mcpServers: { a: { command: 'x' } } });
    expect(result).toMatchObject({ ok: true, value: { name: 'docs-only' }, warnings: [] });
  });

  it('accepts `sequential`, ignores unknown keys of groups and hooks with a warning each, and keeps an empty matcher as "every tool"', () => {
    const result = decode(
      oneHook(
        { type: 'command', name: 'a', command: 'x', statusMessage: 'running', failClosed: true },
        { matcher: '', sequential: false, comment: 1 },
      ),
    );
    expect(result.ok).toBe(true);
    expect(result.warnings.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      'hooks.PreToolUse[0].comment: unknown key ignored (expected matcher, sequential, hooks)',
      'hooks.PreToolUse[0].hooks[0].statusMessage: unknown key ignored (expected type, name, command, description, timeout, env, fail_closed, fail_open, redact, persistent, dialect, observe)',
      'hooks.PreToolUse[0].hooks[0].failClosed: unknown key ignored (expected type, name, command, description, timeout, env, fail_closed, fail_open, redact, persistent, dialect, observe); did you mean fail_closed?',
    ]);
    if (result.ok) {
      expect(result.value.hooks.PreToolUse[0]).not.toHaveProperty('matcher');
      expect(result.value.hooks.PreToolUse[0]?.failClosed).toBe(false);
    }
  });

  it('a top-level fail_closed is the default of every hook of the manifest; a hook own value wins', () => {
    const result = decode({
      name: 'x',
      fail_closed: true,
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: 'command', name: 'inherits', command: 'x' },
              { type: 'command', name: 'own', command: 'x', fail_closed: false },
              { type: 'command', name: 'open', command: 'x', fail_open: true },
            ],
          },
        ],
      },
    });
    expect(result.ok && result.value.hooks.PreToolUse.map((hook) => [hook.name, hook.failClosed])).toEqual([
      ['inherits', true],
      ['own', false],
      ['open', false],
    ]);
    expect(decode({ name: 'x', fail_closed: 'yes' }).ok).toBe(false);
  });

  it('an unnamed fail_closed hook is skipped with a warning that says a guard does not run', () => {
    const result = decode(oneHook({ type: 'command', command: 'x', fail_closed: true }));
    expect(result.warnings.map((problem) => problem.message)).toEqual([
      'hook has no name; skipped: this fail_closed guard does not run',
    ]);
    const inherited = decode({ ...oneHook({ type: 'command', command: 'x' }), fail_closed: true });
    expect(inherited.warnings.map((problem) => problem.message)).toEqual([
      'hook has no name; skipped: this fail_closed guard does not run',
    ]);
  });
});

describe('decodeManifestText: warnings (the extension still loads)', () => {
  it.each([
    [
      'a hook of another type',
      oneHook({ type: 'prompt', name: 'p', prompt: 'is this safe?', timeout: '30s' }),
      {
        line: 7,
        path: 'hooks.PreToolUse[0].hooks[0]',
        message: 'skipped: only "type": "command" hooks run (this one has "type": "prompt")',
      },
    ],
    [
      'a hook without a type',
      oneHook({ name: 'p', command: 'x' }),
      {
        line: 7,
        path: 'hooks.PreToolUse[0].hooks[0]',
        message: 'skipped: only "type": "command" hooks run (this one has no "type")',
      },
    ],
    [
      'an unnamed command hook',
      oneHook({ type: 'command', command: 'x' }),
      { line: 7, path: 'hooks.PreToolUse[0].hooks[0]', message: 'hook has no name; skipped' },
    ],
    [
      'an event this engine does not know',
      {
        name: 'x',
        hooks: { PreCompress: [{ hooks: [{ type: 'command', name: 'c', command: 'x', timeout: 0 }] }] },
      },
      {
        line: 4,
        path: 'hooks.PreCompress',
        message:
          'unknown event; its hooks are skipped (expected one of PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
      },
    ],
    [
      'a group without hooks',
      { name: 'x', hooks: { Stop: [{ matcher: 'a' }] } },
      { line: 5, path: 'hooks.Stop[0]', message: 'group has no "hooks" array; nothing to run' },
    ],
    [
      'a matcher on an event without tool_name',
      { name: 'x', hooks: { Stop: [{ matcher: 'a', hooks: [] }] } },
      {
        line: 6,
        path: 'hooks.Stop[0].matcher',
        message:
          'ignored: Stop has no field to match (matchers apply to PreToolUse, PostToolUse, PostToolUseFailure, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
      },
    ],
  ])('%s', (_, manifest, expected) => {
    const result = decode(manifest);
    expect(result.ok).toBe(true);
    expect(withoutFile(result.warnings)).toEqual([expected]);
    if (result.ok) expect(result.value.hooks.PreToolUse).toEqual([]);
  });
});

describe('decodeManifestText: cosh-core parity (docs/compat.md)', () => {
  it('drops an env entry whose name is not a variable name, with a warning; the hook still loads', () => {
    const result = decode(
      oneHook({ type: 'command', name: 'a', command: 'x', env: { 'MY-VAR': '1', OK: '2' } }),
    );
    expect(withoutFile(result.warnings)).toEqual([
      {
        line: 12,
        path: 'hooks.PreToolUse[0].hooks[0].env.MY-VAR',
        message:
          'invalid environment variable name "MY-VAR" (expected [A-Za-z_][A-Za-z0-9_]*); entry dropped',
      },
    ]);
    expect(result.ok && result.value.hooks.PreToolUse.map((hook) => hook.env)).toEqual([{ OK: '2' }]);
  });

  it.each([
    [{ fail_open: false }, true],
    [{ fail_open: true }, false],
    [{ fail_open: true, fail_closed: false }, false],
    [{}, false],
  ])('fail_open %j: fail_closed is %s', (keys, failClosed) => {
    const result = decode(oneHook({ type: 'command', name: 'a', command: 'x', ...keys }));
    expect(result.ok && result.value.hooks.PreToolUse.map((hook) => hook.failClosed)).toEqual([failClosed]);
  });

  it('fail_open that contradicts fail_closed is an error', () => {
    const result = decode(
      oneHook({ type: 'command', name: 'a', command: 'x', fail_closed: true, fail_open: true }),
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && withoutFile(result.error)).toEqual([
      {
        line: 12,
        path: 'hooks.PreToolUse[0].hooks[0].fail_open',
        message: 'contradicts fail_closed = true (fail_open is its opposite; keep one of the two)',
      },
    ]);
  });

  it('redact defaults to false; redact = true is kept', () => {
    const result = decode({
      name: 'x',
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: 'command', name: 'a', command: 'x' },
              { type: 'command', name: 'b', command: 'x', redact: true },
            ],
          },
        ],
      },
    });
    expect(result.ok && result.value.hooks.PreToolUse.map((hook) => [hook.name, hook.redact])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('redact must be a boolean', () => {
    const result = decode(oneHook({ type: 'command', name: 'a', command: 'x', redact: 'no' }));
    expect(!result.ok && withoutFile(result.error)).toEqual([
      { line: 11, path: 'hooks.PreToolUse[0].hooks[0].redact', message: 'expected true or false, got "no"' },
    ]);
  });
});

describe('decodeManifestText: errors (the extension is not loaded)', () => {
  it.each([
    [
      'missing name',
      { version: '1' },
      { line: 1, path: 'name', message: 'missing required key (expected a non-empty string)' },
    ],
    ['empty name', { name: '' }, { line: 2, path: 'name', message: 'expected a non-empty string, got ""' }],
    [
      'version as a number',
      { name: 'x', version: 1 },
      { line: 3, path: 'version', message: 'expected a string, got 1' },
    ],
    [
      'hooks as an array',
      { name: 'x', hooks: [] },
      { line: 3, path: 'hooks', message: 'expected an object keyed by event name, got an array' },
    ],
    [
      'groups not an array',
      { name: 'x', hooks: { Stop: { hooks: [] } } },
      { line: 4, path: 'hooks.Stop', message: 'expected an array of hook groups, got an object' },
    ],
    [
      'group not an object',
      { name: 'x', hooks: { Stop: ['a'] } },
      { line: 5, path: 'hooks.Stop[0]', message: 'expected an object, got "a"' },
    ],
    [
      'group hooks not an array',
      { name: 'x', hooks: { Stop: [{ hooks: 'a' }] } },
      { line: 6, path: 'hooks.Stop[0].hooks', message: 'expected an array of hook objects, got "a"' },
    ],
    [
      'hook entry not an object',
      { name: 'x', hooks: { Stop: [{ hooks: [true] }] } },
      { line: 7, path: 'hooks.Stop[0].hooks[0]', message: 'expected an object, got true' },
    ],
    [
      'invalid matcher',
      oneHook({ type: 'command', name: 'a', command: 'x' }, { matcher: '^(shell' }),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].matcher',
        message: 'invalid regular expression "^(shell" (RE2 syntax): missing closing ): `^(shell`',
      },
    ],
    [
      'sequential as a string',
      oneHook({ type: 'command', name: 'a', command: 'x' }, { sequential: 'yes' }),
      { line: 6, path: 'hooks.PreToolUse[0].sequential', message: 'expected true or false, got "yes"' },
    ],
    [
      'timeout in seconds as a string',
      oneHook({ type: 'command', name: 'a', command: 'x', timeout: '5s' }),
      {
        line: 11,
        path: 'hooks.PreToolUse[0].hooks[0].timeout',
        message: 'expected an integer 1..600000, got "5s"',
      },
    ],
    [
      'persistent as a string',
      oneHook({ type: 'command', name: 'a', command: 'x', persistent: 'yes' }),
      {
        line: 11,
        path: 'hooks.PreToolUse[0].hooks[0].persistent',
        message: 'expected true or false, got "yes"',
      },
    ],
    [
      'timeout above the config bound',
      oneHook({ type: 'command', name: 'a', command: 'x', timeout: 900000 }),
      {
        line: 11,
        path: 'hooks.PreToolUse[0].hooks[0].timeout',
        message: 'expected an integer 1..600000, got 900000',
      },
    ],
    [
      'command hook without a command',
      oneHook({ type: 'command', name: 'a' }),
      {
        line: 7,
        path: 'hooks.PreToolUse[0].hooks[0].command',
        message: 'missing required key (expected a non-empty string)',
      },
    ],
    [
      'env value not a string',
      oneHook({ type: 'command', name: 'a', command: 'x', env: { PORT: 8080 } }),
      { line: 12, path: 'hooks.PreToolUse[0].hooks[0].env.PORT', message: 'expected a string, got 8080' },
    ],
    [
      'fail_closed as a string',
      oneHook({ type: 'command', name: 'a', command: 'x', fail_closed: 'true' }),
      {
        line: 11,
        path: 'hooks.PreToolUse[0].hooks[0].fail_closed',
        message: 'expected true or false, got "true"',
      },
    ],
    [
      'type not a string',
      oneHook({ type: 1, name: 'a', command: 'x' }),
      { line: 8, path: 'hooks.PreToolUse[0].hooks[0].type', message: 'expected "command", got 1' },
    ],
    ['not an object', ['x'], { line: 1, message: 'expected an object, got an array' }],
  ])('%s', (_, manifest, expected) => {
    const result = decode(manifest);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(withoutFile(result.error)).toEqual([expected]);
  });

  it('reports every problem at once, next to the warnings', () => {
    const result = decode({
      name: 'x',
      version: 2,
      hooks: {
        PreToolUse: [
          {
            matcher: '(',
            hooks: [{ type: 'command', name: 'a', command: '', timeout: 0 }, { type: 'agent' }],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'x', env: { A: 1 } }] }],
      },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.map((problem) => `${problem.line} ${problem.path}`)).toEqual([
      '3 version',
      '7 hooks.PreToolUse[0].matcher',
      '12 hooks.PreToolUse[0].hooks[0].command',
      '13 hooks.PreToolUse[0].hooks[0].timeout',
      '28 hooks.Stop[0].hooks[0].env.A',
    ]);
    expect(result.warnings.map((problem) => `${problem.line} ${problem.path}: ${problem.message}`)).toEqual([
      '15 hooks.PreToolUse[0].hooks[1]: skipped: only "type": "command" hooks run (this one has "type": "agent")',
      '24 hooks.Stop[0].hooks[0]: hook has no name; skipped',
    ]);
  });

  it('reports invalid JSON with its line and column when Node gives a position', () => {
    const result = decodeManifestText('{\n  "name": "x"\n  "hooks": {}\n}\n', FILE, VARS);
    expect(result).toEqual({
      ok: false,
      error: [{ file: FILE, line: 3, message: expect.stringMatching(/^invalid JSON \(column 3\): /) }],
      warnings: [],
    });
  });

  it('reports invalid JSON without a line when Node gives none', () => {
    const result = decodeManifestText('{"name": "x", "hooks": }', FILE, VARS);
    expect(result).toMatchObject({
      ok: false,
      error: [{ file: FILE, message: expect.stringMatching(/^invalid JSON/) }],
    });
  });
});
