/**
 * Which of two hooks' decisions the chain's verdict takes (spec §4.6): block > ask > allow > none,
 * whatever their order; the reason is the deciding hook's. The stricter answer always wins: an
 * `allow` never overrides an `ask` (issue 37, the mutant "the laxer of two approvals winning").
 */
import { describe, expect, it } from 'vitest';
import { aggregate, effectiveDecision, success, type HookRun } from '../../../src/protocol/index.js';

type Answer = 'block' | 'ask' | 'allow' | 'none';
const STRICTNESS: readonly Answer[] = ['block', 'ask', 'allow', 'none'];

const run = (name: string, decision: Answer): HookRun => {
  const result = success({ decision, reason: `${name} says ${decision}` });
  return {
    hook: { name, source: 'config' },
    result,
    effective: effectiveDecision('PreToolUse', { name, failClosed: false }, result),
    durationMs: 1,
  };
};

const pairs = STRICTNESS.flatMap((first) => STRICTNESS.map((second) => [first, second] as const));

describe('aggregate: the stricter of two decisions wins, in either order', () => {
  it.each(pairs)('%s then %s', (first, second) => {
    const winner = STRICTNESS[Math.min(STRICTNESS.indexOf(first), STRICTNESS.indexOf(second))]!;
    const verdict = aggregate([run('a', first), run('b', second)]);
    expect(verdict.decision).toBe(winner);
    const decider = first === winner ? 'a' : 'b';
    expect(verdict.reason).toBe(winner === 'none' ? undefined : `${decider} says ${winner}`);
  });

  it('ask and allow, in either order: ask', () => {
    expect(aggregate([run('a', 'ask'), run('b', 'allow')]).decision).toBe('ask');
    expect(aggregate([run('a', 'allow'), run('b', 'ask')]).decision).toBe('ask');
  });
});
