// The host core copies what a framework hands it once (`asJson`, `jsonOf`); admission takes that
// copy as the engine's own and does not copy it again. A host's own event (`decide`) is copied.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as eventData from '../../../src/events/event-data.js';
import { agentHooks } from '../../../src/host/agent-hooks.js';
import { defaultDeps } from '../../../src/pipeline/pipeline.js';
import { createSession } from '../../../src/pipeline/session.js';
import { defineHooks } from '../../../src/registry/define.js';

vi.mock('../../../src/events/event-data.js', async (importOriginal) => {
  const original = await importOriginal<typeof eventData>();
  return { ...original, eventDataCopy: vi.fn(original.eventDataCopy) };
});

const copies = vi.mocked(eventData.eventDataCopy);
afterEach(() => copies.mockClear());

describe('one copy per event: the host core copies, admission does not copy again', () => {
  const session = createSession(
    defineHooks({
      PreToolUse: [{ name: 'guard', run: () => ({ decision: 'allow' }) }],
      PostToolUse: [{ name: 'look', run: () => undefined }],
      BeforeModel: [{ name: 'look', run: () => undefined }],
    }),
    defaultDeps(),
  );
  const hooks = agentHooks({ session, sessionId: 's1' });

  it('PreToolUse, PostToolUse and BeforeModel built by the host core are admitted without a copy', async () => {
    await expect(hooks.beforeTool('shell', { command: 'ls' }, 't1')).resolves.toMatchObject({
      action: 'run',
    });
    await expect(hooks.afterTool('shell', { command: 'ls' }, { out: 'a' }, 't1')).resolves.toEqual({
      action: 'keep',
    });
    await expect(hooks.beforeModel({ messages: [{ role: 'user', content: 'hi' }] })).resolves.toMatchObject({
      ok: true,
    });
    expect(copies).not.toHaveBeenCalled();
  });

  it("a host's own event, handed to decide, is copied at admission (the host still holds it)", async () => {
    await hooks.decide({
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      tool_name: 'shell',
      tool_input: {},
    });
    expect(copies).toHaveBeenCalledTimes(1);
  });
});
