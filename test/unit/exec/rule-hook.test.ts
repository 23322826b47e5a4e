// Rule hooks in the chain (docs/configuration.md, Policy): in process, ordered, short-circuiting,
// the matched rule in the decision's report; through the public library API.
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createSession, defaultDeps, defineHooks, HookDefinitionError } from '../../../src/index.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookDecision, OutputLine } from '../../../src/output/lines.js';
import { ruleAnswer } from '../../../src/exec/rule-hook.js';

const shell = (command: string): HookEvent => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/work',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'run_shell_command',
  tool_input: { command },
});

const decisionOf = async (
  registry: ReturnType<typeof defineHooks>,
  event: HookEvent,
): Promise<HookDecision> => {
  const session = createSession(registry, defaultDeps(), { concurrency: 'per-session' });
  try {
    const lines: OutputLine[] = await lastValueFrom(session.decide(event).pipe(toArray()));
    const decision = lines.find((line): line is HookDecision => line.type === 'hook_decision');
    if (decision === undefined) throw new Error('no decision');
    return decision;
  } finally {
    session.close();
  }
};

describe('rule hooks in the chain', () => {
  let laterRan = 0;
  const registry = defineHooks({
    PreToolUse: [
      {
        name: 'policy',
        deny: ['Bash(rm -rf:*)'],
        allow: ['Bash(git diff:*)'],
        reason: 'no recursive deletes',
      },
      {
        name: 'later',
        run: () => {
          laterRan++;
          return { decision: 'allow', reason: 'later says yes' };
        },
      },
    ],
  });

  it('a deny rule blocks with the hook reason, names the rule in the report, and the rest of the chain is skipped', async () => {
    laterRan = 0;
    const decision = await decisionOf(registry, shell('git diff && rm -rf /'));
    expect(decision.decision).toBe('block');
    expect(decision.reason).toBe('no recursive deletes');
    expect(decision.hooks).toEqual([
      expect.objectContaining({
        name: 'policy',
        decision: 'block',
        outcome: 'ok',
        message: 'deny rule Bash(rm -rf:*) matched "rm -rf /"',
      }),
      expect.objectContaining({ name: 'later', outcome: 'skipped' }),
    ]);
    expect(laterRan).toBe(0);
  });

  it('an allow rule allows and the chain goes on; no match is pass-through', async () => {
    laterRan = 0;
    const allowed = await decisionOf(registry, shell('git diff HEAD'));
    expect(allowed.hooks[0]).toMatchObject({ name: 'policy', decision: 'allow' });
    expect(laterRan).toBe(1);
    const none = await decisionOf(
      defineHooks({ PreToolUse: [{ name: 'policy', deny: ['Bash(rm:*)'] }] }),
      shell('ls'),
    );
    expect(none.decision).toBe('none');
  });

  it('an unparseable command blocks, and the reason says it could not be parsed', async () => {
    const decision = await decisionOf(registry, shell('echo "unterminated'));
    expect(decision.decision).toBe('block');
    expect(decision.reason).toMatch(/^no recursive deletes \(the command could not be parsed: .*quote/);
  });

  it('without a reason, the reason names the rule; secrets in the command are redacted', async () => {
    const bare = defineHooks({ PreToolUse: [{ name: 'p', deny: ['Bash(curl:*)'] }] });
    const decision = await decisionOf(
      bare,
      shell('curl -H "Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789" x'),
    );
    expect(decision.reason).toMatch(/^deny rule Bash\(curl:\*\) matched/);
    expect(JSON.stringify(decision)).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('a rule hook runs no process: its answer is ready on subscribe', async () => {
    const hook = registry.PreToolUse[0]!;
    if (hook.kind !== 'rule') throw new Error('expected a rule hook');
    expect(ruleAnswer(hook, shell('rm -rf /'))).toMatchObject({
      outcome: 'ok',
      output: { decision: 'block' },
    });
    const first = await firstValueFrom(defaultDeps().executor(hook, shell('ls')));
    expect(first).toMatchObject({ outcome: 'ok', output: { decision: 'none' } });
  });

  it('defineHooks refuses bad rules, rule hooks off tool events, and observers or dialects on them', () => {
    const define = () =>
      defineHooks({
        PreToolUse: [
          { name: 'a', deny: ['Bash(rm'] },
          { name: 'b', deny: ['x'], observe: true },
          { name: 'c' },
        ],
        UserPromptSubmit: [{ name: 'd', deny: ['Bash'] }],
      });
    expect(define).toThrow(HookDefinitionError);
    try {
      define();
    } catch (error) {
      const problems = (error as HookDefinitionError).problems.join('\n');
      expect(problems).toMatch(/PreToolUse\[0\] \(hook "a"\): deny: "Bash\(rm" is not a permission rule/);
      expect(problems).toMatch(/PreToolUse\[1\] \(hook "b"\): observe:/);
      expect(problems).toMatch(/PreToolUse\[2\] \(hook "c"\): a rule hook needs at least one rule/);
      expect(problems).toMatch(/UserPromptSubmit\[0\] \(hook "d"\): rule hooks judge tool calls/);
    }
  });
});
