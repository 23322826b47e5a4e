import { describe, expect, it } from 'vitest';
import { DOCTOR_SESSION, sampleEvent } from '../../src/cli/doctor.js';
import { decodeEvent } from '../../src/events/decode.js';
import { EVENT_NAMES } from '../../src/events/names.js';
import { commandHookOf } from '../../src/registry/define.js';
import { compileMatcher } from '../../src/registry/matcher.js';

const hookWith = (matcher?: string) => {
  const compiled = matcher === undefined ? undefined : compileMatcher(matcher);
  return commandHookOf(
    { name: 'h', command: 'true', ...(compiled?.ok === true && { matcher: compiled.value }) },
    'config',
  );
};

describe('doctor: the sample events', () => {
  it.each(EVENT_NAMES)('%s: a valid event in the scratch folder, of the doctor session', (event) => {
    const sample = sampleEvent(event, hookWith(), '/tmp/scratch');
    expect(sample).toMatchObject({ hook_event_name: event, session_id: DOCTOR_SESSION, cwd: '/tmp/scratch' });
    const decoded = decodeEvent(sample, { cwd: () => '/elsewhere', now: () => new Date(0) });
    expect(decoded.ok ? 'valid' : decoded.error).toBe('valid');
  });

  it.each([
    [undefined, 'shell', { command: 'echo cosh-hooks doctor' }],
    ['^run_shell_command$', 'shell', { command: 'echo cosh-hooks doctor' }], // its alias, first in the table
    [
      'write_file|replace',
      'write_file',
      { absolute_path: '/tmp/scratch/sample.txt', file_path: '/tmp/scratch/sample.txt' },
    ],
    ['^mcp__x__y$', 'shell', { command: 'echo cosh-hooks doctor' }],
  ])('matcher %s: tool %s, a harmless input', (matcher, tool, input) => {
    expect(sampleEvent('PreToolUse', hookWith(matcher), '/tmp/scratch')).toMatchObject({
      tool_name: tool,
      tool_input: input,
    });
  });
});
