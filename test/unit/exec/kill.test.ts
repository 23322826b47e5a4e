import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killWithGrace } from '../../../src/exec/groups/kill.js';

/** The signals sent, in order, to groups that answer SIGTERM as `alive` says (false: the group is gone). */
const recorder = (alive: ReadonlySet<number>) => {
  const sent: string[] = [];
  const signal = (pgid: number, name: NodeJS.Signals): boolean => {
    sent.push(`${name} ${pgid}`);
    return alive.has(pgid);
  };
  return { sent, signal };
};

describe('killWithGrace', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('SIGTERM now, SIGKILL after the grace, then done: nothing earlier', () => {
    const { sent, signal } = recorder(new Set([41]));
    const done = vi.fn();
    killWithGrace([41], 500, done, signal);
    expect(sent).toStrictEqual(['SIGTERM 41']);
    vi.advanceTimersByTime(499);
    expect(sent).toStrictEqual(['SIGTERM 41']);
    expect(done).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(sent).toStrictEqual(['SIGTERM 41', 'SIGKILL 41']);
    expect(done).toHaveBeenCalledOnce();
  });

  it('a group already gone gets no SIGKILL, and done runs before it returns', () => {
    const { sent, signal } = recorder(new Set());
    const order: string[] = [];
    killWithGrace([7], 500, () => order.push('done'), signal);
    order.push('returned');
    vi.runAllTimers();
    expect(sent).toStrictEqual(['SIGTERM 7']);
    expect(order).toStrictEqual(['done', 'returned']);
  });

  it('several groups: SIGKILL only to those SIGTERM reached, one timer, done once', () => {
    const { sent, signal } = recorder(new Set([1, 3]));
    const done = vi.fn();
    killWithGrace(new Set([1, 2, 3]), 100, done, signal);
    expect(sent).toStrictEqual(['SIGTERM 1', 'SIGTERM 2', 'SIGTERM 3']);
    vi.runAllTimers();
    expect(sent).toStrictEqual(['SIGTERM 1', 'SIGTERM 2', 'SIGTERM 3', 'SIGKILL 1', 'SIGKILL 3']);
    expect(done).toHaveBeenCalledOnce();
  });

  it('no groups at all: done at once, no signal, no timer', () => {
    const { sent, signal } = recorder(new Set());
    const done = vi.fn();
    killWithGrace([], 500, done, signal);
    expect(done).toHaveBeenCalledOnce();
    expect(sent).toStrictEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
