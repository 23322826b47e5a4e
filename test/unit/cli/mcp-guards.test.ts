import { describe, expect, it } from 'vitest';
import { hasGuard, unguardedTools } from '../../../src/cli/mcp-guards.js';
import { defineHooks } from '../../../src/registry/define.js';

const run = () => undefined;
const TOOLS = ['mcp__fs__read_file', 'mcp__fs__write_file', 'mcp__fs__move_file'];

describe('what guards the gateway', () => {
  it('no PreToolUse hook, or only observers or disabled ones: nothing guards', () => {
    expect(hasGuard(defineHooks({}))).toBe(false);
    expect(hasGuard(defineHooks({ PostToolUse: [{ name: 'post', run }] }))).toBe(false);
    const weak = defineHooks({
      PreToolUse: [
        { name: 'watch', run, observe: true },
        { name: 'off', run, enabled: false },
      ],
    });
    expect(hasGuard(weak)).toBe(false);
    expect(unguardedTools(weak, TOOLS)).toStrictEqual(TOOLS);
  });

  it('a guard without a matcher (or "*") selects every tool', () => {
    for (const matcher of [undefined, '*', '']) {
      const registry = defineHooks({
        PreToolUse: [{ name: 'all', run, ...(matcher !== undefined && { matcher }) }],
      });
      expect(hasGuard(registry)).toBe(true);
      expect(unguardedTools(registry, TOOLS)).toStrictEqual([]);
    }
  });

  it('names the tools no matcher selects, in the order listed; a server-name typo leaves all unguarded', () => {
    const registry = defineHooks({
      PreToolUse: [
        { name: 'writes', run, matcher: '^mcp__fs__(write_file|edit_file)$' },
        { name: 'observer', run, matcher: '.*', observe: true },
      ],
    });
    expect(unguardedTools(registry, TOOLS)).toStrictEqual(['mcp__fs__read_file', 'mcp__fs__move_file']);
    expect(unguardedTools(registry, ['mcp__npx__write_file'])).toStrictEqual(['mcp__npx__write_file']);
  });
});
