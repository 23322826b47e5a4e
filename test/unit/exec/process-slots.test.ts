import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProcessSlots } from '../../../src/exec/process/process-slots.js';

describe('ProcessSlots', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('starts at once below the bound, then in arrival order as slots come back', () => {
    const slots = new ProcessSlots(2);
    const started: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) slots.take(() => started.push(name));
    expect(started).toStrictEqual(['a', 'b']);
    expect(slots.active).toBe(2);
    slots.give();
    expect(started).toStrictEqual(['a', 'b', 'c']);
    slots.give();
    slots.give();
    expect(started).toStrictEqual(['a', 'b', 'c', 'd']);
    expect(slots.active).toBe(1);
  });

  it('a cancelled wait never starts and keeps nobody else waiting', () => {
    const slots = new ProcessSlots(1);
    const started: string[] = [];
    slots.take(() => started.push('a'));
    const cancel = slots.take(() => started.push('b'));
    slots.take(() => started.push('c'));
    cancel();
    slots.give();
    expect(started).toStrictEqual(['a', 'c']);
  });

  it('after a refusal, nothing starts until a process ends; the refused start goes first', () => {
    const slots = new ProcessSlots(4);
    const started: string[] = [];
    slots.take(() => started.push('a'));
    let refusedOnce = false;
    slots.take(() => {
      started.push('b');
      if (!refusedOnce) {
        refusedOnce = true;
        slots.refused(() => started.push('b again'));
      }
    });
    slots.take(() => started.push('c'));
    expect(started).toStrictEqual(['a', 'b']);
    slots.give(); // a ended
    expect(started).toStrictEqual(['a', 'b', 'b again', 'c']);
  });

  it('with nothing of ours running, a refused start is tried again after a back-off', () => {
    const slots = new ProcessSlots(4);
    let attempts = 0;
    const start = () => {
      attempts += 1;
      if (attempts < 3) slots.refused(start);
    };
    slots.take(start);
    expect(attempts).toBe(1);
    vi.advanceTimersByTime(10);
    expect(attempts).toBe(2);
    vi.advanceTimersByTime(19);
    expect(attempts).toBe(2);
    vi.advanceTimersByTime(1);
    expect(attempts).toBe(3);
    expect(slots.active).toBe(1);
  });

  it('starts from a loop: a queue of 100,000 starts that give back at once does not grow the stack', () => {
    const slots = new ProcessSlots(1);
    let done = 0;
    slots.take(() => undefined);
    for (let i = 0; i < 100_000; i += 1)
      slots.take(() => {
        done += 1;
        slots.give();
      });
    slots.give();
    expect(done).toBe(100_000);
    expect(slots.active).toBe(0);
  });
});
