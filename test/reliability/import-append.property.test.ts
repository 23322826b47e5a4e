import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../src/config/config-file.js';
import type { ForeignHook } from '../../src/config/foreign.js';
import { foreignHooksToToml } from '../../src/config/foreign-toml.js';
import { EVENT_NAMES, type EventName } from '../../src/events/names.js';

/**
 * `cosh-hooks import … >> config.toml` (docs/cli.md): the printed text is appended to a config the
 * user already has, written in whatever TOML style they like. For every valid config C and every
 * import output O (nothing to import included), C + O must parse, keep C's hooks exactly, and add
 * O's after them; O + O (a second import) too.
 */

/** A hook of C: name, command, on an event. */
interface Own {
  readonly event: EventName;
  readonly name: string;
  readonly command: string;
}

const tomlString = (text: string): string => JSON.stringify(text);
const inline = (hook: Own) => `{ name = ${tomlString(hook.name)}, command = ${tomlString(hook.command)} }`;
const eventsOf = (hooks: readonly Own[]) =>
  EVENT_NAMES.filter((event) => hooks.some((h) => h.event === event));
const inlineArray = (hooks: readonly Own[], event: EventName) =>
  `[${hooks
    .filter((h) => h.event === event)
    .map(inline)
    .join(', ')}]`;

/** Each style writes the same hooks (and `enabled = true`) its own way; `end` is how the file ends. */
const STYLES: Readonly<Record<string, (hooks: readonly Own[]) => string>> = {
  'array of tables under [hooks] with enabled': (hooks) =>
    [
      '[hooks]',
      'enabled = true',
      ...hooks.flatMap((h) => [
        `[[hooks.${h.event}]]`,
        `name = ${tomlString(h.name)}`,
        `command = ${tomlString(h.command)}`,
      ]),
    ].join('\n'),
  'array of tables without a [hooks] header': (hooks) =>
    hooks
      .flatMap((h) => [
        `[[hooks.${h.event}]]`,
        `name = ${tomlString(h.name)}`,
        `command = ${tomlString(h.command)}`,
      ])
      .join('\n'),
  'inline arrays under [hooks]': (hooks) =>
    [
      '[hooks]',
      'enabled = true',
      ...eventsOf(hooks).map((event) => `${event} = ${inlineArray(hooks, event)}`),
    ].join('\n'),
  'dotted keys at the top level': (hooks) =>
    [
      'hooks.enabled = true',
      ...eventsOf(hooks).map((event) => `hooks.${event} = ${inlineArray(hooks, event)}`),
    ].join('\n'),
  'one inline table': (hooks) =>
    `hooks = { enabled = true${eventsOf(hooks)
      .map((event) => `, ${event} = ${inlineArray(hooks, event)}`)
      .join('')} }`,
  'hooks, then other tables of the shell': (hooks) =>
    [
      '[hooks]',
      'enabled = true',
      ...eventsOf(hooks).map((event) => `${event} = ${inlineArray(hooks, event)}`),
      '[ui]',
      'theme = "dark"',
      '[model.options]',
      'temperature = 0.2',
    ].join('\n'),
  'other tables first, then an array of tables with an inline env last': (hooks) =>
    [
      'title = "mine"',
      '[ui]',
      'theme = "dark"',
      ...hooks.flatMap((h) => [
        `[[hooks.${h.event}]]`,
        `name = ${tomlString(h.name)}`,
        `command = ${tomlString(h.command)}`,
        'env = { A = "1" }',
      ]),
    ].join('\n'),
  'CRLF line ends and a byte-order mark': (hooks) =>
    `\uFEFF${['[hooks]', 'enabled = true', ...eventsOf(hooks).map((event) => `${event} = ${inlineArray(hooks, event)}`)].join('\r\n')}`,
};

const ENDINGS = ['', '\n', '\n\n', '   ', '\t# a last comment', '\r\n'];

const text = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
  // Printable text: this test writes C with JSON string escapes, and TOML has no escape for DEL.
  .filter((s) => s.trim() !== '' && [...s].every((c) => c.charCodeAt(0) > 0x1f && c !== '\u007f'));
const own = fc.record({ event: fc.constantFrom(...EVENT_NAMES), name: text, command: text });
const foreign: fc.Arbitrary<ForeignHook> = fc.record(
  {
    event: fc.constantFrom(...EVENT_NAMES),
    name: text,
    command: fc.string({ maxLength: 30 }).filter((s) => s.trim() !== '' && !s.includes('\u0000')),
    timeout: fc.integer({ min: 1, max: 600_000 }),
    matcher: fc.constantFrom('^(shell|run_shell_command)$', '^read_file$'),
    description: text,
    dialect: fc.constantFrom('claude' as const, 'gemini' as const),
  },
  { requiredKeys: ['event', 'name', 'command', 'timeout', 'dialect'] },
);
const source = fc.record({
  file: fc.constantFrom(
    '/home/u/.claude/settings.json',
    '/p/plugin "x"/hooks/hooks.json',
    '/e/.gemini/settings.json',
  ),
  dialect: fc.constantFrom('claude' as const, 'gemini' as const),
});

/** Per event, the `name command` of every loaded hook, in order. */
const loaded = (configText: string) => {
  const decoded = decodeConfigText(configText, 'config.toml');
  expect(decoded.errors).toStrictEqual([]);
  return { enabled: decoded.enabled, hooks: decoded.hooks };
};
const names = (hooks: ReturnType<typeof loaded>['hooks']) =>
  Object.fromEntries(
    EVENT_NAMES.map((event) => [
      event,
      hooks[event].map((h) => `${h.name} ${h.kind === 'command' ? h.command : ''}`),
    ]),
  );

describe('import output appended to any valid config', () => {
  it.each(Object.keys(STYLES))('%s: C + O parses, keeps C and adds O (150 cases)', (style) => {
    fc.assert(
      fc.property(
        fc.array(own, { minLength: 1, maxLength: 4 }),
        fc.array(foreign, { maxLength: 4 }),
        fc.array(foreign, { maxLength: 2 }),
        source,
        fc.constantFrom(...ENDINGS),
        (mine, first, second, from, ending) => {
          // Names unique across the file: the same hook twice would be a problem of its own.
          const imported = first.map((hook, i) => ({ ...hook, name: `${hook.name}-imported-${i}` }));
          const again = second.map((hook, i) => ({ ...hook, name: `${hook.name}-again-${i}` }));
          // Unique names, as a valid config has them: a duplicate would be a different problem.
          const config =
            STYLES[style]!(mine.map((hook, i) => ({ ...hook, name: `${hook.name}-${i}` }))) + ending;
          const before = loaded(config);
          const once = config + foreignHooksToToml(imported, from);
          const after = loaded(once);
          const twice = loaded(once + foreignHooksToToml(again, from));
          expect(after.enabled).toBe(before.enabled);
          for (const event of EVENT_NAMES) {
            const expected = [
              ...names(before.hooks)[event]!,
              ...imported
                .filter((h) => h.event === event)
                .map((h) => `${h.name} ${h.command.replaceAll('${/}', '/')}`),
            ];
            expect(names(after.hooks)[event]).toStrictEqual(expected);
            expect(names(twice.hooks)[event]).toStrictEqual([
              ...expected,
              ...again
                .filter((h) => h.event === event)
                .map((h) => `${h.name} ${h.command.replaceAll('${/}', '/')}`),
            ]);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('nothing to import: only comments, which change nothing, whatever the config', () => {
    for (const style of Object.keys(STYLES)) {
      for (const ending of ENDINGS) {
        const config = STYLES[style]!([{ event: 'PreToolUse', name: 'guard', command: 'g' }]) + ending;
        const empty = foreignHooksToToml([], { file: '/home/u/.claude/settings.json', dialect: 'claude' });
        expect(empty.split('\n').every((line) => line === '' || line.startsWith('#'))).toBe(true);
        expect(names(loaded(config + empty).hooks)).toStrictEqual(names(loaded(config).hooks));
      }
    }
  });

  it('an imported hook keeps every field it was printed with', () => {
    const text = foreignHooksToToml(
      [
        {
          event: 'PreToolUse',
          name: 'claude-guard',
          command: 'exit 2',
          timeout: 5000,
          matcher: '^read_file$',
          description: 'd',
          dialect: 'claude',
        },
      ],
      { file: '/x/hooks/hooks.json', dialect: 'claude' },
    );
    const [hook] = loaded(
      `[hooks]\nPreToolUse = [{ name = "mine", command = "m" }]\n${text}`,
    ).hooks.PreToolUse.slice(1);
    expect(hook).toMatchObject({
      name: 'claude-guard',
      command: 'exit 2',
      timeoutMs: 5000,
      dialect: 'claude',
      description: 'd',
      env: { CLAUDE_PLUGIN_ROOT: '/x' },
    });
  });

  it('[hooks] enabled = false turns the imported hooks off with the rest', () => {
    const text = foreignHooksToToml(
      [{ event: 'Stop', name: 's', command: 's', timeout: 1, dialect: 'gemini' }],
      {
        file: '/g/settings.json',
        dialect: 'gemini',
      },
    );
    const decoded = decodeConfigText(`[hooks]\nenabled = false\n${text}`, 'c.toml');
    expect(decoded.errors).toStrictEqual([]);
    expect(decoded.enabled).toBe(false);
  });
});
