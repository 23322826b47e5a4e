// Type tests: checked by `tsc -p tsconfig.json` (npm run lint), and run by vitest so that the
// `run` functions are exercised too. A line marked @ts-expect-error that starts to compile fails tsc.
import { asyncScheduler, lastValueFrom, of, toArray } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSession, defineHooks, type HookEvent } from 'cosh-hooks';
// Not public names (a host writes a function, never its type), but the types defineHooks checks it by.
import type { HookAnswer, HookFunction } from '../../src/registry/hook.js';
import { fakeExecutor, testDeps } from 'cosh-hooks/testing';

describe('in-process hook answers are typed', () => {
  it('accepts every decision spelling of spec §4.3 and rejects anything else at compile time', async () => {
    expectTypeOf<HookAnswer['decision']>().toEqualTypeOf<
      'allow' | 'approve' | 'block' | 'deny' | 'reject' | 'ask' | 'none' | '' | null | undefined
    >();
    expectTypeOf<HookFunction>().parameter(0).toEqualTypeOf<HookEvent>();

    const registry = defineHooks({
      PreToolUse: [
        { name: 'deny', run: () => ({ decision: 'deny', reason: 'no' }) },
        { name: 'null', run: () => ({ decision: null }) },
        { name: 'empty', run: () => ({ decision: '', systemMessage: 'seen' }) },
        { name: 'promise', run: () => Promise.resolve({ decision: 'approve' as const }) },
        { name: 'observable', run: () => of<HookAnswer>({ decision: 'ask' }) },
        { name: 'context', run: () => ({ hookSpecificOutput: { additional_context: 'x' } }) },
        { name: 'nothing', run: () => undefined },
      ],
      Stop: [
        // @ts-expect-error: 'maybe' is not a decision
        { name: 'maybe', run: () => ({ decision: 'maybe' }) },
        // @ts-expect-error: reason is text
        { name: 'number', run: () => ({ reason: 42 }) },
        // @ts-expect-error: an answer is an object, not a bare decision
        { name: 'bare', run: () => 'block' },
      ],
    });
    const deps = testDeps(asyncScheduler, fakeExecutor({}));
    const session = createSession(registry, deps);
    const lines = await lastValueFrom(
      session
        .decide({ hook_event_name: 'PreToolUse' as const, session_id: 's', tool_name: 'x', tool_input: {} })
        .pipe(toArray()),
    );
    session.close();
    const decision = lines.at(-1);
    // 'deny' is a block: the chain stops at the first hook.
    expect(decision).toMatchObject({ type: 'hook_decision', decision: 'block', reason: 'no' });
  });
});
