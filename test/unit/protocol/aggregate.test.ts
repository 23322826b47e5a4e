import { describe, expect, it } from 'vitest';
import type { EventName } from '../../../src/events/names.js';
import {
  aggregate,
  deepMerge,
  effectiveDecision,
  failure,
  success,
  type HookOutput,
  type HookResult,
  type HookRun,
} from '../../../src/protocol/index.js';

const run = (
  name: string,
  result: HookResult,
  event: EventName = 'PreToolUse',
  failClosed = false,
): HookRun => ({
  hook: { name, source: 'config' },
  result,
  effective: effectiveDecision(event, { name, failClosed }, result),
  durationMs: 1,
});
const ok = (output: HookOutput) => success(output);

describe('effectiveDecision', () => {
  it.each<[EventName, HookOutput['decision'], string]>([
    ['PreToolUse', 'allow', 'allow'],
    ['PreToolUse', 'block', 'block'],
    ['PreToolUse', 'ask', 'ask'],
    ['PostToolUse', 'ask', 'none'],
    ['PostToolUse', 'block', 'block'],
    ['UserPromptSubmit', 'ask', 'ask'],
    ['SubagentStop', 'block', 'block'],
    ['SubagentStop', 'ask', 'none'],
    ['Notification', 'block', 'none'],
    ['SessionEnd', 'block', 'none'],
    ['PreCompact', 'block', 'none'],
    ['SubagentStart', 'block', 'none'],
    ['UserPromptSubmit', 'block', 'block'],
    ['Stop', 'block', 'block'],
    ['Stop', 'allow', 'allow'],
    ['PostToolUseFailure', 'block', 'none'],
    ['SessionStart', 'block', 'none'],
    ['BeforeModel', 'allow', 'none'],
    ['AfterModel', 'ask', 'none'],
  ])('%s with %s counts as %s', (event, decision, expected) => {
    expect(effectiveDecision(event, { name: 'h', failClosed: false }, ok({ decision })).decision).toBe(
      expected,
    );
  });

  it('a failure is pass-through by default', () => {
    expect(effectiveDecision('PreToolUse', { name: 'h', failClosed: false }, failure('exit', 'x'))).toEqual({
      decision: 'none',
    });
  });

  it('fail_closed blocks with the first non-empty stderr line', () => {
    const result = failure('exit', 'exited with code 2', {
      stderr: '\n  rm -rf is forbidden  \nmore\n',
      exitCode: 2,
    });
    expect(effectiveDecision('PreToolUse', { name: 'guard', failClosed: true }, result)).toEqual({
      decision: 'block',
      reason: 'rm -rf is forbidden',
    });
  });

  it('fail_closed without stderr names the failure kind', () => {
    expect(
      effectiveDecision(
        'Stop',
        { name: 'guard', failClosed: true },
        failure('timeout', 'timed out after 5000 ms'),
      ),
    ).toEqual({ decision: 'block', reason: 'hook "guard" failed closed: timed out after 5000 ms' });
  });

  it('fail_closed does nothing where block is not interceptable', () => {
    expect(
      effectiveDecision('SessionStart', { name: 'g', failClosed: true }, failure('timeout', 't')).decision,
    ).toBe('none');
  });
});

describe('aggregate', () => {
  it('no hooks: none, empty report', () => {
    expect(aggregate([])).toEqual({ decision: 'none', hooks: [] });
  });

  it('block wins over ask and allow; reason and systemMessage come from the blocking hook', () => {
    const verdict = aggregate(
      [
        run('a', ok({ decision: 'allow', reason: 'fine', systemMessage: 'ok!' })),
        run('b', ok({ decision: 'ask', reason: 'sure?' })),
        run('c', ok({ decision: 'block', reason: 'dangerous', systemMessage: 'Blocked by policy' })),
      ],
      [{ name: 'd', source: 'extension:x' }],
    );
    expect(verdict).toEqual({
      decision: 'block',
      reason: 'dangerous',
      systemMessage: 'Blocked by policy',
      hooks: [
        { name: 'a', source: 'config', decision: 'allow', outcome: 'ok', duration_ms: 1 },
        { name: 'b', source: 'config', decision: 'ask', outcome: 'ok', duration_ms: 1 },
        { name: 'c', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 },
        { name: 'd', source: 'extension:x', outcome: 'skipped' },
      ],
    });
  });

  it('ask wins over allow; the first ask decides', () => {
    const verdict = aggregate([
      run('a', ok({ decision: 'allow', reason: 'r-a' })),
      run('b', ok({ decision: 'ask', reason: 'r-b', systemMessage: 'm-b' })),
      run('c', ok({ decision: 'ask', reason: 'r-c' })),
    ]);
    expect(verdict).toMatchObject({ decision: 'ask', reason: 'r-b', systemMessage: 'm-b' });
  });

  it('allow: the first allow decides', () => {
    const verdict = aggregate([
      run('a', ok({ decision: 'none', reason: 'just saying' })),
      run('b', ok({ decision: 'allow', reason: 'first' })),
      run('c', ok({ decision: 'allow', reason: 'second' })),
    ]);
    expect(verdict).toMatchObject({ decision: 'allow', reason: 'first' });
  });

  it('none: no reason or systemMessage from pass-through hooks', () => {
    const verdict = aggregate([run('a', ok({ decision: 'none', reason: 'r', systemMessage: 'm' }))]);
    expect(verdict.decision).toBe('none');
    expect(verdict).not.toHaveProperty('reason');
    expect(verdict).not.toHaveProperty('systemMessage');
  });

  it('a non-interceptable decision does not decide (SessionStart block -> none)', () => {
    const verdict = aggregate([run('a', ok({ decision: 'block', reason: 'no' }), 'SessionStart')]);
    expect(verdict.decision).toBe('none');
    expect(verdict.hooks[0]).toMatchObject({ decision: 'block', outcome: 'ok' });
  });

  it('failures pass through and are reported with their kind and message', () => {
    const verdict = aggregate([
      run('a', failure('timeout', 'timed out after 5000 ms')),
      run('b', ok({ decision: 'allow' })),
    ]);
    expect(verdict.decision).toBe('allow');
    expect(verdict.hooks[0]).toEqual({
      name: 'a',
      source: 'config',
      outcome: 'timeout',
      message: 'timed out after 5000 ms',
      duration_ms: 1,
    });
  });

  it('a fail_closed failure blocks with its reason, reported as decision block', () => {
    const verdict = aggregate([
      run('g', failure('exit', 'exited with code 2', { stderr: 'nope' }), 'PreToolUse', true),
    ]);
    expect(verdict).toMatchObject({ decision: 'block', reason: 'nope' });
    expect(verdict).not.toHaveProperty('systemMessage');
    expect(verdict.hooks[0]).toMatchObject({ decision: 'block', outcome: 'exit' });
  });

  it('joins additional_context (both spellings) of every hook that ran, in chain order', () => {
    const verdict = aggregate([
      run('a', ok({ decision: 'none', hookSpecificOutput: { additional_context: 'one' } })),
      run('b', failure('exit', 'x')),
      run('c', ok({ decision: 'allow', hookSpecificOutput: { additionalContext: 'two' } })),
      run('d', ok({ decision: 'none', hookSpecificOutput: { additional_context: 42 } })),
    ]);
    expect(verdict.additionalContext).toBe('one\ntwo');
    expect(verdict).not.toHaveProperty('hookSpecificOutput');
  });

  it('deep-merges hookSpecificOutput in chain order, minus the context keys', () => {
    const verdict = aggregate([
      run(
        'a',
        ok({ decision: 'allow', hookSpecificOutput: { tool_input: { command: 'ls', flags: ['-a'] }, x: 1 } }),
      ),
      run(
        'b',
        ok({
          decision: 'allow',
          hookSpecificOutput: { tool_input: { flags: ['-l'], cwd: '/' }, additional_context: 'c' },
        }),
      ),
      run('c', ok({ decision: 'none', hookSpecificOutput: { x: { nested: true } } })),
    ]);
    expect(verdict.hookSpecificOutput).toEqual({
      tool_input: { command: 'ls', flags: ['-l'], cwd: '/' },
      x: { nested: true },
    });
  });
});

describe('deepMerge', () => {
  it('objects merge, anything else replaces, later wins, inputs untouched', () => {
    const base = { a: { b: 1, c: [1, 2] }, d: 'x' };
    const patch = { a: { c: [3], e: null }, d: { now: 'object' } };
    expect(deepMerge(base, patch)).toEqual({ a: { b: 1, c: [3], e: null }, d: { now: 'object' } });
    expect(base).toEqual({ a: { b: 1, c: [1, 2] }, d: 'x' });
  });

  it('copies __proto__ keys as data, never as a prototype', () => {
    const merged = deepMerge({}, JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(['__proto__']);
  });
});
