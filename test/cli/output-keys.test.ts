import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from './helpers.js';

/** cosh-core's snake_case output keys through the binary (spec §4.3, issue 12). */
const box = sandbox(
  [
    hookTable('PreToolUse', {
      name: 'snake',
      command: prints({
        decision: 'allow',
        system_message: 'checked by snake',
        hook_specific_output: { tool_input: { command: 'ls --color=never' }, additional_context: 'ctx' },
        continue: 'ignored',
        stop_reason: 7,
        suppress_output: true,
      }),
    }),
    hookTable('PreToolUse', {
      name: 'both',
      command: prints({
        systemMessage: 'camel',
        system_message: 'snake',
        hookSpecificOutput: { from: 'camel' },
        hook_specific_output: { from: 'snake' },
        stopReason: 'x',
      }),
    }),
  ].join('\n'),
);
afterAll(() => box.remove());

describe('cosh-hooks run with snake_case output keys', () => {
  it('reads system_message and hook_specific_output, prefers them to camelCase, ignores continue & co.', async () => {
    const event = { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'shell', tool_input: {} };
    const result = await cli(['run', ...box.flags], { input: jsonl(event) });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).map(withoutTimes)).toEqual([
      {
        type: 'stream_event',
        event: {
          subtype: 'hook_notification',
          hook_name: 'snake',
          message: 'checked by snake',
          decision: 'allow',
          hook_event_name: 'PreToolUse',
          session_id: 's',
        },
      },
      {
        type: 'stream_event',
        event: {
          subtype: 'hook_notification',
          hook_name: 'both',
          message: 'snake',
          decision: 'none',
          hook_event_name: 'PreToolUse',
          session_id: 's',
        },
      },
      {
        type: 'hook_decision',
        seq: 1,
        hook_event_name: 'PreToolUse',
        session_id: 's',
        decision: 'allow',
        systemMessage: 'checked by snake',
        additional_context: 'ctx',
        hook_specific_output: { tool_input: { command: 'ls --color=never' }, from: 'snake' },
        hooks: [
          { name: 'snake', source: 'config', decision: 'allow', outcome: 'ok' },
          { name: 'both', source: 'config', decision: 'none', outcome: 'ok' },
        ],
      },
    ]);
  });
});
