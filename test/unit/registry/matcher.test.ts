import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../../src/events/decode.js';
import { chainFor } from '../../../src/registry/chain.js';
import { defineHooks, HookDefinitionError } from '../../../src/registry/define.js';
import { compileMatcher, TOOL_NAME_ALIASES } from '../../../src/registry/matcher.js';

const compiled = (source: string) => {
  const result = compileMatcher(source);
  if (!result.ok) throw new Error(result.error);
  if (result.value === undefined) throw new Error(`${source} matches every tool`);
  return result.value;
};

const messageOf = (source: string): string => {
  const result = compileMatcher(source);
  return result.ok ? 'compiled' : result.error;
};

describe('compileMatcher: RE2 syntax, unanchored (spec §4.1)', () => {
  it.each([
    ['shell', 'run_shell_command', true],
    ['^shell$', 'shell', true],
    ['^shell$', 'shell2', false],
    ['write_file|replace', 'replace', true],
    ['(?i)^SHELL$', 'shell', true],
    ['^[[:alpha:]_]+$', 'read_file', true],
    ['^\\pL+$', 'écrire', true],
    ['^(?P<tool>mcp)__', 'mcp__github__create_issue', true],
    ['^mcp\\z', 'mcp', true],
  ])('%s against %s: %s', (source, toolName, expected) => {
    expect(compiled(source).matches(toolName)).toBe(expected);
  });

  it('"" and "*" match every tool: no matcher at all', () => {
    expect(compileMatcher('')).toStrictEqual({ ok: true, value: undefined });
    expect(compileMatcher('*')).toStrictEqual({ ok: true, value: undefined });
  });

  it('keeps the pattern as written for listings', () => {
    expect(compiled('^(shell|run_shell_command)$').source).toBe('^(shell|run_shell_command)$');
  });

  it.each([
    [
      '(a)\\1',
      'invalid regular expression "(a)\\\\1" (RE2 syntax): invalid escape sequence: `\\1`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    [
      '^(?!rm)',
      'invalid regular expression "^(?!rm)" (RE2 syntax): invalid or unsupported Perl syntax: `(?!`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    [
      'shell(?=_)',
      'invalid regular expression "shell(?=_)" (RE2 syntax): invalid or unsupported Perl syntax: `(?=`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    [
      '(?<=run_)shell',
      'invalid regular expression "(?<=run_)shell" (RE2 syntax): invalid named capture: `(?<=run_)shell`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
    ],
    ['(shell', 'invalid regular expression "(shell" (RE2 syntax): missing closing ): `(shell`'],
    ['a++', 'invalid regular expression "a++" (RE2 syntax): invalid nested repetition operator: `++`'],
    ['**', 'invalid regular expression "**" (RE2 syntax): missing argument to repetition operator: `*`'],
  ])('%s is refused, never a literal match', (source, message) => {
    expect(messageOf(source)).toBe(message);
  });

  it('^(a+)+$ against a 28-character name answers (linear time; a backtracking engine takes seconds)', () => {
    const matcher = compiled('^(a+)+$');
    expect(matcher.matches(`${'a'.repeat(27)}!`)).toBe(false);
    expect(matcher.matches('a'.repeat(28))).toBe(true);
    // The same with 100,000 characters, which no backtracking engine finishes.
    expect(compiled('(x+x+)+y').matches('x'.repeat(100_000))).toBe(false);
  });

  it('answers the same on every call (cached per tool name), and for names past the cache bound', () => {
    const matcher = compiled('^tool_1\\d*$');
    const names = Array.from({ length: 600 }, (_, i) => `tool_${i}`);
    const first = names.map((name) => matcher.matches(name));
    const second = names.map((name) => matcher.matches(name));
    expect(second).toStrictEqual(first);
    expect(first.filter(Boolean)).toHaveLength(111); // 1, 10..19, 100..199
    const long = `tool_1${'0'.repeat(1000)}`;
    expect([matcher.matches(long), matcher.matches(long)]).toStrictEqual([true, true]);
  });
});

describe('tool-name aliases, as in cosh-core (spec §4.1)', () => {
  it('has the three pairs of cosh-core, both ways', () => {
    expect([...TOOL_NAME_ALIASES]).toStrictEqual([
      ['shell', 'run_shell_command'],
      ['run_shell_command', 'shell'],
      ['grep', 'grep_search'],
      ['grep_search', 'grep'],
      ['todo', 'todo_write'],
      ['todo_write', 'todo'],
    ]);
  });

  it.each([
    ['^run_shell_command$', 'shell', true],
    ['^shell$', 'run_shell_command', true],
    ['^grep_search$', 'grep', true],
    ['^grep$', 'grep_search', true],
    ['^todo_write$', 'todo', true],
    ['^todo$', 'todo_write', true],
    ['^run_shell_command$', 'bash', false],
    ['^grep_search$', 'grep2', false],
    ['^read_file$', 'shell', false],
  ])('%s against %s: %s', (source, toolName, expected) => {
    expect(compiled(source).matches(toolName)).toBe(expected);
  });

  it('chainFor picks the hook through the alias; the event keeps the host tool_name', () => {
    const registry = defineHooks({
      PreToolUse: [
        { name: 'scanner', matcher: '^run_shell_command$', command: 'true' },
        { name: 'files', matcher: '^write_file$', command: 'true' },
      ],
    });
    const decoded = decodeEvent(
      {
        hook_event_name: 'PreToolUse',
        session_id: 's',
        tool_name: 'shell',
        tool_input: {},
      },
      { now: () => new Date(0), cwd: () => '/' },
    );
    if (!decoded.ok) throw new Error('invalid event');
    expect(chainFor(registry, decoded.value).map((hook) => hook.name)).toStrictEqual(['scanner']);
    expect(decoded.value).toMatchObject({ tool_name: 'shell' });
  });
});

describe('defineHooks matchers', () => {
  it('throws at definition time, naming the hook, for a pattern RE2 refuses', () => {
    expect(() =>
      defineHooks({
        PreToolUse: [
          { name: 'ok', command: 'true' },
          { name: 'g', matcher: '(a)\\1', command: 'true' },
        ],
      }),
    ).toThrow(
      new HookDefinitionError(
        'PreToolUse[1] (hook "g"): matcher: invalid regular expression "(a)\\\\1" (RE2 syntax): invalid escape sequence: `\\1`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
      ),
    );
  });

  it('lists every problem of the definitions in one error, not only the first', () => {
    let thrown: unknown;
    try {
      defineHooks({
        PreToolUse: [
          { name: 'both', matcher: '(?=x)', timeout: 0, command: 'true' },
          { name: 'fine', command: 'true' },
        ],
        Stop: [{ name: 'late', timeout: 600_001, run: () => undefined }],
      });
    } catch (error) {
      thrown = error;
    }
    const problems = [
      'PreToolUse[0] (hook "both"): timeout: expected an integer 1..600000 (milliseconds), got 0',
      'PreToolUse[0] (hook "both"): matcher: invalid regular expression "(?=x)" (RE2 syntax): invalid or unsupported Perl syntax: `(?=`; lookaround and backreferences need backtracking, which RE2 syntax does not have',
      'Stop[0] (hook "late"): timeout: expected an integer 1..600000 (milliseconds), got 600001',
    ];
    expect(thrown).toBeInstanceOf(HookDefinitionError);
    expect((thrown as HookDefinitionError).problems).toStrictEqual(problems);
    expect((thrown as HookDefinitionError).message).toBe(problems.join('\n'));
  });

  it('compiles a RegExp through RE2 (flags i, m, s inline); the RegExp itself never runs', () => {
    const registry = defineHooks({ PreToolUse: [{ name: 'g', matcher: /^SHELL$/i, command: 'true' }] });
    const matcher = registry.PreToolUse[0]?.matcher;
    expect(matcher?.source).toBe('(?i)^SHELL$');
    expect(matcher?.matches('shell')).toBe(true);
    expect(matcher?.matches('run_shell_command')).toBe(true); // through the alias
    expect(() => defineHooks({ PreToolUse: [{ name: 'g', matcher: /(?=x)/, command: 'true' }] })).toThrow(
      /^PreToolUse\[0\] \(hook "g"\): matcher: invalid regular expression "\(\?=x\)" \(RE2 syntax\)/,
    );
    expect(() =>
      defineHooks({ PreToolUse: [{ name: 'v', matcher: new RegExp('[a]', 'v'), command: 'true' }] }),
    ).toThrow('PreToolUse[0] (hook "v"): matcher: invalid regular expression /[a]/v: flag v has no RE2 form');
  });
});
