import { lastValueFrom, of, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { HookResultRecord } from '../../src/audit/records.js';
import { decodeEvent } from '../../src/events/decode.js';
import type { EventName } from '../../src/events/names.js';
import { processExecutor } from '../../src/exec/index.js';
import { isDecision } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks } from '../../src/registry/define.js';
import { event } from '../../src/testing/index.js';

/*
 * Hooks written for Claude Code, Gemini CLI or Cursor, configured without `dialect` (so cosh): real
 * sh processes through the real engine. Their words never pass silently (docs/compat.md).
 */

const admitted = (name: EventName, fields: Record<string, unknown>) => {
  const decoded = decodeEvent(event(name, { session_id: 's', ...fields }), {
    now: () => new Date(0),
    cwd: () => process.cwd(),
  });
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};
const pre = admitted('PreToolUse', { tool_name: 'shell', tool_input: { command: 'rm -rf /' } });

const run = async (command: string, on: EventName = 'PreToolUse', input = pre) => {
  const registry = defineHooks({ [on]: [{ name: 'guard', command }] });
  const streams = hookPipeline(registry, defaultDeps(processExecutor()))(of(input));
  const audit: unknown[] = [];
  streams.audit$.subscribe((record) => audit.push(record));
  const lines = await lastValueFrom(streams.output$.pipe(toArray()));
  const decision = lines.find(isDecision);
  const record = audit.find(
    (item): item is HookResultRecord => (item as { record?: string }).record === 'hook_result',
  );
  return { decision, record };
};

describe("a cosh hook answering in another agent's words", () => {
  it('Claude exit 2 with a reason on stderr blocks with it, the report and the audit name the words', async () => {
    const { decision, record } = await run(`echo 'rm -rf is not allowed' >&2; exit 2`);
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'rm -rf is not allowed',
      hooks: [{ name: 'guard', outcome: 'exit', decision: 'block' }],
    });
    expect(decision?.hooks[0]?.foreign).toContain('exit status 2 with a reason on stderr');
    expect(decision?.hooks[0]?.foreign).toContain('dialect = "claude"');
    expect(record).toMatchObject({ hook: 'guard', outcome: 'exit', effective: 'block' });
    expect(record?.foreign).toContain('exit status 2');
  });

  it('Claude permissionDecision deny blocks with permissionDecisionReason', async () => {
    const answer = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no rm',
      },
    });
    const { decision, record } = await run(`cat >/dev/null; echo '${answer}'`);
    expect(decision).toMatchObject({ decision: 'block', reason: 'no rm' });
    expect(decision?.hooks[0]?.foreign).toContain('permissionDecision "deny"');
    expect(record).toMatchObject({ outcome: 'ok', decision: 'block', effective: 'block' });
    expect(record?.foreign).toContain('permissionDecision');
  });

  it('Cursor permission ask asks', async () => {
    const { decision } = await run(`echo '{"permission": "ask", "agent_message": "sure?"}'`);
    expect(decision).toMatchObject({ decision: 'ask', reason: 'sure?' });
    expect(decision?.hooks[0]?.foreign).toContain('Cursor');
  });

  it('exit 2 on an event that cannot block is reported, and passes', async () => {
    const failed = admitted('PostToolUseFailure', {
      tool_name: 'shell',
      tool_input: { command: 'ls' },
      error: 'x',
    });
    const { decision } = await run(`echo 'no' >&2; exit 2`, 'PostToolUseFailure', failed);
    expect(decision).toMatchObject({ decision: 'none', hooks: [{ outcome: 'exit' }] });
    expect(decision?.hooks[0]?.foreign).toContain('exit status 2');
  });

  it('a cosh answer carries no foreign mark', async () => {
    const { decision, record } = await run(`echo '{"decision": "allow"}'`);
    expect(decision).toMatchObject({ decision: 'allow' });
    expect(decision?.hooks[0]).not.toHaveProperty('foreign');
    expect(record).not.toHaveProperty('foreign');
  });

  it('a hook with dialect = "claude" is read as Claude reads it, with no foreign mark', async () => {
    const registry = defineHooks({
      PreToolUse: [{ name: 'guard', command: `echo 'no' >&2; exit 2`, dialect: 'claude' }],
    });
    const lines = await lastValueFrom(
      hookPipeline(registry, defaultDeps(processExecutor()))(of(pre)).output$.pipe(toArray()),
    );
    const decision = lines.find(isDecision);
    expect(decision).toMatchObject({ decision: 'block', reason: 'no', hooks: [{ outcome: 'ok' }] });
    expect(decision?.hooks[0]).not.toHaveProperty('foreign');
  });
});
