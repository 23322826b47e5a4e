import { describe, expect, it } from 'vitest';
import { sameData } from '../../../src/host/same-data.js';

describe('sameData: a framework value against the JSON the hooks judged', () => {
  it.each([
    [{ command: 'ls' }, { command: 'ls' }, true],
    [{ a: [1, { b: null }] }, { a: [1, { b: null }] }, true],
    ['x', 'x', true],
    [{ command: 'rm -rf /' }, { command: 'ls' }, false],
    [{ command: 'ls', extra: 1 }, { command: 'ls' }, false],
    [{ command: 'ls' }, { command: 'ls', extra: 1 }, false],
    [[1, 2], [1, 2, 3], false],
    [{ 0: 1 }, [1], false],
    [[1], { 0: 1 }, false],
    // What JSON changes is not the same data: decided again, never taken for the judged call.
    [{ at: new Date(0) }, { at: '1970-01-01T00:00:00.000Z' }, false],
    [{ n: Number.NaN }, { n: null }, false],
    [{ gone: undefined }, {}, false],
  ])('%j against %j: %s', (value, judged, same) => expect(sameData(value, judged)).toBe(same));

  it('is the same object only as data: the one object is still walked, never trusted by identity', () => {
    const judged = { command: 'ls' };
    expect(sameData(judged, judged)).toBe(true);
  });

  it('stops at the depth bound: a value nested deeper than the judged copy could be is not the same', () => {
    let deep: unknown = 'end';
    for (let i = 0; i < 600; i++) deep = { d: deep };
    expect(sameData(deep, deep)).toBe(false);
  });
});
