import { describe, expect, it } from 'vitest';
import { readForeignAnswer, type AnswerContext } from '../../../src/dialects/answer.js';
import { decodeHookStdout } from '../../../src/protocol/decode-output.js';
import { withPrinted } from '../../../src/protocol/printed.js';
import { failure, success, type HookResult } from '../../../src/protocol/result.js';
import type { EventName } from '../../../src/events/names.js';

const claude = (event: EventName = 'PreToolUse'): AnswerContext => ({
  dialect: 'claude',
  event,
  hookName: 'guard',
  back: (input) => {
    const { file_path: path, ...rest } = input;
    return path === undefined ? input : { absolute_path: path, ...rest };
  },
});
const gemini = (event: EventName = 'PreToolUse'): AnswerContext => ({ ...claude(event), dialect: 'gemini' });

/** A command hook that exited 0 and printed `stdout`, classified as cosh classifies it. */
const printed = (stdout: string): HookResult => {
  const decoded = decodeHookStdout(stdout);
  return withPrinted(
    decoded.ok
      ? success(decoded.value)
      : failure('invalid_output', `invalid output: ${decoded.error}`, { exitCode: 0 }),
    stdout,
  );
};

const exited = (code: number, stderr: string): HookResult =>
  failure('exit', `exited with code ${code}`, { exitCode: code, ...(stderr !== '' && { stderr }) });

describe('readForeignAnswer: exit codes', () => {
  it('exit 2 blocks with the whole stderr as the reason', () => {
    expect(readForeignAnswer(exited(2, '  Blocked: rm -rf\nuse trash instead\n'), claude())).toStrictEqual(
      success({ decision: 'block', reason: 'Blocked: rm -rf\nuse trash instead' }),
    );
  });

  it('exit 2 without stderr still blocks, naming the hook', () => {
    expect(readForeignAnswer(exited(2, ''), gemini())).toStrictEqual(
      success({ decision: 'block', reason: 'hook "guard" exited with code 2' }),
    );
  });

  it('other exit codes, timeouts and signals stay failures (non-blocking, fail_closed applies)', () => {
    for (const result of [
      exited(1, 'oops'),
      failure('timeout', 'timed out after 5 ms'),
      failure('signal', 'killed'),
    ]) {
      expect(readForeignAnswer(result, claude())).toBe(result);
    }
  });
});

describe('readForeignAnswer: Claude Code JSON', () => {
  it.each([
    [
      'deny → block with permissionDecisionReason',
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no .env"}}',
      { decision: 'block', reason: 'no .env' },
    ],
    [
      'ask → ask',
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"force push"}}',
      { decision: 'ask', reason: 'force push' },
    ],
    [
      'allow → allow',
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}',
      { decision: 'allow' },
    ],
    [
      'defer → no opinion',
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}',
      { decision: 'none' },
    ],
    [
      'permissionDecision wins over the deprecated top-level decision',
      '{"decision":"approve","reason":"old","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"new"}}',
      { decision: 'block', reason: 'new' },
    ],
    [
      'deprecated "approve" → allow',
      '{"decision":"approve","reason":"ok"}',
      { decision: 'allow', reason: 'ok' },
    ],
    [
      'updatedInput → updated_input in cosh field names',
      '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"file_path":"/w/a.log","limit":200}}}',
      { decision: 'allow', hookSpecificOutput: { updated_input: { absolute_path: '/w/a.log', limit: 200 } } },
    ],
    [
      'additionalContext and systemMessage pass through',
      '{"systemMessage":"note","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}',
      {
        decision: 'none',
        systemMessage: 'note',
        hookSpecificOutput: { additionalContext: 'lint: 2 warnings' },
      },
    ],
    [
      'continue: false → block with stopReason, flagged for the host',
      '{"continue":false,"stopReason":"Build broken","decision":"approve"}',
      {
        decision: 'block',
        reason: 'Build broken',
        hookSpecificOutput: { continue: false, stop_reason: 'Build broken' },
      },
    ],
    [
      'continue: false without stopReason names the hook',
      '{"continue":false}',
      {
        decision: 'block',
        reason: 'hook "guard" stopped the agent',
        hookSpecificOutput: { continue: false, stop_reason: 'hook "guard" stopped the agent' },
      },
    ],
    [
      'continue: true and suppressOutput change nothing',
      '{"continue":true,"suppressOutput":true}',
      { decision: 'none' },
    ],
  ])('%s', (_, stdout, output) => {
    expect(readForeignAnswer(printed(stdout), claude())).toStrictEqual(success(output as never));
  });

  it.each([
    [
      '{"hookSpecificOutput":{"permissionDecision":"maybe"}}',
      'invalid output: hookSpecificOutput.permissionDecision: unknown value "maybe" (expected allow, deny, ask or defer)',
    ],
    [
      '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":5}}',
      'invalid output: hookSpecificOutput.permissionDecisionReason: expected a string',
    ],
    [
      '{"hookSpecificOutput":{"updatedInput":"rm"}}',
      'invalid output: hookSpecificOutput.updatedInput: expected an object',
    ],
    ['{"continue":"no"}', 'invalid output: continue: expected true or false'],
    ['{"continue":false,"stopReason":1}', 'invalid output: stopReason: expected a string'],
  ])('%s is invalid_output', (stdout, message) => {
    expect(readForeignAnswer(printed(stdout), claude())).toStrictEqual(failure('invalid_output', message));
  });

  it('an object cosh rejects stays rejected', () => {
    const result = printed('{"decision":"maybe"}');
    expect(readForeignAnswer(result, claude())).toBe(result);
  });
});

describe('readForeignAnswer: plain text', () => {
  it.each(['UserPromptSubmit', 'SessionStart'] as const)('Claude %s: text is context', (event) => {
    expect(readForeignAnswer(printed('Branch: main\nRules: use pnpm\n'), claude(event))).toStrictEqual(
      success({
        decision: 'none',
        hookSpecificOutput: { additional_context: 'Branch: main\nRules: use pnpm' },
      }),
    );
  });

  it('Claude, other events: text is only a transcript note, pass-through', () => {
    expect(readForeignAnswer(printed('formatted a.ts'), claude('PostToolUse'))).toStrictEqual(
      success({ decision: 'none' }),
    );
  });

  it('JSON that is not an object is text too', () => {
    expect(readForeignAnswer(printed('42'), claude('SessionStart'))).toStrictEqual(
      success({ decision: 'none', hookSpecificOutput: { additional_context: '42' } }),
    );
  });

  it('Gemini: text is a message for the user', () => {
    expect(readForeignAnswer(printed('Logged.'), gemini('UserPromptSubmit'))).toStrictEqual(
      success({ decision: 'none', systemMessage: 'Logged.' }),
    );
  });
});

describe('readForeignAnswer: Gemini CLI JSON', () => {
  it('deny with reason and systemMessage', () => {
    expect(
      readForeignAnswer(printed('{"decision":"deny","reason":"secret","systemMessage":"blocked"}'), gemini()),
    ).toStrictEqual(success({ decision: 'block', reason: 'secret', systemMessage: 'blocked' }));
  });

  it('hookSpecificOutput.tool_input stays a patch, in cosh field names', () => {
    expect(
      readForeignAnswer(
        printed('{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"/b"}}}'),
        gemini(),
      ),
    ).toStrictEqual(
      success({ decision: 'none', hookSpecificOutput: { tool_input: { absolute_path: '/b' } } }),
    );
  });

  it('"allow" approves nothing in Gemini CLI (its default when nothing blocks): no opinion here', () => {
    // Gemini CLI acts on deny/block and ask only, and merges hooks to "allow" when none blocks,
    // so a scanner printing {"decision":"allow"} for every clean write must not read as cosh's
    // "allow" (which a host may take as approval without asking).
    expect(readForeignAnswer(printed('{"decision":"allow"}'), gemini())).toStrictEqual(
      success({ decision: 'none' }),
    );
    expect(
      readForeignAnswer(printed('{"decision":"approve","reason":"clean","systemMessage":"ok"}'), gemini()),
    ).toStrictEqual(success({ decision: 'none', reason: 'clean', systemMessage: 'ok' }));
    expect(readForeignAnswer(printed('{"decision":"ask","reason":"sure?"}'), gemini())).toStrictEqual(
      success({ decision: 'ask', reason: 'sure?' }),
    );
    expect(readForeignAnswer(printed('{"decision":"allow"}'), claude())).toStrictEqual(
      success({ decision: 'allow' }),
    );
  });

  it('double-encoded JSON is read as Gemini reads it', () => {
    expect(
      readForeignAnswer(printed(JSON.stringify('{"decision":"deny","reason":"x"}')), gemini()),
    ).toStrictEqual(success({ decision: 'block', reason: 'x' }));
  });

  it('continue: false stops the agent', () => {
    expect(
      readForeignAnswer(printed('{"continue":false,"stopReason":"done"}'), gemini('Stop')),
    ).toStrictEqual(
      success({
        decision: 'block',
        reason: 'done',
        hookSpecificOutput: { continue: false, stop_reason: 'done' },
      }),
    );
  });

  it('SessionStart is advisory in Gemini CLI: continue and stopReason are ignored there', () => {
    // Gemini CLI hooks reference, SessionStart: "continue and decision fields are ignored.
    // Startup is never blocked." A Claude hook's continue: false still stops (every event).
    expect(
      readForeignAnswer(
        printed('{"continue":false,"stopReason":"no","systemMessage":"Loaded 3 memories"}'),
        gemini('SessionStart'),
      ),
    ).toStrictEqual(success({ decision: 'none', systemMessage: 'Loaded 3 memories' }));
    expect(readForeignAnswer(printed('{"continue":"no"}'), gemini('SessionStart'))).toStrictEqual(
      success({ decision: 'none' }),
    );
    expect(readForeignAnswer(printed('{"continue":false}'), claude('SessionStart'))).toStrictEqual(
      success({
        decision: 'block',
        reason: 'hook "guard" stopped the agent',
        hookSpecificOutput: { continue: false, stop_reason: 'hook "guard" stopped the agent' },
      }),
    );
  });
});
