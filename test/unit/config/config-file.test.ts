import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { EVENT_NAMES } from '../../../src/events/names.js';

const FILE = '/home/u/.copilot-shell/config.toml';
const toml = (...lines: string[]) => lines.join('\n');

/** Problems without the file name, which is the same everywhere here. */
const errorsOf = (text: string) =>
  decodeConfigText(text, FILE).errors.map(({ file: _file, ...rest }) => rest);
const warningsOf = (text: string) =>
  decodeConfigText(text, FILE).warnings.map(({ file: _file, ...rest }) => rest);

describe('decodeConfigText: valid files', () => {
  it('resolves the spec example to a command hook with every field', () => {
    const result = decodeConfigText(
      toml(
        '[hooks]',
        'enabled = true',
        '',
        '[[hooks.PreToolUse]]',
        'name = "security-check"',
        'command = "/usr/local/bin/my-security-hook --strict"',
        'timeout = 7000',
        'matcher = "^(shell|run_shell_command)$"',
        'fail_closed = true',
        'persistent = true',
        'env = { TEAM = "platform" }',
        'description = "blocks rm -rf"',
      ),
      FILE,
    );
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.enabled).toBe(true);
    expect(result.hooks.PreToolUse).toEqual([
      {
        kind: 'command',
        name: 'security-check',
        source: 'config',
        command: '/usr/local/bin/my-security-hook --strict',
        env: { TEAM: 'platform' },
        persistent: true,
        timeoutMs: 7000,
        failClosed: true,
        redact: false,
        enabled: true,
        matcher: expect.objectContaining({ source: '^(shell|run_shell_command)$' }),
        description: 'blocks rm -rf',
        origin: { file: FILE, line: 4, path: 'hooks.PreToolUse[0]' },
      },
    ]);
  });

  it('fills the defaults: timeout 5000, fail_closed false, not persistent, no env, no matcher', () => {
    const result = decodeConfigText(toml('[[hooks.Stop]]', 'name = "s"', 'command = "x"'), FILE);
    expect(result.hooks.Stop).toEqual([
      {
        kind: 'command',
        name: 's',
        source: 'config',
        command: 'x',
        env: {},
        persistent: false,
        timeoutMs: 5000,
        failClosed: false,
        redact: false,
        enabled: true,
        origin: { file: FILE, line: 1, path: 'hooks.Stop[0]' },
      },
    ]);
  });

  it('[hooks] fail_closed is the default of every hook of the file; a hook own fail_closed or fail_open wins', () => {
    const result = decodeConfigText(
      toml(
        '[hooks]',
        'fail_closed = true',
        '[[hooks.PreToolUse]]',
        'name = "inherits"',
        'command = "x"',
        '[[hooks.PreToolUse]]',
        'name = "own-false"',
        'command = "x"',
        'fail_closed = false',
        '[[hooks.PreToolUse]]',
        'name = "fail-open"',
        'command = "x"',
        'fail_open = true',
        '[[hooks.Stop]]',
        'name = "other-event"',
        'command = "x"',
      ),
      FILE,
    );
    expect(result.errors).toEqual([]);
    expect(
      [...result.hooks.PreToolUse, ...result.hooks.Stop].map((hook) => [hook.name, hook.failClosed]),
    ).toEqual([
      ['inherits', true],
      ['own-false', false],
      ['fail-open', false],
      ['other-event', true],
    ]);
    const off = decodeConfigText(
      toml('[hooks]', 'fail_closed = false', '[[hooks.Stop]]', 'name = "a"', 'command = "x"'),
      FILE,
    );
    expect(off.hooks.Stop.map((hook) => hook.failClosed)).toEqual([false]);
    expect(errorsOf(toml('[hooks]', 'fail_closed = "yes"'))).toEqual([
      { line: 2, path: 'hooks.fail_closed', message: 'expected true or false, got "yes"' },
    ]);
  });

  it('keeps file order per event, across interleaved tables', () => {
    const result = decodeConfigText(
      toml(
        '[[hooks.PreToolUse]]',
        'name = "a"',
        'command = "1"',
        '[[hooks.Stop]]',
        'name = "s"',
        'command = "2"',
        '[[hooks.PreToolUse]]',
        'name = "b"',
        'command = "3"',
      ),
      FILE,
    );
    expect(result.hooks.PreToolUse.map((hook) => hook.name)).toEqual(['a', 'b']);
    expect(result.hooks.Stop.map((hook) => hook.name)).toEqual(['s']);
  });

  it('accepts the inline-table form', () => {
    const result = decodeConfigText(
      toml('[hooks]', 'SessionStart = [ { name = "ctx", command = "load", timeout = 3000 } ]'),
      FILE,
    );
    expect(result.hooks.SessionStart.map((hook) => [hook.name, hook.timeoutMs])).toEqual([['ctx', 3000]]);
  });

  it.each([
    ['""', undefined],
    ['"*"', undefined],
    ['"shell"', 'shell'],
  ])('matcher %s compiles to %s', (matcher, expected) => {
    const result = decodeConfigText(
      toml('[[hooks.PreToolUse]]', 'name = "a"', 'command = "x"', `matcher = ${matcher}`),
      FILE,
    );
    expect(result.errors).toEqual([]);
    expect(result.hooks.PreToolUse[0]?.matcher?.source).toEqual(expected);
  });

  it.each([
    ['an empty file', ''],
    ['a file of other settings', toml('[ui]', 'theme = "dark"', '[model]', 'name = "qwen"')],
    ['an empty [hooks] table', '[hooks]'],
  ])('%s has no hooks and is enabled', (_, text) => {
    const result = decodeConfigText(text, FILE);
    expect(result).toMatchObject({ enabled: true, errors: [], warnings: [] });
    for (const event of EVENT_NAMES) expect(result.hooks[event]).toEqual([]);
  });

  it('reads enabled = false and still resolves the hooks', () => {
    const result = decodeConfigText(
      toml('[hooks]', 'enabled = false', '[[hooks.Stop]]', 'name = "s"', 'command = "x"'),
      FILE,
    );
    expect(result.enabled).toBe(false);
    expect(result.hooks.Stop).toHaveLength(1);
  });

  it('accepts 1 and 600000 as timeouts, and 5000.0 as an integer', () => {
    const result = decodeConfigText(
      toml(
        '[hooks]',
        'Stop = [ { name = "a", command = "x", timeout = 1 }, { name = "b", command = "x", timeout = 600000 },',
        '         { name = "c", command = "x", timeout = 5000.0 } ]',
      ),
      FILE,
    );
    expect(result.errors).toEqual([]);
    expect(result.hooks.Stop.map((hook) => hook.timeoutMs)).toEqual([1, 600000, 5000]);
  });
});

describe('decodeConfigText: warnings', () => {
  it("a hook without a name is skipped loudly (the seed's rule 5); the rest of the file runs", () => {
    const text = toml(
      '[[hooks.Stop]]',
      'command = "x"',
      'fail_closed = true',
      '[[hooks.Stop]]',
      'name = "  \\t "',
      'command = "y"',
      '[[hooks.Stop]]',
      'name = "kept"',
      'command = "z"',
    );
    expect(errorsOf(text)).toEqual([]);
    expect(warningsOf(text)).toEqual([
      {
        line: 1,
        path: 'hooks.Stop[0].name',
        message:
          'hook has no name; skipped: this fail_closed guard does not run (every other hook of the file runs)',
      },
      {
        line: 5,
        path: 'hooks.Stop[1].name',
        message: 'hook has a blank name; skipped (every other hook of the file runs)',
      },
    ]);
    const stop = decodeConfigText(text, FILE).hooks.Stop;
    expect(
      stop.map((hook) => [hook.name, hook.enabled, hook.kind === 'command' && hook.skipped !== undefined]),
    ).toEqual([
      ['', false, true],
      ['', false, true],
      ['kept', true, false],
    ]);
  });

  it('a nameless hook under a fail_closed file default says the guard does not run', () => {
    expect(warningsOf(toml('[hooks]', 'fail_closed = true', '[[hooks.Stop]]', 'command = "x"'))).toEqual([
      {
        line: 3,
        path: 'hooks.Stop[0].name',
        message:
          'hook has no name; skipped: this fail_closed guard does not run (every other hook of the file runs)',
      },
    ]);
  });

  it('warns that a matcher on an event without tool_name is ignored', () => {
    expect(
      warningsOf(toml('[[hooks.SessionStart]]', 'name = "a"', 'command = "x"', 'matcher = "shell"')),
    ).toEqual([
      {
        line: 4,
        path: 'hooks.SessionStart[0].matcher',
        message:
          'ignored: SessionStart has no field to match (matchers apply to PreToolUse, PostToolUse, PostToolUseFailure, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop)',
      },
    ]);
  });

  it('reports an unnamed hook together with the errors of an invalid file', () => {
    const result = decodeConfigText(toml('[[hooks.Stop]]', 'command = "x"', 'timeout = -1'), FILE);
    expect(result.warnings.map((problem) => [problem.line, problem.path])).toEqual([
      [1, 'hooks.Stop[0].name'],
    ]);
    expect(result.errors.map((problem) => [problem.line, problem.path])).toEqual([
      [3, 'hooks.Stop[0].timeout'],
    ]);
  });
});

describe('decodeConfigText: errors with exact paths and lines', () => {
  const hook = (...lines: string[]) => toml('[hooks]', '', '[[hooks.PreToolUse]]', 'name = "h"', ...lines);
  // Line numbers below count from 1: line 5 is the first line given to `hook`.

  it.each([
    [
      'timeout 0',
      hook('command = "x"', 'timeout = 0'),
      { line: 6, path: 'hooks.PreToolUse[0].timeout', message: 'expected an integer 1..600000, got 0' },
    ],
    [
      'timeout above the maximum',
      hook('command = "x"', 'timeout = 600001'),
      { line: 6, path: 'hooks.PreToolUse[0].timeout', message: 'expected an integer 1..600000, got 600001' },
    ],
    [
      'fractional timeout',
      hook('command = "x"', 'timeout = 1.5'),
      { line: 6, path: 'hooks.PreToolUse[0].timeout', message: 'expected an integer 1..600000, got 1.5' },
    ],
    [
      'timeout as a string',
      hook('command = "x"', 'timeout = "5s"'),
      { line: 6, path: 'hooks.PreToolUse[0].timeout', message: 'expected an integer 1..600000, got "5s"' },
    ],
    [
      'timeout as a date',
      hook('command = "x"', 'timeout = 1979-05-27'),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].timeout',
        message: 'expected an integer 1..600000, got a date (1979-05-27)',
      },
    ],
    [
      'missing command (located at its table)',
      hook('timeout = 100'),
      {
        line: 3,
        path: 'hooks.PreToolUse[0].command',
        message: 'missing required key (expected a non-empty string, or deny/ask/allow rules)',
      },
    ],
    [
      'blank command',
      hook('command = "  "'),
      { line: 5, path: 'hooks.PreToolUse[0].command', message: 'expected a non-empty string, got "  "' },
    ],
    [
      'command as an array',
      hook('command = ["ls", "-l"]'),
      { line: 5, path: 'hooks.PreToolUse[0].command', message: 'expected a non-empty string, got an array' },
    ],
    [
      'name as a number',
      hook('command = "x"', 'name = 3').replace('name = "h"\n', ''),
      { line: 5, path: 'hooks.PreToolUse[0].name', message: 'expected a string, got 3' },
    ],
    [
      'invalid regular expression',
      hook('command = "x"', 'matcher = "(shell"'),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].matcher',
        message: 'invalid regular expression "(shell" (RE2 syntax): missing closing ): `(shell`',
      },
    ],
    [
      'matcher as a boolean',
      hook('command = "x"', 'matcher = true'),
      { line: 6, path: 'hooks.PreToolUse[0].matcher', message: 'expected a regular expression, got true' },
    ],
    [
      'fail_closed as a string',
      hook('command = "x"', 'fail_closed = "yes"'),
      { line: 6, path: 'hooks.PreToolUse[0].fail_closed', message: 'expected true or false, got "yes"' },
    ],
    [
      'persistent as a number',
      hook('command = "x"', 'persistent = 1'),
      { line: 6, path: 'hooks.PreToolUse[0].persistent', message: 'expected true or false, got 1' },
    ],
    [
      'description as a number',
      hook('command = "x"', 'description = 1'),
      { line: 6, path: 'hooks.PreToolUse[0].description', message: 'expected a string, got 1' },
    ],
    [
      'env not a table',
      hook('command = "x"', 'env = "A=1"'),
      { line: 6, path: 'hooks.PreToolUse[0].env', message: 'expected a table of string values, got "A=1"' },
    ],
    [
      'env value not a string',
      hook('command = "x"', 'env = { DEBUG = true }'),
      { line: 6, path: 'hooks.PreToolUse[0].env.DEBUG', message: 'expected a string, got true' },
    ],
    [
      'env name that is not a variable name',
      hook('command = "x"', 'env = { "1ST" = "a" }'),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].env.1ST',
        message: 'invalid environment variable name "1ST" (expected [A-Za-z_][A-Za-z0-9_]*)',
      },
    ],
    [
      'env sub-table with a bad value',
      hook('command = "x"', '[hooks.PreToolUse.env]', 'OK = "1"', 'LEVEL = 3'),
      { line: 8, path: 'hooks.PreToolUse[0].env.LEVEL', message: 'expected a string, got 3' },
    ],
    [
      'unknown key, with a hint',
      hook('command = "x"', 'failClosed = true'),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].failClosed',
        message:
          'unknown key (expected name, command, timeout, matcher, fail_closed, persistent, env, description, redact, observe, fail_open, sequential, dialect, deny, ask, allow, reason, system_message); did you mean fail_closed?',
      },
    ],
    [
      'unknown key without a hint',
      hook('command = "x"', 'type = "command"'),
      {
        line: 6,
        path: 'hooks.PreToolUse[0].type',
        message:
          'unknown key (expected name, command, timeout, matcher, fail_closed, persistent, env, description, redact, observe, fail_open, sequential, dialect, deny, ask, allow, reason, system_message)',
      },
    ],
    [
      'unknown event name, with a hint',
      toml('[[hooks.pretooluse]]', 'name = "a"', 'command = "x"'),
      {
        line: 1,
        path: 'hooks.pretooluse',
        message:
          'unknown event name (expected enabled, fail_closed, stop_loop_limit, project_env, managed_only, project_hooks, any or one of PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop); did you mean PreToolUse?',
      },
    ],
    [
      'an event written as a single table',
      toml('[hooks.Stop]', 'name = "a"', 'command = "x"'),
      {
        line: 1,
        path: 'hooks.Stop',
        message: 'expected an array of hook tables (write [[hooks.Stop]]), got a table',
      },
    ],
    [
      'a hook that is not a table',
      toml('[hooks]', 'Stop = ["x"]'),
      { line: 2, path: 'hooks.Stop[0]', message: 'expected a hook table, got "x"' },
    ],
    [
      'enabled not a boolean',
      toml('[hooks]', 'enabled = "no"'),
      { line: 2, path: 'hooks.enabled', message: 'expected true or false, got "no"' },
    ],
    ['hooks not a table', toml('hooks = 1'), { line: 1, path: 'hooks', message: 'expected a table, got 1' }],
    [
      'inline-table form',
      toml(
        '[hooks]',
        'Stop = [',
        '  { name = "a", command = "x" },',
        '  { name = "b", command = "x", timeout = 0 },',
        ']',
      ),
      { line: 4, path: 'hooks.Stop[1].timeout', message: 'expected an integer 1..600000, got 0' },
    ],
  ])('%s', (_, text, expected) => {
    expect(errorsOf(text)).toEqual([expected]);
  });

  it('reports every problem of every hook at once, in file order', () => {
    const text = toml(
      '[hooks]', //                      1
      'enabled = 1', //                  2
      '', //                             3
      '[[hooks.PreToolUse]]', //         4
      'name = "ok"', //                  5
      'command = "fine"', //             6
      '', //                             7
      '[[hooks.PreToolUse]]', //         8
      'name = "bad"', //                 9
      'timeout = 0', //                 10
      'matcher = "["', //               11
      '', //                            12
      '[[hooks.Stopp]]', //             13
      'name = "x"', //                  14
      'command = "y"', //               15
      '', //                            16
      '[[hooks.Stop]]', //              17
      'name = "s"', //                  18
      'command = "z"', //               19
      'env = { A = 1, "B C" = "2" }', // 20
    );
    expect(errorsOf(text).map((problem) => `${problem.line} ${problem.path}`)).toEqual([
      '2 hooks.enabled',
      '10 hooks.PreToolUse[1].timeout',
      '11 hooks.PreToolUse[1].matcher',
      '8 hooks.PreToolUse[1].command',
      '13 hooks.Stopp',
      '20 hooks.Stop[0].env.A',
      '20 hooks.Stop[0].env["B C"]',
    ]);
    expect(decodeConfigText(text, FILE).hooks.PreToolUse).toEqual([]);
  });

  it('reports a TOML syntax error with the parser line and column', () => {
    expect(
      errorsOf(toml('[hooks]', 'enabled = true', '[[hooks.Stop]]', 'name = "a', 'command = "x"')),
    ).toEqual([{ line: 4, message: expect.stringMatching(/^invalid TOML \(column \d+\): \S/) }]);
    expect(errorsOf(toml('[hooks]', 'x = 1', '[hooks]'))).toEqual([
      { line: 3, message: expect.stringMatching(/^invalid TOML \(column \d+\): .*already defined/) },
    ]);
  });
});

describe('decodeConfigText: cosh-core keys and redact (docs/compat.md)', () => {
  const one = (...lines: string[]) =>
    decodeConfigText(toml('[[hooks.PreToolUse]]', 'name = "h"', 'command = "x"', ...lines), FILE);

  it.each([
    [['fail_open = false'], true],
    [['fail_open = true'], false],
    [['fail_open = false', 'fail_closed = true'], true],
    [['sequential = true'], false],
    [['sequential = false'], false],
  ])('%j loads with fail_closed = %s', (lines, failClosed) => {
    const result = one(...lines);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.hooks.PreToolUse.map((hook) => hook.failClosed)).toEqual([failClosed]);
  });

  it('fail_open contradicting fail_closed is an error naming the line', () => {
    expect(
      errorsOf(
        toml(
          '[[hooks.PreToolUse]]',
          'name = "h"',
          'command = "x"',
          'fail_closed = false',
          'fail_open = false',
        ),
      ),
    ).toEqual([
      {
        line: 5,
        path: 'hooks.PreToolUse[0].fail_open',
        message: 'contradicts fail_closed = false (fail_open is its opposite; keep one of the two)',
      },
    ]);
  });

  it('redact = true is kept; absent means false (the hook judges the event as sent); a non-boolean is an error', () => {
    expect(one('redact = true').hooks.PreToolUse.map((hook) => hook.redact)).toEqual([true]);
    expect(one('redact = false').hooks.PreToolUse.map((hook) => hook.redact)).toEqual([false]);
    expect(one().hooks.PreToolUse.map((hook) => hook.redact)).toEqual([false]);
    expect(errorsOf(toml('[[hooks.PreToolUse]]', 'name = "h"', 'command = "x"', 'redact = "no"'))).toEqual([
      { line: 4, path: 'hooks.PreToolUse[0].redact', message: 'expected true or false, got "no"' },
    ]);
  });
});

describe('decodeConfigText: a gemini hook’s project variables become quoted expansions', () => {
  const commandOf = (dialect: string, command: string) =>
    decodeConfigText(
      toml(
        '[[hooks.PreToolUse]]',
        'name = "g"',
        `command = ${JSON.stringify(command)}`,
        `dialect = "${dialect}"`,
      ),
      FILE,
    ).hooks.PreToolUse[0];

  it.each([
    ['unquoted', '$GEMINI_PROJECT_DIR/.gemini/hooks/x.sh', '"${GEMINI_PROJECT_DIR}"/.gemini/hooks/x.sh'],
    ['the Claude name', 'sh $CLAUDE_PROJECT_DIR/x.sh', 'sh "${CLAUDE_PROJECT_DIR}"/x.sh'],
    ['in double quotes', 'sh "$GEMINI_PROJECT_DIR/x.sh"', 'sh "${GEMINI_PROJECT_DIR}/x.sh"'],
    ['in single quotes', "echo 'at $GEMINI_PROJECT_DIR'", `echo 'at '"\${GEMINI_PROJECT_DIR}"''`],
    ['inside $( )', 'sh "$(cat $GEMINI_PROJECT_DIR/f)"', 'sh "$(cat "${GEMINI_PROJECT_DIR}"/f)"'],
    ['with braces (left to sh)', 'sh ${GEMINI_PROJECT_DIR}/x.sh', 'sh ${GEMINI_PROJECT_DIR}/x.sh'],
    ['a longer name (left)', 'sh $GEMINI_PROJECT_DIRS', 'sh $GEMINI_PROJECT_DIRS'],
    ['escaped (left)', 'echo \\$GEMINI_PROJECT_DIR', 'echo \\$GEMINI_PROJECT_DIR'],
  ])('%s', (_where, command, expected) => {
    expect(commandOf('gemini', command)).toMatchObject({ command: expected, dialect: 'gemini' });
  });

  it('a claude or cosh hook keeps its command as written', () => {
    expect(commandOf('claude', 'sh $CLAUDE_PROJECT_DIR/x.sh')).toMatchObject({
      command: 'sh $CLAUDE_PROJECT_DIR/x.sh',
    });
    expect(commandOf('cosh', 'sh $GEMINI_PROJECT_DIR/x.sh')).toMatchObject({
      command: 'sh $GEMINI_PROJECT_DIR/x.sh',
    });
  });
});

describe('decodeConfigText: [hooks] stop_loop_limit (docs/configuration.md)', () => {
  it('a whole number 1..1000 is the limit; absent, the engine uses 8', () => {
    expect(decodeConfigText('[hooks]\nstop_loop_limit = 3\n', 'c.toml').stopLoopLimit).toBe(3);
    expect(decodeConfigText('[hooks]\nstop_loop_limit = 1000\n', 'c.toml').stopLoopLimit).toBe(1000);
    expect(decodeConfigText('[hooks]\nenabled = true\n', 'c.toml')).not.toHaveProperty('stopLoopLimit');
  });

  it.each([['0'], ['1001'], ['2.5'], ['"8"'], ['-1']])(
    'stop_loop_limit = %s is an error naming the key',
    (value) => {
      expect(errorsOf(`[hooks]\nstop_loop_limit = ${value}\n`)).toStrictEqual([
        {
          line: 2,
          path: 'hooks.stop_loop_limit',
          message: `expected an integer 1..1000, got ${value === '"8"' ? '"8"' : value}`,
        },
      ]);
    },
  );
});
