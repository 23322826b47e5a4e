import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../../../src/events/index.js';
import { toNotification } from '../../../src/output/index.js';
import {
  effectiveDecision,
  failure,
  success,
  type HookOutput,
  type HookResult,
} from '../../../src/protocol/index.js';

const event: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_use_id: 't1',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: {},
};
const runOf = (result: HookResult) => ({
  hook: { name: 'guard', source: 'config' },
  result,
  effective: effectiveDecision('PreToolUse', { name: 'guard', failClosed: false }, result),
  durationMs: 3,
});
const notify = (output: HookOutput) => toNotification(runOf(success(output)), event)?.event.message;

describe('toNotification (spec §5.1)', () => {
  it.each<[string, HookOutput, string | undefined]>([
    ['systemMessage wins over reason', { decision: 'block', reason: 'r', systemMessage: 'm' }, 'm'],
    ['reason is the fallback', { decision: 'allow', reason: 'r' }, 'r'],
    [
      'an empty systemMessage falls back to the reason',
      { decision: 'block', reason: 'why', systemMessage: '' },
      'why',
    ],
    ['nothing to say, no notification', { decision: 'allow' }, undefined],
    ['empty strings only, no notification', { decision: 'none', reason: '', systemMessage: '' }, undefined],
  ])('%s', (_name, output, message) => {
    expect(notify(output)).toBe(message);
  });

  it('has the wire shape, with the hook’s own decision and the event’s ids', () => {
    expect(toNotification(runOf(success({ decision: 'ask', systemMessage: 'sure?' })), event)).toEqual({
      type: 'stream_event',
      event: {
        subtype: 'hook_notification',
        hook_name: 'guard',
        message: 'sure?',
        decision: 'ask',
        hook_event_name: 'PreToolUse',
        session_id: 's',
        tool_use_id: 't1',
      },
    });
  });

  it('a failure is always notified, as decision error with the failure message', () => {
    expect(toNotification(runOf(failure('timeout', 'timed out after 5000 ms')), event)?.event).toMatchObject({
      decision: 'error',
      message: 'timed out after 5000 ms',
    });
  });
});
