import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/events/decode.js';
import { encodeLine, type HookNotification } from '../../src/output/lines.js';
import { aggregate, type HookRun } from '../../src/protocol/aggregate.js';
import { success } from '../../src/protocol/result.js';
import { defineHooks, HookDefinitionError } from '../../src/registry/index.js';
import { cli, hookTable, jsonl, sandbox } from '../cli/helpers.js';

/**
 * Values that used to pass where they must not: timeouts the timer cannot honour, calendar dates
 * that do not exist, a non-string `additional_context` hiding a valid `additionalContext`, and raw
 * U+2028/U+2029 in output lines.
 */

describe('defineHooks timeouts are checked like the config file (integer 1..600000)', () => {
  const define = (timeout: number) =>
    defineHooks({ PreToolUse: [{ name: 'guard', timeout, run: () => undefined }] });

  it.each([[2 ** 31], [-1], [0], [NaN], [Infinity], [-Infinity], [1.5], [600_001]])(
    'rejects %s',
    (timeout) => {
      expect(() => define(timeout)).toThrow(HookDefinitionError);
      expect(() => define(timeout)).toThrow(
        `PreToolUse[0] (hook "guard"): timeout: expected an integer 1..600000 (milliseconds), got ${String(timeout)}`,
      );
    },
  );

  it('any number: accepted exactly when the config loader would accept it (2,000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: -10, max: 700_000 })), (timeout) => {
        const valid = Number.isInteger(timeout) && timeout >= 1 && timeout <= 600_000;
        if (valid) expect(define(timeout).PreToolUse[0]!.timeoutMs).toBe(timeout);
        else expect(() => define(timeout)).toThrow(HookDefinitionError);
      }),
      { numRuns: 2000 },
    );
  });

  it('a string from untyped JavaScript is shown quoted', () => {
    expect(() => define('5000' as unknown as number)).toThrow(
      'PreToolUse[0] (hook "guard"): timeout: expected an integer 1..600000 (milliseconds), got "5000"',
    );
  });

  it('names the event and position of a command hook too', () => {
    expect(() =>
      defineHooks({
        Stop: [
          { name: 'a', command: 'true' },
          { name: 'b', command: 'true', timeout: 0 },
        ],
      }),
    ).toThrow('Stop[1] (hook "b"): timeout: expected an integer 1..600000 (milliseconds), got 0');
  });
});

describe('timestamps must be real calendar dates', () => {
  const defaults = { now: () => new Date(0), cwd: () => '/' };
  const withTimestamp = (timestamp: string) =>
    decodeEvent({ hook_event_name: 'Stop', session_id: 's', timestamp }, defaults);

  it.each([
    ['2026-02-31T10:00:00Z'],
    ['2026-02-30T10:00:00Z'],
    ['2026-04-31T10:00:00Z'],
    ['2026-06-31T10:00:00+02:00'],
    ['2026-09-31 10:00:00Z'],
    ['2026-11-31T10:00:00Z'],
    ['2026-02-29T10:00:00Z'],
    ['1900-02-29T10:00:00Z'],
    ['2100-02-29T10:00:00Z'],
  ])('rejects %s', (timestamp) => {
    expect(withTimestamp(timestamp)).toEqual({
      ok: false,
      error: `timestamp: expected an RFC 3339 timestamp, got ${JSON.stringify(timestamp)}`,
    });
  });

  it.each([
    ['2024-02-29T10:00:00Z'],
    ['2000-02-29T00:00:00Z'],
    ['2026-01-31T23:59:60Z'],
    ['2026-04-30T10:00:00Z'],
  ])('accepts %s', (timestamp) => {
    expect(withTimestamp(timestamp)).toMatchObject({ ok: true, value: { timestamp } });
  });

  it('every year, month and day: accepted exactly when the date exists (5,000 cases)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const pad = (n: number, width: number) => String(n).padStart(width, '0');
          const timestamp = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T12:00:00Z`;
          // The oracle: the Date the day would roll over into (setUTCFullYear keeps years < 100).
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          const exists = date.getUTCDate() === day;
          expect(withTimestamp(timestamp).ok).toBe(exists);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('additional_context and additionalContext (spec §4.3)', () => {
  const run = (hookSpecificOutput: Record<string, unknown>): HookRun => ({
    hook: { name: 'h', source: 'config' },
    result: success({ decision: 'none', hookSpecificOutput }),
    effective: { decision: 'none' },
    durationMs: 1,
  });

  it.each([
    [{ additional_context: 5, additionalContext: 'camel' }, 'camel'],
    [{ additional_context: null, additionalContext: 'camel' }, 'camel'],
    [{ additional_context: { text: 'x' }, additionalContext: 'camel' }, 'camel'],
    [{ additional_context: 'snake', additionalContext: 'camel' }, 'snake'],
    [{ additional_context: '', additionalContext: 'camel' }, ''], // a string wins, even empty
    [{ additional_context: 5, additionalContext: 6 }, undefined],
  ])('%j -> %j', (specific, expected) => {
    expect(aggregate([run(specific)]).additionalContext).toBe(expected);
  });
});

describe('U+2028 and U+2029 are escaped in output lines (spec §6)', () => {
  it('encodeLine writes them as \\u2028 and \\u2029, and the line still parses to the same text', () => {
    const message = 'line\u2028separator\u2029paragraph';
    const notification: HookNotification = {
      type: 'stream_event',
      event: {
        subtype: 'hook_notification',
        hook_name: 'h',
        message,
        decision: 'none',
        hook_event_name: 'Stop',
        session_id: 's',
      },
    };
    const text = encodeLine(notification);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain('line\\u2028separator\\u2029paragraph');
    expect((JSON.parse(text) as HookNotification).event.message).toBe(message);
  });

  const box = sandbox(
    hookTable('Stop', {
      name: 'separators',
      command: `printf '%s' '{"decision":"allow","systemMessage":"a\\u2028b","hookSpecificOutput":{"additional_context":"c\\u2029d"}}'`,
    }),
  );
  afterAll(() => box.remove());

  it('cosh-hooks run writes no raw U+2028 or U+2029, whatever the hook printed', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl({ hook_event_name: 'Stop', session_id: 's' }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u2028\u2029]/);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"message":"a\\u2028b"');
    expect(lines[1]).toContain('"systemMessage":"a\\u2028b"');
    expect(lines[1]).toContain('"additional_context":"c\\u2029d"');
  });
});
