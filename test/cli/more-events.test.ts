import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox } from './helpers.js';

/*
 * The Claude Code event points, `ask` on UserPromptSubmit and the Stop-loop guard, through the
 * built binary as a host drives it (docs/protocol.md).
 */

// A SubagentStop hook that always blocks and says what it was told about the loop.
const echoActive = `python3 -c 'import json,sys; e=json.load(sys.stdin); print(json.dumps({"decision":"block","reason":"active=%s" % e.get("stop_hook_active")}))'`;

const box = sandbox(
  [
    '[hooks]',
    'stop_loop_limit = 2',
    '',
    hookTable('UserPromptSubmit', {
      name: 'prompt-scanner',
      command: prints({
        decision: 'ask',
        reason: 'possible secret in prompt',
        systemMessage: 'Send this prompt?',
      }),
    }),
    hookTable('SubagentStop', { name: 'explore-gate', matcher: '^Explore$', command: echoActive }),
    hookTable('Notification', {
      name: 'permission-only',
      matcher: '^permission_prompt$',
      command: prints({ systemMessage: 'seen' }),
    }),
    hookTable('PreCompact', { name: 'compact-block', command: prints({ decision: 'block', reason: 'no' }) }),
  ].join('\n'),
);
afterAll(() => box.remove());

const decisions = (stdout: string) => jsonLines(stdout).filter((line) => line['type'] === 'hook_decision');

describe('more event points through cosh-hooks run', () => {
  it('ask on UserPromptSubmit reaches the host as ask, with the message for its approval card', async () => {
    const run = await cli(['run', ...box.flags], {
      input: jsonl({ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'my key is sk-live' }),
    });
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines[0]).toMatchObject({
      type: 'stream_event',
      event: { hook_name: 'prompt-scanner', message: 'Send this prompt?', decision: 'ask' },
    });
    expect(lines[1]).toMatchObject({
      type: 'hook_decision',
      decision: 'ask',
      reason: 'possible secret in prompt',
      systemMessage: 'Send this prompt?',
    });
  });

  it('SubagentStop blocks like Stop, per agent type matcher; at stop_loop_limit the block is let through', async () => {
    const stop = (agent: string, type = 'Explore') => ({
      hook_event_name: 'SubagentStop',
      session_id: 's',
      agent_id: agent,
      agent_type: type,
    });
    const run = await cli(['run', ...box.flags], {
      input: jsonl(stop('a1'), stop('a1'), stop('p1', 'Plan'), stop('a1'), stop('a1')),
    });
    expect(run.code).toBe(0);
    expect(decisions(run.stdout).map((line) => [line['decision'], line['reason'] ?? null])).toStrictEqual([
      ['block', 'active=None'],
      ['block', 'active=True'],
      // Another agent type: no hook matches, and a1's loop is not reset by it.
      ['none', null],
      ['none', null],
      ['block', 'active=None'],
    ]);
    const guarded = decisions(run.stdout)[3];
    expect(guarded?.['stop_loop_guard']).toStrictEqual({
      limit: 2,
      blocked: 2,
      agent: 'a1',
      overridden: { decision: 'block', reason: 'active=True' },
    });
    expect(run.stdout).toContain(
      '"message":"SubagentStop hooks blocked sub-agent \\"a1\\" from stopping 2 times in a row (stop_loop_limit = 2): this block is let through so that it can stop"',
    );
  });

  it('Notification and PreCompact are observed, never blocked; the matcher tests notification_type', async () => {
    const run = await cli(['run', ...box.flags], {
      input: jsonl(
        {
          hook_event_name: 'Notification',
          session_id: 's',
          message: 'm',
          notification_type: 'permission_prompt',
        },
        { hook_event_name: 'Notification', session_id: 's', message: 'm', notification_type: 'idle_prompt' },
        { hook_event_name: 'PreCompact', session_id: 's', trigger: 'auto' },
        { hook_event_name: 'PreCompact', session_id: 's' },
      ),
    });
    const lines = decisions(run.stdout);
    expect(
      lines.map((line) => [line['hook_event_name'], line['decision'], (line['hooks'] as unknown[]).length]),
    ).toStrictEqual([
      ['Notification', 'none', 1],
      ['Notification', 'none', 0],
      ['PreCompact', 'none', 1],
    ]);
    expect(jsonLines(run.stdout).at(-1)).toMatchObject({
      type: 'hook_error',
      line: 4,
      message: 'trigger: missing required field (expected a string)',
    });
  });

  it('fire runs the new events with placeholders for their required fields', async () => {
    const fired = await cli([
      'fire',
      'SubagentStop',
      ...box.flags,
      '--json',
      '--input',
      '{"agent_type":"Explore"}',
    ]);
    expect(fired.code).toBe(0);
    const shown = JSON.parse(fired.stdout) as {
      event: Record<string, unknown>;
      decision: Record<string, unknown>;
    };
    expect(shown.event).toMatchObject({ hook_event_name: 'SubagentStop', agent_type: 'Explore' });
    expect(shown.decision).toMatchObject({ decision: 'block', reason: 'active=None' });
  });
});
