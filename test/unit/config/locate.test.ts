import { describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { jsonLocations, lineAndColumn, lineOf, tomlLocations } from '../../../src/config/locate.js';
import { formatPath, formatProblem } from '../../../src/config/problems.js';

const lines = (...text: string[]) => text.join('\n');

describe('formatPath', () => {
  it.each([
    [['hooks', 'PreToolUse', 1, 'timeout'], 'hooks.PreToolUse[1].timeout'],
    [['hooks', 'PreToolUse', 0, 'env', 'BAD NAME'], 'hooks.PreToolUse[0].env["BAD NAME"]'],
    [['hooks', 'a.b'], 'hooks["a.b"]'],
    [[0, 'x'], '[0].x'],
    [[], ''],
  ])('%j -> %s', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});

describe('formatProblem', () => {
  it.each([
    [{ file: 'c.toml', line: 3, path: 'hooks.Stop', message: 'bad' }, 'c.toml:3: hooks.Stop: bad'],
    [{ file: 'c.toml', path: 'hooks.Stop', message: 'bad' }, 'c.toml: hooks.Stop: bad'],
    [{ file: 'c.toml', line: 3, message: 'bad' }, 'c.toml:3: bad'],
    [{ file: 'c.toml', message: 'file not found' }, 'c.toml: file not found'],
  ])('%j', (problem, expected) => {
    expect(formatProblem(problem)).toBe(expected);
  });
});

describe('tomlLocations', () => {
  const at = (text: string, path: string) => {
    parse(text); // the scanner is only ever given text the real parser accepted
    return tomlLocations(text).get(path);
  };

  it('numbers arrays of tables and finds keys inside them', () => {
    const text = lines(
      '[hooks]', //                       1
      'enabled = true', //                2
      '', //                              3
      '[[hooks.PreToolUse]]', //          4
      'name = "a"', //                    5
      'command = "x"', //                 6
      '# a comment', //                   7
      '[[ hooks . PreToolUse ]]  # two', // 8
      'name = "b"', //                    9
      '  timeout = 0', //                10
      '[[hooks.Stop]]', //               11
      'timeout = 1', //                  12
    );
    expect(at(text, 'hooks')).toBe(1);
    expect(at(text, 'hooks.enabled')).toBe(2);
    expect(at(text, 'hooks.PreToolUse')).toBe(4);
    expect(at(text, 'hooks.PreToolUse[0]')).toBe(4);
    expect(at(text, 'hooks.PreToolUse[0].command')).toBe(6);
    expect(at(text, 'hooks.PreToolUse[1]')).toBe(8);
    expect(at(text, 'hooks.PreToolUse[1].timeout')).toBe(10);
    expect(at(text, 'hooks.Stop[0].timeout')).toBe(12);
  });

  it('resolves a sub-table of the latest array element', () => {
    const text = lines(
      '[[hooks.PreToolUse]]',
      'command = "a"',
      '[[hooks.PreToolUse]]',
      'command = "b"',
      '[hooks.PreToolUse.env]',
      'TEAM = "x"',
      'N = 1',
    );
    expect(at(text, 'hooks.PreToolUse[1].env')).toBe(5);
    expect(at(text, 'hooks.PreToolUse[1].env.N')).toBe(7);
  });

  it('walks inline tables and arrays of inline tables', () => {
    const text = lines(
      '[hooks]',
      'PreToolUse = [',
      '  { name = "a", command = "x" },',
      '  { name = "b",',
      '    timeout = 0, env = { "BAD NAME" = "1" } },',
      ']',
      'Stop = [{ command = "s" }]',
    );
    expect(at(text, 'hooks.PreToolUse')).toBe(2);
    expect(at(text, 'hooks.PreToolUse[0]')).toBe(3);
    expect(at(text, 'hooks.PreToolUse[1]')).toBe(4);
    expect(at(text, 'hooks.PreToolUse[1].timeout')).toBe(5);
    expect(at(text, 'hooks.PreToolUse[1].env["BAD NAME"]')).toBe(5);
    expect(at(text, 'hooks.Stop[0].command')).toBe(7);
  });

  it('is not fooled by headers and quotes inside strings', () => {
    const text = lines(
      '[[hooks.PreToolUse]]',
      'command = """',
      '[[hooks.PreToolUse]]',
      'a \\""" b',
      'ends with a quote""""',
      "description = '''",
      "[[hooks.PreToolUse]]'''",
      'name = "a#b" # comment [[x]]',
      '[[hooks.PreToolUse]]',
      'timeout = 0',
    );
    expect(at(text, 'hooks.PreToolUse[0].name')).toBe(8);
    expect(at(text, 'hooks.PreToolUse[1]')).toBe(9);
    expect(at(text, 'hooks.PreToolUse[1].timeout')).toBe(10);
    expect(at(text, 'hooks.PreToolUse[2]')).toBeUndefined();
  });

  it('handles quoted and dotted keys', () => {
    const text = lines('[[hooks."PreToolUse"]]', '\'command\' = "x"', 'env.TEAM = "p"', 'hooks.x = 1');
    expect(at(text, 'hooks.PreToolUse[0].command')).toBe(2);
    expect(at(text, 'hooks.PreToolUse[0].env')).toBe(3);
    expect(at(text, 'hooks.PreToolUse[0].env.TEAM')).toBe(3);
    expect(at(text, 'hooks.PreToolUse[0].hooks.x')).toBe(4);
  });

  it('numbers nested arrays of tables per parent element', () => {
    const text = lines('[[a]]', '[[a.b]]', '[[a]]', '[[a.b]]', '[[a.b]]', 'x = 1');
    expect(at(text, 'a[1].b[0]')).toBe(4);
    expect(at(text, 'a[1].b[1].x')).toBe(6);
    expect(at(text, 'a[0].b[1]')).toBeUndefined();
  });

  it('skips a byte order mark as smol-toml does, lines unchanged', () => {
    expect(at('\uFEFF[[hooks.Stop]]\ncommand = "x"\ntimeout = 0\n', 'hooks.Stop[0].timeout')).toBe(3);
  });

  it('decodes TOML 1.1 escapes in keys, which JSON.parse does not know', () => {
    const text = lines('[[hooks.Stop]]', 'env = { "A\\x42\\e" = "1", "\\u00e9t\\u00e9" = "2" }');
    expect(at(text, formatPath(['hooks', 'Stop', 0, 'env', 'AB\u001b']))).toBe(2);
    expect(at(text, 'hooks.Stop[0].env["été"]')).toBe(2);
  });

  it('finds keys after a value nested as deep as smol-toml accepts (1,000 levels)', () => {
    const deep = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    const text = lines('[[hooks.Stop]]', `x = ${deep}`, 'timeout = 0');
    expect(at(text, 'hooks.Stop[0].timeout')).toBe(3);
    expect(at(text, 'hooks.Stop[0].x')).toBe(2);
  });

  it('a dotted key of 50,000 parts is located up to 64 levels, not copied 50,000 times', () => {
    const text = lines(
      '[[hooks.Stop]]',
      `${Array.from({ length: 50_000 }, () => 'a').join('.')} = 1`,
      'timeout = 0',
    );
    const locations = tomlLocations(text);
    expect(locations.get('hooks.Stop[0].timeout')).toBe(3);
    expect(locations.get(`hooks.Stop[0].${Array.from({ length: 61 }, () => 'a').join('.')}`)).toBe(2);
    expect(locations.get(`hooks.Stop[0].${Array.from({ length: 62 }, () => 'a').join('.')}`)).toBeUndefined();
  });

  it('text the locating parser cannot read gives no locations, never a wrong line', () => {
    expect(tomlLocations('[[hooks.Stop]]\ntimeout = [').size).toBe(0);
    expect(lineOf(tomlLocations('timeout = ['), ['timeout'])).toBeUndefined();
  });

  it('copes with CRLF line endings', () => {
    expect(at('[[hooks.Stop]]\r\ncommand = "x"\r\ntimeout = 0\r\n', 'hooks.Stop[0].timeout')).toBe(3);
  });
});

describe('lineOf', () => {
  it('falls back to the closest located ancestor', () => {
    const locations = tomlLocations(lines('[[hooks.Stop]]', 'name = "a"'));
    expect(lineOf(locations, ['hooks', 'Stop', 0, 'command'])).toBe(1);
    expect(lineOf(locations, ['hooks', 'Stop', 0, 'name'])).toBe(2);
    expect(lineOf(locations, ['other'])).toBeUndefined();
  });
});

describe('jsonLocations', () => {
  it('finds members and elements by path', () => {
    const text = lines(
      '{',
      '  "name": "x",',
      '  "hooks": {',
      '    "PreToolUse": [',
      '      { "matcher": "a\\"b}", "hooks": [',
      '        {',
      '          "timeout": 0',
      '        }',
      '      ] }',
      '    ]',
      '  }',
      '}',
    );
    JSON.parse(text);
    const locations = jsonLocations(text);
    expect(locations.get('name')).toBe(2);
    expect(locations.get('hooks.PreToolUse[0]')).toBe(5);
    expect(locations.get('hooks.PreToolUse[0].matcher')).toBe(5);
    expect(locations.get('hooks.PreToolUse[0].hooks[0]')).toBe(6);
    expect(locations.get('hooks.PreToolUse[0].hooks[0].timeout')).toBe(7);
  });

  it('decodes escaped keys and walks past strings holding brackets and quotes', () => {
    const text = lines(
      '{',
      '  "\\u0041\\n": "[{\\"",',
      '  "b": [',
      '    "]}",',
      '    { "c": 1 }',
      '  ]',
      '}',
    );
    JSON.parse(text);
    const locations = jsonLocations(text);
    expect(locations.get('["A\\n"]')).toBe(2);
    expect(locations.get('b[0]')).toBe(4);
    expect(locations.get('b[1].c')).toBe(5);
  });

  it('the first mention of a duplicated key wins', () => {
    const text = lines('{', '  "a": 1,', '  "a": 2', '}');
    expect(jsonLocations(text).get('a')).toBe(2);
  });

  it('locates members 64 levels deep and stops there, at any depth of the document', () => {
    const depth = 100_000;
    const text = `{"a":\n${'['.repeat(depth)}${']'.repeat(depth)},\n"b": 1}`;
    const locations = jsonLocations(text);
    expect(locations.get('a')).toBe(1);
    expect(locations.get(`a${'[0]'.repeat(63)}`)).toBe(2);
    expect(locations.get(`a${'[0]'.repeat(64)}`)).toBeUndefined();
    expect(locations.get('b')).toBe(3);
  });

  it('converts offsets to line and column', () => {
    expect(lineAndColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab', 0)).toEqual({ line: 1, column: 1 });
  });
});
