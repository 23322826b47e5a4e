import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  backoffFailure,
  classifyAnswer,
  classifyDeath,
  DEFAULT_BACKOFF,
  isCrash,
  tooLargeAnswer,
} from '../../../src/exec/persistent-answer.js';
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

describe('classifyAnswer', () => {
  it('decodes a JSON object line as SPEC 4.3', () => {
    expect(classifyAnswer('{"decision":"deny","reason":"no"}', '')).toEqual({
      outcome: 'ok',
      output: { decision: 'block', reason: 'no' },
    });
  });

  it('takes an empty or blank line as pass-through', () => {
    expect(classifyAnswer('', '')).toEqual({ outcome: 'ok', output: { decision: 'none' } });
    expect(classifyAnswer(' \r', '')).toEqual({ outcome: 'ok', output: { decision: 'none' } });
  });

  it('gives invalid_output for anything else, keeping the stderr since the request', () => {
    expect(classifyAnswer('[1]', 'why\n')).toMatchObject({ outcome: 'invalid_output', stderr: 'why\n' });
    expect(classifyAnswer('{"decision":"maybe"}', '')).toMatchObject({ outcome: 'invalid_output' });
    expect(classifyAnswer('{"decision":"maybe"}', '')).not.toHaveProperty('stderr');
  });
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
