import { describe, expect, it } from 'vitest';
import { aggregate, success, type HookRun } from '../../../src/protocol/index.js';

const run = (name: string, hookSpecificOutput: Record<string, unknown>): HookRun => ({
  hook: { name, source: 'config' },
  result: success({ decision: 'allow', hookSpecificOutput }),
  effective: { decision: 'allow' },
  durationMs: 1,
});

describe('aggregate: updated_input is a replacement, tool_input a patch', () => {
  it('a later replacement wins whole; it is never merged with an earlier one', () => {
    const verdict = aggregate([
      run('a', { updated_input: { command: 'ls', timeout: 5 } }),
      run('b', { updated_input: { command: 'ls -la' } }),
    ]);
    expect(verdict.hookSpecificOutput).toStrictEqual({ updated_input: { command: 'ls -la' } });
  });

  it('a replacement supersedes the patches before it; later patches stay for the host to apply on top', () => {
    const verdict = aggregate([
      run('a', { tool_input: { color: 'never' }, note: 1 }),
      run('b', { updated_input: { command: 'ls' } }),
      run('c', { tool_input: { all: true } }),
    ]);
    expect(verdict.hookSpecificOutput).toStrictEqual({
      note: 1,
      updated_input: { command: 'ls' },
      tool_input: { all: true },
    });
  });

  it('without a replacement, patches deep-merge as before', () => {
    const verdict = aggregate([
      run('a', { tool_input: { a: { x: 1 } } }),
      run('b', { tool_input: { a: { y: 2 } } }),
    ]);
    expect(verdict.hookSpecificOutput).toStrictEqual({ tool_input: { a: { x: 1, y: 2 } } });
  });
});
