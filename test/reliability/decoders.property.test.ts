import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, decodeEvent, readInput, EVENT_NAMES, JsonLine } from '../../src/events/index.js';
import { decodeHookOutputValue, decodeHookStdout, FAILURE_KINDS } from '../../src/protocol/index.js';

const defaults = { now: () => new Date(0), cwd: () => '/' };
const DECISIONS = ['allow', 'block', 'ask', 'none'];

/** Output-like objects: mostly the right keys with random values, so every branch is reached. */
const outputLike = fc.record(
  {
    decision: fc.oneof(
      fc.constantFrom('allow', 'APPROVE', 'deny', 'Reject', 'ask', 'none', '', 'maybe', 'block '),
      fc.constant(null),
      fc.jsonValue(),
    ),
    reason: fc.oneof(fc.string(), fc.jsonValue()),
    systemMessage: fc.oneof(fc.string(), fc.jsonValue()),
    hookSpecificOutput: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('hook output decoder under random input', () => {
  it('never throws on any string and always yields a decision or an error (10,000 cases)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          outputLike.map((o) => JSON.stringify(o)),
        ),
        (stdout) => {
          const result = decodeHookStdout(stdout);
          if (result.ok) expect(DECISIONS).toContain(result.value.decision);
          else expect(typeof result.error).toBe('string');
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('never throws on any value (in-process hooks), 10,000 cases', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), outputLike), (value) => {
        const result = decodeHookOutputValue(value);
        expect(result.ok ? DECISIONS.includes(result.value.decision) : result.error.length > 0).toBe(true);
      }),
      { numRuns: 10_000 },
    );
  });

  it('accepts exactly the documented spellings, in any case', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('allow', 'approve', 'block', 'deny', 'reject', 'ask', 'none'),
        fc.boolean(),
        (word, upper) => {
          const spelled = upper ? word.toUpperCase() : word;
          expect(decodeHookStdout(JSON.stringify({ decision: spelled })).ok).toBe(true);
        },
      ),
    );
  });

  it('failure kinds are a closed set', () => {
    expect([...FAILURE_KINDS]).toEqual([
      'timeout',
      'queue_timeout',
      'exit',
      'signal',
      'spawn',
      'invalid_output',
      'output_too_large',
      'exception',
    ]);
  });
});

const eventLike = fc.record(
  {
    hook_event_name: fc.oneof(fc.constantFrom(...EVENT_NAMES), fc.string(), fc.jsonValue()),
    session_id: fc.oneof(fc.string(), fc.jsonValue()),
    cwd: fc.oneof(fc.string(), fc.jsonValue()),
    tool_name: fc.oneof(fc.string(), fc.jsonValue()),
    tool_input: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
    tool_response: fc.jsonValue(),
    prompt: fc.oneof(fc.string(), fc.jsonValue()),
    error: fc.jsonValue(),
    llm_request: fc.jsonValue(),
    llm_response: fc.jsonValue(),
    stop_hook_active: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('event validation under random input', () => {
  it('never throws; a rejection always names a field (10,000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), eventLike), (value) => {
        const result = decodeEvent(value, defaults);
        if (result.ok) expect(EVENT_NAMES).toContain(result.value.hook_event_name);
        else expect(result.error).toMatch(/^[a-z_.]+: /);
      }),
      { numRuns: 10_000 },
    );
  });

  it('random text lines become events or hook errors with their line, never a throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          eventLike.map((e) => JSON.stringify(e)),
        ),
        fc.nat(),
        (text, line) => {
          const admission = admit(readInput(new JsonLine(line + 1, text)), defaults);
          if (!admission.ok) expect(admission.line).toBe(line + 1);
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('a 10 MB line and 10,000-deep nesting are handled', () => {
    const big = JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_name: 'write',
      tool_input: { content: 'x'.repeat(10 * 1024 * 1024) },
    });
    expect(admit(readInput(new JsonLine(1, big)), defaults).ok).toBe(true);
    const deep = `{"hook_event_name":"AfterModel","session_id":"s","llm_response":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expect(admit(readInput(new JsonLine(2, deep)), defaults)).toMatchObject({ ok: false, line: 2 });
    const deepObject = `{"hook_event_name":"AfterModel","session_id":"s","llm_response":{"a":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`;
    expect(admit(readInput(new JsonLine(3, deepObject)), defaults)).toStrictEqual({
      ok: false,
      error: 'llm_response: nested deeper than 512 levels',
      line: 3,
    });
    const fine = `{"hook_event_name":"AfterModel","session_id":"s","llm_response":{"a":${'{"a":'.repeat(500)}1${'}'.repeat(500)}}}`;
    const admitted = admit(readInput(new JsonLine(4, fine)), defaults);
    expect(admitted.ok).toBe(true);
    // Accepted at 500 levels, the event must serialize back to the same value: hooks get it on stdin.
    if (admitted.ok) expect(JSON.parse(JSON.stringify(admitted.value))).toStrictEqual(admitted.value);
  });
});
