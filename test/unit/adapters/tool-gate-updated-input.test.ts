/**
 * A PreToolUse hook that allows (or asks) with `updated_input`: the tool runs with the updated
 * input, through the framework-free core every adapter shares (issue 37, the mutant "an adapter's
 * allow ignoring updated_input"). A hook answering at once: no virtual time needed.
 */
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { agentHooks } from '../../../src/host/agent-hooks.js';
import { createSession } from '../../../src/pipeline/index.js';
import { registryOf } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

const gateFor = async (answer: ReturnType<typeof results.allow>) => {
  const scheduler = createTestScheduler();
  const registry = registryOf((name) => (name === 'PreToolUse' ? [commandHook('rewrite')] : []));
  const session = createSession(registry, testDeps(scheduler, fakeExecutor({ rewrite: of(answer) })));
  try {
    return await agentHooks({ session, sessionId: 's1', cwd: '/work' }).beforeTool('shell', {
      command: 'rm -rf /tmp/x',
      options: { force: true },
    });
  } finally {
    session.close();
  }
};

describe('agentHooks.beforeTool: the hooks rewrite the input the tool runs with', () => {
  it('allow with updated_input: the tool runs with the updated input, not the model’s', async () => {
    const gate = await gateFor(
      results.allow({ hookSpecificOutput: { updated_input: { command: 'ls /tmp/x' } } }),
    );
    expect(gate).toMatchObject({ action: 'run', input: { command: 'ls /tmp/x' } });
    expect(gate.action === 'run' && gate.input).toStrictEqual({ command: 'ls /tmp/x' });
  });

  it('allow with a tool_input patch: deep-merged into the model’s input', async () => {
    const gate = await gateFor(
      results.allow({ hookSpecificOutput: { tool_input: { options: { force: false } } } }),
    );
    expect(gate.action === 'run' && gate.input).toStrictEqual({
      command: 'rm -rf /tmp/x',
      options: { force: false },
    });
  });

  it('ask with updated_input: once confirmed, the tool runs with the updated input', async () => {
    const gate = await gateFor(
      results.ask({ hookSpecificOutput: { updated_input: { command: 'ls /tmp/x' } } }),
    );
    expect(gate.action === 'ask' && gate.input).toStrictEqual({ command: 'ls /tmp/x' });
  });
});
