import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  backoffFailure,
  classifyDeath,
  DEFAULT_BACKOFF,
  isCrash,
  newRequestId,
  readAnswerLine,
  requestLine,
  tooLargeAnswer,
} from '../../../src/exec/persistent/persistent-answer.js';
import { readForeignAnswer, type AnswerContext } from '../../../src/dialects/answer.js';
import type { ForeignDialect } from '../../../src/registry/dialect.js';
import { defineHooks } from '../../../src/registry/define.js';

describe('backoffDelay', () => {
  it.each([
    [0, 0],
    [1, 100],
    [2, 200],
    [3, 400],
    [7, 6400],
    [8, 10_000],
    [60, 10_000],
    [10_000, 10_000],
  ])('after %i failures in a row waits %i ms (default: 100 ms doubling to 10 s)', (failures, delay) => {
    expect(backoffDelay(failures)).toBe(delay);
  });

  it('follows a custom schedule', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { initialMs: 50, maxMs: 150 }))).toEqual([
      50, 100, 150, 150,
    ]);
    expect(DEFAULT_BACKOFF).toEqual({ initialMs: 100, maxMs: 10_000 });
  });
});

describe('backoffFailure', () => {
  it('says how many failures, when the next start is, and what the last one was', () => {
    expect(backoffFailure(3, 799.2, 'exited with code 1: boom')).toEqual({
      outcome: 'spawn',
      message: 'restarting after 3 failures: next start in 800 ms (last: exited with code 1: boom)',
    });
    expect(backoffFailure(1, 0.2, undefined).message).toBe('restarting after 1 failure: next start in 1 ms');
  });
});

describe('requestLine', () => {
  it('is the event as one JSON line with cosh_request_id added', () => {
    const line = requestLine({ hook_event_name: 'PreToolUse', tool_input: { command: 'a\nb' } }, 'r1');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      hook_event_name: 'PreToolUse',
      tool_input: { command: 'a\nb' },
      cosh_request_id: 'r1',
    });
  });

  it('replaces an id the event already carries: only the engine names requests', () => {
    const line = requestLine({ cosh_request_id: 'chosen-by-the-host', x: 1 }, 'r2');
    expect(JSON.parse(line)).toEqual({ cosh_request_id: 'r2', x: 1 });
    expect(line).not.toContain('chosen-by-the-host');
  });

  it('keeps a __proto__ key of the event as data', () => {
    const event = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as object;
    expect(JSON.parse(requestLine(event, 'r3'))).toEqual(
      JSON.parse('{"__proto__":{"polluted":true},"a":1,"cosh_request_id":"r3"}'),
    );
  });

  it('ids are unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, newRequestId));
    expect(ids.size).toBe(1000);
  });
});

describe('readAnswerLine', () => {
  const stray = (why: string, stderr?: string) => ({
    kind: 'stray',
    result: {
      outcome: 'invalid_output',
      message: `invalid output: ${why}; a line without this request's cosh_request_id answers nothing`,
      ...(stderr !== undefined && { stderr }),
    },
  });

  it('answers with the fields of a JSON object holding this request id', () => {
    expect(readAnswerLine('{"decision":"deny","reason":"no","cosh_request_id":"r1"}', 'r1', '')).toEqual({
      kind: 'answer',
      result: { outcome: 'ok', output: { decision: 'block', reason: 'no' } },
    });
    expect(readAnswerLine(' {"cosh_request_id":"r1"}\r', 'r1', '')).toEqual({
      kind: 'answer',
      result: { outcome: 'ok', output: { decision: 'none' } },
    });
  });

  it("an answer with the id but bad fields is the request's invalid_output, and keeps the process in step", () => {
    expect(readAnswerLine('{"decision":"maybe","cosh_request_id":"r1"}', 'r1', 'why\n')).toMatchObject({
      kind: 'answer',
      result: { outcome: 'invalid_output', stderr: 'why\n' },
    });
  });

  it.each([
    ['an empty line (pass-through needs the id too)', '', 'an empty line'],
    ['a start-up banner', 'guard v1.2 ready', 'stdout is not JSON: "guard v1.2 ready"'],
    ['an answer without an id', '{"decision":"allow"}', 'no cosh_request_id'],
    [
      'an answer with a wrong id',
      '{"decision":"allow","cosh_request_id":"r0"}',
      "cosh_request_id is not this request's",
    ],
    [
      'an id of another type',
      '{"decision":"allow","cosh_request_id":1}',
      "cosh_request_id is not this request's",
    ],
    ['an id nested, not top level', '{"hookSpecificOutput":{"cosh_request_id":"r1"}}', 'no cosh_request_id'],
    ['a JSON array', '[{"cosh_request_id":"r1"}]', 'the line is not a JSON object'],
    [
      'a double-encoded answer from a cosh hook',
      JSON.stringify('{"decision":"allow","cosh_request_id":"r1"}'),
      'the line is not a JSON object',
    ],
  ])('%s answers nothing: stray, invalid_output', (_what, line, why) => {
    expect(readAnswerLine(line, 'r1', '')).toEqual(stray(why));
  });

  it('keeps the stderr since the request on a stray line (fail_closed reason)', () => {
    expect(readAnswerLine('hello', 'r1', 'denied\n')).toEqual(
      stray('stdout is not JSON: "hello"', 'denied\n'),
    );
  });
});

describe('readAnswerLine + the dialect reader: a persistent dialect hook answers with its JSON fields', () => {
  const context = (dialect: ForeignDialect, event: AnswerContext['event'] = 'PreToolUse'): AnswerContext => ({
    dialect,
    event,
    hookName: 'guard',
    back: (input) => input,
  });
  const read = (line: string, dialect: ForeignDialect, event?: AnswerContext['event']) => {
    const answer = readAnswerLine(line, 'r1', '', dialect);
    return { kind: answer.kind, result: readForeignAnswer(answer.result, context(dialect, event)) };
  };

  it('Claude continue:false is a block with its stopReason', () => {
    expect(read('{"continue":false,"stopReason":"stop now","cosh_request_id":"r1"}', 'claude')).toEqual({
      kind: 'answer',
      result: {
        outcome: 'ok',
        output: {
          decision: 'block',
          reason: 'stop now',
          hookSpecificOutput: { continue: false, stop_reason: 'stop now' },
        },
      },
    });
  });

  it('Claude permissionDecision deny is a block with its reason', () => {
    const line = JSON.stringify({
      hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'rm -rf' },
      cosh_request_id: 'r1',
    });
    expect(read(line, 'claude').result).toEqual({
      outcome: 'ok',
      output: { decision: 'block', reason: 'rm -rf' },
    });
  });

  it("Gemini's double-encoded deny is a block (the id inside the encoded object)", () => {
    const line = JSON.stringify(JSON.stringify({ decision: 'deny', reason: 'no', cosh_request_id: 'r1' }));
    expect(read(line, 'gemini')).toEqual({
      kind: 'answer',
      result: { outcome: 'ok', output: { decision: 'block', reason: 'no' } },
    });
  });

  it("Gemini's double-encoded answer with a wrong id answers nothing", () => {
    const line = JSON.stringify(JSON.stringify({ decision: 'deny', cosh_request_id: 'r0' }));
    expect(read(line, 'gemini').kind).toBe('stray');
    expect(read(line, 'gemini').result.outcome).toBe('invalid_output');
  });

  it.each(['claude', 'gemini'] as const)(
    '%s plain text has no line form: invalid_output, never context or pass-through',
    (dialect) => {
      const answer = read('some context for the model', dialect, 'UserPromptSubmit');
      expect(answer.kind).toBe('stray');
      expect(answer.result.outcome).toBe('invalid_output');
    },
  );
});

describe('classifyDeath', () => {
  it('never takes a clean exit without an answer as pass-through', () => {
    expect(classifyDeath({ kind: 'exited', exitCode: 0 }, '')).toEqual({
      outcome: 'exit',
      message: 'exited with code 0 before answering',
      exitCode: 0,
    });
  });

  it('classifies other deaths like a process per event', () => {
    expect(classifyDeath({ kind: 'exited', exitCode: 2 }, 'denied\n')).toEqual({
      outcome: 'exit',
      message: 'exited with code 2: denied',
      stderr: 'denied\n',
      exitCode: 2,
    });
    expect(classifyDeath({ kind: 'signaled', signal: 'SIGSEGV' }, '')).toMatchObject({
      outcome: 'signal',
      message: 'killed by signal SIGSEGV',
    });
    expect(
      classifyDeath(
        { kind: 'not_started', file: '/nope', code: 'ENOENT', message: 'spawn /nope ENOENT' },
        '',
      ),
    ).toMatchObject({ outcome: 'spawn', message: 'could not start: /nope: not found' });
  });

  it('counts as a crash whatever ended it but a clean exit', () => {
    expect(isCrash({ kind: 'exited', exitCode: 0 })).toBe(false);
    expect(isCrash({ kind: 'exited', exitCode: 1 })).toBe(true);
    expect(isCrash({ kind: 'signaled', signal: 'SIGKILL' })).toBe(true);
  });
});

describe('tooLargeAnswer', () => {
  it('names the limit', () => {
    expect(tooLargeAnswer(1024 * 1024, '')).toEqual({
      outcome: 'output_too_large',
      message: 'answer line exceeded 1 MiB',
    });
  });
});

describe('defineHooks: persistent', () => {
  it('sets persistent on command hooks, false by default', () => {
    const registry = defineHooks({
      Stop: [
        { name: 'kept', command: 'python3 k.py', persistent: true },
        { name: 'once', command: 'python3 o.py' },
      ],
    });
    expect(registry.Stop.map((hook) => hook.kind === 'command' && hook.persistent)).toEqual([true, false]);
  });
});
