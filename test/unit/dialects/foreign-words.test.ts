import { describe, expect, it } from 'vitest';
import { FOREIGN_EXIT, readCoshAnswer } from '../../../src/dialects/foreign-words.js';
import { effectiveDecision } from '../../../src/protocol/effective.js';
import { decodeHookOutputValue, decodeHookStdout } from '../../../src/protocol/decode-output.js';
import { withPrinted, withReturned } from '../../../src/protocol/printed.js';
import { failure, success, type HookResult } from '../../../src/protocol/result.js';
import type { EventName } from '../../../src/events/names.js';

/** A cosh command hook that exited 0 and printed `stdout`, classified as cosh classifies it. */
const printed = (stdout: string): HookResult => {
  const decoded = decodeHookStdout(stdout);
  return withPrinted(
    decoded.ok
      ? success(decoded.value)
      : failure('invalid_output', `invalid output: ${decoded.error}`, { exitCode: 0 }),
    stdout,
  );
};

/** An in-process cosh hook that returned `value`. */
const returned = (value: Record<string, unknown>): HookResult => {
  const decoded = decodeHookOutputValue(value);
  if (!decoded.ok) throw new Error(decoded.error);
  return withReturned(success(decoded.value), value);
};

const exited = (code: number, stderr: string): HookResult =>
  failure('exit', `exited with code ${code}`, { exitCode: code, ...(stderr !== '' && { stderr }) });

const guard = { name: 'guard', failClosed: false };
/** What the read answer counts as on `event`. */
const counts = (result: HookResult, event: EventName = 'PreToolUse') =>
  effectiveDecision(event, guard, readCoshAnswer(result, 'guard'));

describe("readCoshAnswer: an unambiguous deny in another agent's words blocks", () => {
  it.each([
    [
      'Claude permissionDecision deny',
      {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'rm -rf is not allowed',
        },
      },
      'rm -rf is not allowed',
      'hookSpecificOutput.permissionDecision "deny"',
    ],
    [
      'permissionDecision deny beats a cosh allow beside it',
      { decision: 'allow', hookSpecificOutput: { permissionDecision: 'DENY' } },
      undefined,
      'hookSpecificOutput.permissionDecision "DENY"',
    ],
    [
      'Cursor permission deny',
      { permission: 'deny', user_message: 'not for you', agent_message: 'reads ~/.ssh' },
      'reads ~/.ssh',
      'permission "deny" (Cursor',
    ],
    [
      'Cursor permission deny, camelCase messages',
      { permission: 'deny', userMessage: 'blocked' },
      'blocked',
      'permission "deny"',
    ],
    [
      'decision "block" inside hookSpecificOutput',
      { hookSpecificOutput: { decision: 'block', reason: 'no' } },
      'no',
      'hookSpecificOutput.decision "block"',
    ],
    [
      'Claude PermissionRequest behavior deny',
      {
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: { behavior: 'deny', message: 'never' },
        },
      },
      'never',
      'hookSpecificOutput.decision.behavior "deny"',
    ],
    [
      'continue: false (Claude, Gemini) blocks with stopReason',
      { continue: false, stopReason: 'session closed' },
      'session closed',
      'continue: false',
    ],
  ])('%s', (_what, answer, reason, form) => {
    const read = readCoshAnswer(printed(JSON.stringify(answer)), 'guard');
    expect(read.outcome).toBe('ok');
    expect(read.outcome === 'ok' && read.output.decision).toBe('block');
    if (reason !== undefined) expect(read.outcome === 'ok' && read.output.reason).toBe(reason);
    expect(read.foreign).toContain(form);
    expect(counts(printed(JSON.stringify(answer))).decision).toBe('block');
  });

  it('the same words returned by an in-process cosh hook', () => {
    const read = readCoshAnswer(returned({ continue: false, stopReason: 'stop' }), 'guard');
    expect(read).toMatchObject({
      outcome: 'ok',
      output: {
        decision: 'block',
        reason: 'stop',
        hookSpecificOutput: { continue: false, stop_reason: 'stop' },
      },
      foreign: expect.stringContaining('continue: false') as unknown,
    });
    expect(readCoshAnswer(returned({ permission: 'deny' }), 'guard')).toMatchObject({
      output: { decision: 'block' },
    });
  });

  it('continue: false without a reason names the hook', () => {
    expect(readCoshAnswer(printed('{"continue": false}'), 'guard')).toMatchObject({
      output: { decision: 'block', reason: 'hook "guard" stopped the agent' },
    });
  });

  it('a double-encoded Gemini deny (a JSON string holding JSON) blocks instead of failing open', () => {
    const answer = printed(JSON.stringify(JSON.stringify({ decision: 'deny', reason: 'secret' })));
    expect(answer.outcome).toBe('invalid_output');
    expect(readCoshAnswer(answer, 'guard')).toMatchObject({
      outcome: 'ok',
      output: { decision: 'block', reason: 'secret' },
      foreign: expect.stringContaining('a JSON string holding a JSON object') as unknown,
    });
  });

  it('a double-encoded answer that does not deny stays invalid_output, named', () => {
    const answer = printed(JSON.stringify(JSON.stringify({ decision: 'allow' })));
    expect(readCoshAnswer(answer, 'guard')).toMatchObject({
      outcome: 'invalid_output',
      foreign: expect.stringContaining('Gemini') as unknown,
    });
  });
});

describe('readCoshAnswer: exit status 2 with a reason on stderr', () => {
  it('stays an exit failure, named, and blocks as if fail_closed with the first stderr line', () => {
    const answer = exited(2, '\n  Blocked: rm -rf  \nmore\n');
    const read = readCoshAnswer(answer, 'guard');
    expect(read).toMatchObject({ outcome: 'exit', exitCode: 2, foreign: FOREIGN_EXIT });
    expect(effectiveDecision('PreToolUse', guard, read)).toStrictEqual({
      decision: 'block',
      reason: 'Blocked: rm -rf',
    });
  });

  it('blocks only where the event intercepts a block', () => {
    const read = readCoshAnswer(exited(2, 'no'), 'guard');
    expect(read.foreign).toBe(FOREIGN_EXIT);
    expect(effectiveDecision('PostToolUseFailure', guard, read).decision).toBe('none');
  });

  it.each([
    ['exit 2 without a word', exited(2, '')],
    ['exit 2 with blank stderr', exited(2, '  \n \n')],
    ['exit 1 with a reason', exited(1, 'Blocked')],
    ['a timeout', failure('timeout', 'timed out after 5 ms')],
  ])('%s is left as it is', (_what, result) => {
    expect(readCoshAnswer(result, 'guard')).toBe(result);
  });
});

describe('readCoshAnswer: ask, and words that would open', () => {
  it.each([
    [{ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'sure?' } }, 'sure?'],
    [{ permission: 'ask', agent_message: 'confirm' }, 'confirm'],
    [{ hookSpecificOutput: { decision: 'ask' } }, undefined],
  ])('%j asks', (answer, reason) => {
    const read = readCoshAnswer(printed(JSON.stringify(answer)), 'guard');
    expect(read).toMatchObject({ outcome: 'ok', output: { decision: 'ask' } });
    if (reason !== undefined) expect(read.outcome === 'ok' && read.output.reason).toBe(reason);
    expect(read.foreign).toBeDefined();
  });

  it('an ask never lowers a cosh block', () => {
    const read = readCoshAnswer(
      printed('{"decision": "block", "reason": "mine", "hookSpecificOutput": {"permissionDecision": "ask"}}'),
      'guard',
    );
    expect(read).toMatchObject({ output: { decision: 'block', reason: 'mine' } });
  });

  it.each([
    { hookSpecificOutput: { permissionDecision: 'allow' } },
    { hookSpecificOutput: { permissionDecision: 'defer' } },
    { permission: 'allow' },
    { hookSpecificOutput: { decision: { behavior: 'allow' } } },
  ])('%j is reported but approves nothing', (answer) => {
    const read = readCoshAnswer(printed(JSON.stringify(answer)), 'guard');
    expect(read).toMatchObject({ outcome: 'ok', output: { decision: 'none' } });
    expect(read.foreign).toBeDefined();
  });

  it('a cosh deny with a Claude allow beside it stays a block', () => {
    const read = readCoshAnswer(
      printed('{"decision": "deny", "reason": "r", "hookSpecificOutput": {"permissionDecision": "allow"}}'),
      'guard',
    );
    expect(read).toMatchObject({ output: { decision: 'block', reason: 'r' } });
  });
});

describe('readCoshAnswer: a cosh answer is left alone', () => {
  it.each([
    ['pass-through', ''],
    ['a cosh block', '{"decision": "block", "reason": "r"}'],
    ['context', '{"hookSpecificOutput": {"additional_context": "x"}}'],
    ['continue: true', '{"continue": true}'],
    ['a reason that mentions permission', '{"decision": "allow", "reason": "permission granted, continue"}'],
  ])('%s: the same result, nothing named', (_what, stdout) => {
    const result = printed(stdout);
    expect(readCoshAnswer(result, 'guard')).toBe(result);
  });

  it('invalid output that is no JSON string stays as it is', () => {
    const result = printed('not json');
    expect(readCoshAnswer(result, 'guard')).toBe(result);
  });

  it('the named value is redacted and cut', () => {
    const token = `ghp_${'a'.repeat(36)}`;
    const read = readCoshAnswer(printed(JSON.stringify({ permission: token })), 'guard');
    expect(read.foreign).not.toContain(token.slice(4, 16));
  });
});
