// Rule hooks in config.toml (docs/configuration.md, Policy): a hook table with deny/ask/allow
// instead of command; every mistake named with its line; `list` shows the rules.
import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { chainsToJson, formatChains } from '../../../src/cli/format.js';
import { registryOf } from '../../../src/registry/chain.js';

const FILE = '/home/u/.copilot-shell/config.toml';
const toml = (...lines: string[]) => lines.join('\n');
const errorsOf = (text: string) =>
  decodeConfigText(text, FILE).errors.map(({ line, message }) => ({ line, message }));

describe('rule hooks in config.toml', () => {
  const text = toml(
    '[[hooks.PreToolUse]]',
    'name = "policy"',
    'deny = ["Bash(rm -rf:*)", "Edit(/etc/**)"]',
    'allow = ["Bash(git status)"]',
    'reason = "house policy"',
    'system_message = "blocked by policy"',
  );

  it('decodes to a rule hook with its origin, and decides', () => {
    const result = decodeConfigText(text, FILE);
    expect(result.errors).toStrictEqual([]);
    const hook = result.hooks.PreToolUse[0];
    if (hook?.kind !== 'rule') throw new Error('expected a rule hook');
    expect(hook).toMatchObject({
      name: 'policy',
      source: 'config',
      reason: 'house policy',
      systemMessage: 'blocked by policy',
      origin: { file: FILE, line: 1, path: 'hooks.PreToolUse[0]' },
    });
    expect(hook.rules.decide('shell', { command: 'ls; rm -rf x' }, '/')?.kind).toBe('deny');
    expect(hook.rules.decide('shell', { command: 'git status' }, '/')?.kind).toBe('allow');
  });

  it('list shows the rules, in text and JSON', () => {
    const { hooks } = decodeConfigText(text, FILE);
    const registry = registryOf((event) => hooks[event]);
    expect(formatChains(registry, { configFile: FILE, extensions: [] }, false)).toContain(
      'deny Bash(rm -rf:*), Edit(/etc/**); allow Bash(git status)',
    );
    const listed = chainsToJson(registry, { configFile: FILE, extensions: [] }) as unknown as {
      chains: Record<string, { rules?: unknown }[]>;
    };
    expect(JSON.stringify(listed)).toContain(
      '"rules":{"deny":["Bash(rm -rf:*)","Edit(/etc/**)"],"ask":[],"allow":["Bash(git status)"]}',
    );
  });

  it('a table needs command or rules, not both nor neither', () => {
    expect(errorsOf(toml('[[hooks.PreToolUse]]', 'name = "a"', 'timeout = 100'))).toEqual([
      { line: 1, message: expect.stringMatching(/or deny\/ask\/allow rules/) },
    ]);
    expect(errorsOf(toml('[[hooks.PreToolUse]]', 'name = "a"', 'command = "x"', 'deny = ["Bash"]'))).toEqual([
      { line: 3, message: expect.stringMatching(/command or rules \(deny\), not both/) },
    ]);
  });

  it('a rule that cannot be read, a process key, a non-tool event: each an error with its line', () => {
    expect(errorsOf(toml('[[hooks.PreToolUse]]', 'name = "a"', 'deny = ["Bash(rm"]'))).toEqual([
      { line: 3, message: expect.stringMatching(/deny: "Bash\(rm" is not a permission rule/) },
    ]);
    expect(
      errorsOf(toml('[[hooks.PreToolUse]]', 'name = "a"', 'deny = ["Bash"]', 'persistent = true')),
    ).toEqual([{ line: 4, message: 'a rule hook runs no process: persistent has no use' }]);
    expect(errorsOf(toml('[[hooks.Stop]]', 'name = "a"', 'deny = ["Bash"]'))).toEqual([
      { line: 3, message: expect.stringMatching(/rule hooks judge tool calls/) },
    ]);
    expect(errorsOf(toml('[[hooks.PreToolUse]]', 'name = "a"', 'deny = "Bash"'))).toEqual([
      { line: 3, message: expect.stringMatching(/expected an array of permission rules/) },
    ]);
  });

  it('[[hooks.any]] and [[imported_hooks]] take rule hooks too', () => {
    const result = decodeConfigText(
      toml(
        '[[hooks.any]]',
        'events = ["PreToolUse", "PostToolUse"]',
        'name = "p"',
        'deny = ["mcp__github__delete_*"]',
        '[[imported_hooks]]',
        'event = "PreToolUse"',
        'name = "q"',
        'ask = ["Bash(git push:*)"]',
      ),
      FILE,
    );
    expect(result.errors).toStrictEqual([]);
    expect(result.hooks.PreToolUse.map((hook) => [hook.name, hook.kind])).toEqual([
      ['p', 'rule'],
      ['q', 'rule'],
    ]);
    expect(result.hooks.PostToolUse.map((hook) => hook.name)).toEqual(['p']);
  });
});
