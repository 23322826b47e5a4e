import { describe, expect, it } from 'vitest';
import {
  classifyProcess,
  formatBytes,
  type ProcessOutcome,
  type Termination,
} from '../../../src/exec/process/classify.js';
import type { HookResult } from '../../../src/protocol/result.js';

const MiB = 1024 * 1024;
const exited = (exitCode: number): Termination => ({ kind: 'exited', exitCode });
const signaled = (signal: string): Termination => ({ kind: 'signaled', signal });

const outcome = (termination: Termination, fields: Partial<Omit<ProcessOutcome, 'termination'>> = {}) => ({
  termination,
  stdout: '',
  stdoutOverflow: false,
  stdoutLimit: MiB,
  stderr: '',
  ...fields,
});

describe('classifyProcess', () => {
  it.each<[string, ProcessOutcome, HookResult]>([
    // exit 0: stdout decides
    ['empty stdout is pass-through', outcome(exited(0)), { outcome: 'ok', output: { decision: 'none' } }],
    [
      'whitespace-only stdout is pass-through',
      outcome(exited(0), { stdout: ' \n\t\n' }),
      { outcome: 'ok', output: { decision: 'none' } },
    ],
    [
      'allow',
      outcome(exited(0), { stdout: '{"decision":"allow"}\n' }),
      { outcome: 'ok', output: { decision: 'allow' } },
    ],
    [
      'block with reason, stderr ignored on success',
      outcome(exited(0), { stdout: '{"decision":"block","reason":"no"}', stderr: 'debug noise\n' }),
      { outcome: 'ok', output: { decision: 'block', reason: 'no' } },
    ],
    [
      'deny alias, case-insensitive',
      outcome(exited(0), { stdout: '{"decision":"DENY"}' }),
      { outcome: 'ok', output: { decision: 'block' } },
    ],
    [
      'ask with systemMessage and hookSpecificOutput',
      outcome(exited(0), {
        stdout: '{"decision":"ask","systemMessage":"sure?","hookSpecificOutput":{"additional_context":"x"}}',
      }),
      {
        outcome: 'ok',
        output: { decision: 'ask', systemMessage: 'sure?', hookSpecificOutput: { additional_context: 'x' } },
      },
    ],
    [
      'non-ASCII text survives',
      outcome(exited(0), { stdout: '{"decision":"block","reason":"拒否 — ünïcödé 🚫"}' }),
      { outcome: 'ok', output: { decision: 'block', reason: '拒否 — ünïcödé 🚫' } },
    ],
    [
      'replacement characters from invalid UTF-8 inside a string are just text',
      outcome(exited(0), { stdout: '{"decision":"allow","reason":"bad \uFFFD byte"}' }),
      { outcome: 'ok', output: { decision: 'allow', reason: 'bad \uFFFD byte' } },
    ],
    [
      'stdout that is not JSON',
      outcome(exited(0), { stdout: 'hello\n', stderr: 'warn\n' }),
      {
        outcome: 'invalid_output',
        message: 'invalid output: stdout is not JSON: "hello"',
        stderr: 'warn\n',
        exitCode: 0,
      },
    ],
    [
      'a JSON array',
      outcome(exited(0), { stdout: '[1]' }),
      {
        outcome: 'invalid_output',
        message: 'invalid output: expected a JSON object, got an array',
        exitCode: 0,
      },
    ],
    [
      'an unknown decision',
      outcome(exited(0), { stdout: '{"decision":"maybe"}' }),
      {
        outcome: 'invalid_output',
        message: 'invalid output: decision: unknown value "maybe" (expected allow, block, ask or none)',
        exitCode: 0,
      },
    ],
    [
      'two JSON objects',
      outcome(exited(0), { stdout: '{"decision":"allow"}\n{"decision":"block"}' }),
      {
        outcome: 'invalid_output',
        message: 'invalid output: stdout is not JSON: "{\\"decision\\":\\"allow\\"}…"',
        exitCode: 0,
      },
    ],
    // non-zero exits
    [
      'exit 1 without stderr',
      outcome(exited(1)),
      { outcome: 'exit', message: 'exited with code 1', exitCode: 1 },
    ],
    [
      'exit 2 names the first non-blank stderr line',
      outcome(exited(2), { stderr: '\n  secrets found in diff  \nline two\n' }),
      {
        outcome: 'exit',
        message: 'exited with code 2: secrets found in diff',
        stderr: '\n  secrets found in diff  \nline two\n',
        exitCode: 2,
      },
    ],
    [
      'non-zero exit wins over a valid decision on stdout',
      outcome(exited(3), { stdout: '{"decision":"allow"}' }),
      { outcome: 'exit', message: 'exited with code 3', exitCode: 3 },
    ],
    [
      'exit 137 from sh (a child killed by SIGKILL) stays an exit: sh reports 128+n, not the signal',
      outcome(exited(137)),
      { outcome: 'exit', message: 'exited with code 137', exitCode: 137 },
    ],
    [
      'exit 127 from a hook script whose own command was missing is an exit, not a spawn failure',
      outcome(exited(127), { stderr: './hook.sh: 3: jq: not found\n' }),
      {
        outcome: 'exit',
        message: 'exited with code 127: ./hook.sh: 3: jq: not found',
        stderr: './hook.sh: 3: jq: not found\n',
        exitCode: 127,
      },
    ],
    [
      'exit 127 without any sh line is an exit',
      outcome(exited(127)),
      { outcome: 'exit', message: 'exited with code 127', exitCode: 127 },
    ],
    [
      'exit 1 with a sh "not found" line is an exit (only 126/127 mean sh could not start it)',
      outcome(exited(1), { stderr: '/bin/sh: 1: foo: not found\n' }),
      {
        outcome: 'exit',
        message: 'exited with code 1: /bin/sh: 1: foo: not found',
        stderr: '/bin/sh: 1: foo: not found\n',
        exitCode: 1,
      },
    ],
    // sh could not start the command
    [
      'dash: command not found (127)',
      outcome(exited(127), { stderr: '/bin/sh: 1: foo: not found\n' }),
      {
        outcome: 'spawn',
        message: 'could not start: /bin/sh: 1: foo: not found',
        stderr: '/bin/sh: 1: foo: not found\n',
        exitCode: 127,
      },
    ],
    [
      'dash: not executable (126)',
      outcome(exited(126), { stderr: '/bin/sh: 1: ./hook.sh: Permission denied\n' }),
      {
        outcome: 'spawn',
        message: 'could not start: /bin/sh: 1: ./hook.sh: Permission denied',
        stderr: '/bin/sh: 1: ./hook.sh: Permission denied\n',
        exitCode: 126,
      },
    ],
    [
      'bash as sh: command not found (127)',
      outcome(exited(127), { stderr: '/bin/sh: line 1: foo: command not found\n' }),
      {
        outcome: 'spawn',
        message: 'could not start: /bin/sh: line 1: foo: command not found',
        stderr: '/bin/sh: line 1: foo: command not found\n',
        exitCode: 127,
      },
    ],
    [
      'busybox sh: no such file (127)',
      outcome(exited(127), { stderr: 'sh: /opt/hook: No such file or directory\n' }),
      {
        outcome: 'spawn',
        message: 'could not start: sh: /opt/hook: No such file or directory',
        stderr: 'sh: /opt/hook: No such file or directory\n',
        exitCode: 127,
      },
    ],
    [
      'the sh line is found after output of earlier commands',
      outcome(exited(127), { stderr: 'checking\n/bin/sh: 1: missing-tool: not found\n' }),
      {
        outcome: 'spawn',
        message: 'could not start: /bin/sh: 1: missing-tool: not found',
        stderr: 'checking\n/bin/sh: 1: missing-tool: not found\n',
        exitCode: 127,
      },
    ],
    // signals
    [
      'killed by a signal',
      outcome(signaled('SIGKILL')),
      { outcome: 'signal', message: 'killed by signal SIGKILL', signal: 'SIGKILL' },
    ],
    [
      'killed by a signal, with stderr',
      outcome(signaled('SIGSEGV'), { stderr: 'about to crash\n' }),
      {
        outcome: 'signal',
        message: 'killed by signal SIGSEGV: about to crash',
        stderr: 'about to crash\n',
        signal: 'SIGSEGV',
      },
    ],
    [
      'a signal wins over a valid decision already printed',
      outcome(signaled('SIGTERM'), { stdout: '{"decision":"allow"}' }),
      { outcome: 'signal', message: 'killed by signal SIGTERM', signal: 'SIGTERM' },
    ],
    // output too large
    [
      'overflow after the executor killed the group',
      outcome(signaled('SIGKILL'), { stdout: 'x'.repeat(10), stdoutOverflow: true, stderr: 'log\n' }),
      { outcome: 'output_too_large', message: 'output exceeded 1 MiB', stderr: 'log\n', signal: 'SIGKILL' },
    ],
    [
      'overflow wins over exit 0 and over a parsable prefix',
      outcome(exited(0), { stdout: '{"decision":"allow"}', stdoutOverflow: true, stdoutLimit: 4096 }),
      { outcome: 'output_too_large', message: 'output exceeded 4 KiB', exitCode: 0 },
    ],
    // never started
    [
      'direct exec of a missing file',
      outcome({ kind: 'not_started', file: 'foo', code: 'ENOENT', message: 'spawn foo ENOENT' }),
      { outcome: 'spawn', message: 'could not start: foo: not found' },
    ],
    [
      'direct exec of a file without the executable bit',
      outcome({ kind: 'not_started', file: './hook.sh', code: 'EACCES', message: 'spawn ./hook.sh EACCES' }),
      { outcome: 'spawn', message: 'could not start: ./hook.sh: Permission denied' },
    ],
    [
      'an errno without a sentence keeps the system message',
      outcome({ kind: 'not_started', file: '/bin/sh', code: 'EAGAIN', message: 'spawn /bin/sh EAGAIN' }),
      { outcome: 'spawn', message: 'could not start: spawn /bin/sh EAGAIN' },
    ],
    [
      'an error without a code keeps the system message',
      outcome({ kind: 'not_started', file: '/bin/sh', message: 'The argument contains null bytes' }),
      { outcome: 'spawn', message: 'could not start: The argument contains null bytes' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(classifyProcess(input)).toStrictEqual(expected);
  });

  it('shortens a very long stderr line in the message but keeps the whole tail', () => {
    const line = 'e'.repeat(500);
    const result = classifyProcess(outcome(exited(1), { stderr: line }));
    expect(result).toStrictEqual({
      outcome: 'exit',
      message: `exited with code 1: ${'e'.repeat(200)}…`,
      stderr: line,
      exitCode: 1,
    });
  });

  it('never returns a timeout: the deadline belongs to the stream', () => {
    const terminations: Termination[] = [
      exited(0),
      exited(1),
      exited(124),
      exited(126),
      exited(127),
      exited(255),
      signaled('SIGTERM'),
      signaled('SIGKILL'),
      { kind: 'not_started', file: 'x', message: 'x' },
    ];
    const kinds = terminations.flatMap((termination) =>
      [false, true].map(
        (stdoutOverflow) => classifyProcess(outcome(termination, { stdoutOverflow })).outcome,
      ),
    );
    expect(kinds).not.toContain('timeout');
    expect(new Set(kinds)).toStrictEqual(new Set(['ok', 'exit', 'signal', 'spawn', 'output_too_large']));
  });
});

describe('formatBytes', () => {
  it.each([
    [MiB, '1 MiB'],
    [8 * MiB, '8 MiB'],
    [64 * 1024, '64 KiB'],
    [1536 * 1024, '1536 KiB'],
    [1000, '1000 bytes'],
    [0, '0 bytes'],
  ])('%d → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
