import { describe, expect, it } from 'vitest';
import type { HookDecision, HookNotification } from '../../src/output/lines.js';
import { defineHooks } from '../../src/registry/define.js';
import {
  chainsToJson,
  formatCard,
  formatChains,
  formatDecision,
  formatFireResult,
  formatProblemLines,
  formatValidationSummary,
} from '../../src/cli/format.js';
import { columns, palette, useColor } from '../../src/cli/style.js';
import { buildFireEvent } from '../../src/cli/fire-event.js';
import { toLoadOptions } from '../../src/cli/options.js';

const ESC = '\u001b[';

const registry = defineHooks(
  {
    PreToolUse: [
      { name: 'guard', command: 'guard.sh', matcher: '^shell$', timeout: 2000, fail_closed: true },
      { name: 'audit', command: 'audit.sh', enabled: false },
    ],
    Stop: [{ name: 'stopper', command: 'stop.sh', matcher: 'ignored' }],
  },
  'config',
);
const sources = {
  configFile: '/home/u/.copilot-shell/config.toml',
  extensions: [
    { name: 'sec', version: '0.7.0', path: '/ext/sec', scope: 'user' as const, enabled: true },
    { name: 'old', path: '/sys/old', scope: 'system' as const, enabled: false },
  ],
};

const notification: HookNotification = {
  type: 'stream_event',
  event: {
    subtype: 'hook_notification',
    hook_name: 'guard',
    message: 'Command blocked\nby policy',
    decision: 'block',
    hook_event_name: 'PreToolUse',
    session_id: 's',
  },
};

const decision: HookDecision = {
  type: 'hook_decision',
  seq: 1,
  hook_event_name: 'PreToolUse',
  session_id: 's',
  decision: 'block',
  reason: 'Dangerous rm -rf command',
  systemMessage: 'Command blocked by policy',
  additional_context: 'one\ntwo',
  hook_specific_output: { tool_input: { command: 'ls' } },
  hooks: [
    { name: 'guard', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 12 },
    { name: 'audit', source: 'extension:sec', outcome: 'skipped' },
  ],
};

describe('useColor', () => {
  it('colours a terminal only, and never with NO_COLOR set to something', () => {
    expect(useColor(true, {})).toBe(true);
    expect(useColor(true, { NO_COLOR: '' })).toBe(true);
    expect(useColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(false, {})).toBe(false);
    expect(useColor(undefined, {})).toBe(false);
  });
});

describe('columns', () => {
  it('pads every column but the last to its widest cell', () => {
    expect(
      columns([
        ['a', 'bb', 'c'],
        ['ddd', 'e', 'ffff'],
      ]),
    ).toEqual(['a    bb  c', 'ddd  e   ffff']);
  });
});

describe('formatChains', () => {
  it('shows sources, then a table per event with hooks, then the events without', () => {
    expect(formatChains(registry, sources, false)).toBe(
      [
        'config file  /home/u/.copilot-shell/config.toml',
        'extensions   sec 0.7.0 (user)  /ext/sec',
        '             old (system, disabled)  /sys/old',
        '',
        'PreToolUse',
        '  #  name   source  matcher  timeout  fail_closed  redact  enabled  mode',
        '  1  guard  config  ^shell$  2000 ms  yes          no      yes      per-event',
        '     $ guard.sh',
        '  2  audit  config  *        5000 ms  no           no      no       per-event',
        '     $ audit.sh',
        '',
        'Stop',
        '  #  name     source  matcher            timeout  fail_closed  redact  enabled  mode',
        '  1  stopper  config  (ignored) ignored  5000 ms  no           no      yes      per-event',
        '     $ stop.sh',
        '',
        'no hooks  PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, BeforeModel, AfterModel, SessionEnd, Notification, PreCompact, SubagentStart, SubagentStop',
      ].join('\n'),
    );
  });

  it('marks a hook with load-time problems with ! and prints each problem under it (redacted, escaped)', () => {
    const problems = [
      {
        file: '/home/u/.copilot-shell/config.toml',
        line: 1,
        message: 'command cannot start: program "guard.sh" not found in PATH\u001b[2J --password hunter2',
        hook: { event: 'PreToolUse' as const, name: 'guard', source: 'config' },
      },
      // Same name on another event or from another source: not this hook.
      { file: 'x', message: 'other', hook: { event: 'Stop' as const, name: 'guard', source: 'config' } },
      {
        file: 'x',
        message: 'other',
        hook: { event: 'PreToolUse' as const, name: 'guard', source: 'extension:sec' },
      },
    ];
    const lines = formatChains(registry, sources, false, problems).split('\n');
    expect(lines.slice(5, 10)).toEqual([
      '  #   name   source  matcher  timeout  fail_closed  redact  enabled  mode',
      '  !1  guard  config  ^shell$  2000 ms  yes          no      yes      per-event',
      '     $ guard.sh',
      '     ! command cannot start: program "guard.sh" not found in PATH\\x1b[2J --password <redacted>',
      '  2   audit  config  *        5000 ms  no           no      no       per-event',
    ]);
    expect(
      chainsToJson(registry, sources, problems).events['PreToolUse'].map((hook) => hook.problems),
    ).toEqual([
      ['command cannot start: program "guard.sh" not found in PATH\u001b[2J --password <redacted>'],
      undefined,
    ]);
  });

  it('says "none" when there is no config file and no extension; colours only when asked', () => {
    const text = formatChains(registry, { extensions: [] }, false);
    expect(text.split('\n').slice(0, 2)).toEqual(['config file  none', 'extensions   none']);
    expect(text).not.toContain(ESC);
    expect(formatChains(registry, sources, true)).toContain(ESC);
  });
});

describe('chainsToJson', () => {
  it('lists every event in order, with plain values', () => {
    const json = chainsToJson(registry, sources);
    expect(json.config_file).toBe('/home/u/.copilot-shell/config.toml');
    expect(json.extensions[1]).toEqual({ name: 'old', path: '/sys/old', scope: 'system', enabled: false });
    expect(json.events['PreToolUse']).toEqual([
      {
        name: 'guard',
        source: 'config',
        command: 'guard.sh',
        matcher: '^shell$',
        timeout: 2000,
        fail_closed: true,
        redact: false,
        persistent: false,
        enabled: true,
      },
      {
        name: 'audit',
        source: 'config',
        command: 'audit.sh',
        matcher: null,
        timeout: 5000,
        fail_closed: false,
        redact: false,
        persistent: false,
        enabled: false,
      },
    ]);
    expect(json.events['SessionStart']).toEqual([]);
    expect(chainsToJson(registry, { extensions: [] }).config_file).toBeNull();
  });
});

describe('commands with secrets in list (docs/compat.md: shown redacted)', () => {
  const secret = defineHooks(
    {
      PreToolUse: [
        { name: 'caller', command: "curl -H 'Authorization: Bearer abc123def456' --token t0k3n x" },
      ],
    },
    'config',
  );
  const shown = "curl -H 'Authorization: Bearer <redacted>' --token <redacted> x";

  it('formatChains prints the command redacted', () => {
    expect(formatChains(secret, { extensions: [] }, false)).toContain(`     $ ${shown}\n`);
  });

  it('chainsToJson gives the command redacted', () => {
    expect(chainsToJson(secret, { extensions: [] }).events['PreToolUse']?.[0]?.command).toBe(shown);
  });
});

describe('problems and validation summary', () => {
  it('prefixes errors before warnings', () => {
    expect(formatProblemLines(['a:1: x'], ['b: y'], false)).toEqual(['error: a:1: x', 'warning: b: y']);
  });

  it('counts problems, or says what was found', () => {
    expect(formatValidationSummary(2, 1, undefined, false)).toBe('2 errors, 1 warning');
    expect(formatValidationSummary(0, 3, undefined, false)).toBe('3 warnings');
    expect(formatValidationSummary(0, 0, { registry, sources }, false)).toBe(
      'ok: /home/u/.copilot-shell/config.toml, 2 extensions, 3 hooks',
    );
    expect(formatValidationSummary(0, 0, { registry, sources: { extensions: [] } }, false)).toBe(
      'ok: no config file, 0 extensions, 3 hooks',
    );
  });

  it('no hooks at all is not "ok": it says nothing is checked, and whether a config file was found', () => {
    const none = defineHooks({});
    expect(formatValidationSummary(0, 0, { registry: none, sources: { extensions: [] } }, false)).toBe(
      'no hooks: no config file found, 0 extensions: nothing is checked (cosh-hooks init writes a starter config.toml)',
    );
    expect(
      formatValidationSummary(
        0,
        0,
        { registry: none, sources: { configFile: '/h/config.toml', extensions: [] } },
        false,
      ),
    ).toBe('no hooks: /h/config.toml, 0 extensions: nothing is checked');
  });
});

describe('validate names the hooks that receive a redacted copy of the event', () => {
  const raw = defineHooks(
    {
      PreToolUse: [
        { name: 'shipper', command: 'ship.sh', redact: true },
        { name: 'guard', command: 'g.sh' },
        { name: 'claude-scan.sh-0a1b2c3d', command: 'scan.sh', dialect: 'claude' },
      ],
    },
    'config',
  );

  it('also when there are warnings; a hook without redact is not named (it sees the event as sent)', () => {
    const line =
      'redact = true: these hooks receive a redacted copy of the event: PreToolUse shipper (config)';
    expect(formatValidationSummary(0, 2, { registry: raw, sources: { extensions: [] } }, false)).toBe(
      `2 warnings\n${line}`,
    );
    expect(formatValidationSummary(0, 0, { registry: raw, sources: { extensions: [] } }, false)).toBe(
      `ok: no config file, 0 extensions, 3 hooks\n${line}`,
    );
  });
});

describe('the mode of a hook (spec §8)', () => {
  const mixed = defineHooks(
    {
      PreToolUse: [
        { name: 'kept', command: 'python3 k.py', persistent: true },
        { name: 'once', command: 'o.sh' },
      ],
    },
    'config',
  );

  it('list shows per-event or persistent in a mode column, and as persistent in JSON', () => {
    const table = formatChains(mixed, { extensions: [] }, false).split('\n');
    expect(table.filter((line) => /^ {2}[#\d]/.test(line))).toEqual([
      '  #  name  source  matcher  timeout  fail_closed  redact  enabled  mode',
      '  1  kept  config  *        5000 ms  no           no      yes      persistent',
      '  2  once  config  *        5000 ms  no           no      yes      per-event',
    ]);
    expect(
      chainsToJson(mixed, { extensions: [] }).events['PreToolUse'].map((hook) => hook.persistent),
    ).toEqual([true, false]);
  });

  it('validate counts the persistent hooks', () => {
    expect(formatValidationSummary(0, 0, { registry: mixed, sources: { extensions: [] } }, false)).toBe(
      'ok: no config file, 0 extensions, 2 hooks (1 persistent)',
    );
  });

  it('fire shows the mode of each hook it ran when given a lookup', () => {
    const text = formatFireResult(
      { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'shell' },
      [],
      decision,
      false,
      (name) => (name === 'guard' ? 'persistent' : undefined),
    );
    expect(text.split('\n').filter((line) => /^(hook|guard|audit) /.test(line))).toEqual([
      'hook   source         mode        decision  outcome  time',
      'guard  config         persistent  block     ok       12 ms',
      'audit  extension:sec  -           -         skipped',
    ]);
  });
});

describe('cards and decisions', () => {
  it('renders a notification as a card, one line per message line', () => {
    expect(formatCard(notification, false)).toBe(
      ['╭─ guard · PreToolUse · block', '│ Command blocked', '│ by policy', '╰─'].join('\n'),
    );
    expect(formatCard(notification, true)).toContain(`${ESC}31m`);
  });

  it('renders a decision with its reason, message, context and output', () => {
    expect(formatDecision(decision, false)).toBe(
      [
        'decision BLOCK  Dangerous rm -rf command',
        '  message  Command blocked by policy',
        '  context  one',
        '           two',
        '  output   {"tool_input":{"command":"ls"}}',
      ].join('\n'),
    );
    expect(
      formatDecision(
        {
          ...decision,
          decision: 'none',
          reason: undefined,
          systemMessage: undefined,
          additional_context: undefined,
          hook_specific_output: undefined,
        },
        false,
      ),
    ).toBe('decision NONE');
  });

  it('renders the whole fire result', () => {
    const text = formatFireResult(
      { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'shell' },
      [notification],
      decision,
      false,
    );
    expect(text.split('\n\n').map((block) => block.split('\n')[0])).toEqual([
      'PreToolUse  tool shell · session s',
      '╭─ guard · PreToolUse · block',
      'hook   source         decision  outcome  time',
      'decision BLOCK  Dangerous rm -rf command',
    ]);
    expect(text).toContain('audit  extension:sec  -         skipped');
    expect(
      formatFireResult({ hook_event_name: 'Stop', session_id: 's' }, [], { ...decision, hooks: [] }, false),
    ).toContain('no hooks apply to this event');
  });
});

describe('buildFireEvent', () => {
  it('fills placeholders for required fields, then the given fields, then the flags', () => {
    expect(buildFireEvent({ event: 'Stop' })).toEqual({
      ok: true,
      value: { hook_event_name: 'Stop', session_id: 'cosh-hooks-fire' },
    });
    expect(
      buildFireEvent({
        event: 'PreToolUse',
        tool: 'shell',
        session: 'flag',
        fields: { session_id: 'json', tool_name: 'json-tool', tool_input: { command: 'ls' }, extra: 1 },
      }),
    ).toEqual({
      ok: true,
      value: {
        hook_event_name: 'PreToolUse',
        session_id: 'flag',
        tool_name: 'shell',
        tool_input: { command: 'ls' },
        extra: 1,
      },
    });
    expect(buildFireEvent({ event: 'PostToolUse', tool: 't' })).toMatchObject({
      value: { tool_input: {}, tool_response: null },
    });
  });

  it('refuses what would be ambiguous: no tool, a non-object, another event name', () => {
    expect(buildFireEvent({ event: 'PostToolUseFailure' })).toEqual({
      ok: false,
      error: 'PostToolUseFailure needs a tool: pass --tool NAME',
    });
    expect(buildFireEvent({ event: 'Stop', fields: [1] })).toEqual({
      ok: false,
      error: 'the event input must be a JSON object',
    });
    expect(buildFireEvent({ event: 'Stop', fields: { hook_event_name: 'SessionStart' } })).toEqual({
      ok: false,
      error: 'the input is a "SessionStart" event, not Stop',
    });
  });
});

describe('toLoadOptions', () => {
  it('resolves paths against the cwd and leaves absent flags to the defaults', () => {
    expect(toLoadOptions({}, '/w')).toEqual({});
    expect(
      toLoadOptions(
        {
          config: 'c.toml',
          extensionsDir: ['a', '/b'],
          systemExtensionsDir: 's',
          stateDir: '../st',
          workspace: '.',
          home: '/h',
        },
        '/w/x',
      ),
    ).toEqual({
      configPath: '/w/x/c.toml',
      extensionsDirs: ['/w/x/a', '/b'],
      systemExtensionsDir: '/w/x/s',
      stateDir: '/w/st',
      workspace: '/w/x',
      home: '/h',
    });
  });
});

describe('palette', () => {
  it('is the identity without colour', () => {
    const p = palette(false);
    expect([p.bold('a'), p.red('b'), p.dim('c')]).toEqual(['a', 'b', 'c']);
    expect(palette(true).red('x')).toBe(`${ESC}31mx${ESC}39m`);
  });
});
