import { defer, from, map, of, type Observable } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { runHooks } from '../../../operators/index.js';
import { translateDialect, type RunOne } from '../../../src/chain/translate-dialect.js';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookEmission } from '../../../src/exec/port.js';
import { failure, success, type HookResult, type HookRun } from '../../../src/protocol/index.js';
import { withPrinted, withReturned } from '../../../src/protocol/printed.js';
import { defineHooks } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'read_file',
  tool_input: { absolute_path: '/w/.env' },
};

const exit2 = (stderr: string): HookResult => failure('exit', 'exited with code 2', { exitCode: 2, stderr });

/** What a hook answers, and the events it was given, in order. */
const recording = (answer: (event: HookEvent) => Observable<HookEmission>) => {
  const seen: Record<string, unknown>[] = [];
  return {
    seen,
    behaviour: (event: HookEvent) => {
      seen.push(event as unknown as Record<string, unknown>);
      return answer(event);
    },
  };
};

const brief = (run: HookRun) =>
  `${run.hook.name}:${run.result.outcome}:${run.effective.decision}:${run.effective.reason ?? ''}`;

describe('translateDialect', () => {
  it('a claude hook gets the Claude event; its exit 2 is a block with the stderr reason', () => {
    const scheduler = createTestScheduler();
    const guard = recording(() => scheduler.createColdObservable('---x|', { x: exit2('no secrets\n') }));
    scheduler.run(({ expectObservable }) => {
      const out = from([commandHook('guard', { dialect: 'claude' })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ guard: guard.behaviour }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('---(b|)', { b: 'guard:ok:block:no secrets' });
    });
    expect(guard.seen).toStrictEqual([
      {
        ...pre,
        tool_name: 'Read',
        tool_input: { file_path: '/w/.env' },
        transcript_path: '',
        permission_mode: 'default',
      },
    ]);
  });

  it.each(['claude', 'gemini'] as const)(
    'a %s hook is never shown a decoy: file_path and absolute_path disagree, the hook is not run, the call is blocked',
    (dialect) => {
      const scheduler = createTestScheduler();
      const decoy: HookEvent = {
        ...pre,
        tool_input: { absolute_path: '/etc/shadow', file_path: '/w/notes.txt' },
      };
      scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const guard = cold('-a|', { a: results.allow() });
        const out = from([commandHook('guard', { dialect })]).pipe(
          runHooks(decoy, { executor: fakeExecutor({ guard }), scheduler }),
        );
        const reason =
          'tool_input of "read_file" gives file_path "/w/notes.txt" and absolute_path "/etc/shadow": ' +
          `the tool uses one of them; hook "guard" (${dialect} dialect) reads one name for it, so the call ` +
          'is blocked rather than judged on a value the tool may not use (docs/compat.md)';
        expectObservable(out.pipe(map(brief))).toBe('(g|)', { g: `guard:ok:block:${reason}` });
        expectSubscriptions(guard.subscriptions).toBe([]);
      });
    },
  );

  it('the same event runs a cosh hook as it is: it sees both fields', () => {
    const scheduler = createTestScheduler();
    const decoy: HookEvent = {
      ...pre,
      tool_input: { absolute_path: '/etc/shadow', file_path: '/w/notes.txt' },
    };
    const plain = recording(() => of(results.allow()));
    scheduler.run(({ expectObservable }) => {
      const out = from([commandHook('plain')]).pipe(
        runHooks(decoy, { executor: fakeExecutor({ plain: plain.behaviour }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('(p|)', { p: 'plain:ok:allow:' });
    });
    expect(plain.seen).toStrictEqual([decoy]);
  });

  it('a cosh hook gets the very event object; its exit 2 with a reason stays a failure that blocks, named', () => {
    const scheduler = createTestScheduler();
    const plain = recording(() => of(exit2('no')));
    scheduler.run(({ expectObservable }) => {
      const out = from([commandHook('plain')]).pipe(
        runHooks(pre, { executor: fakeExecutor({ plain: plain.behaviour }), scheduler }),
      );
      const named = (run: HookRun) => `${brief(run)}:${run.result.foreign === undefined ? '' : 'foreign'}`;
      expectObservable(out.pipe(map(named))).toBe('(p|)', { p: 'plain:exit:block:no:foreign' });
    });
    expect(plain.seen[0]).toBe(pre);
  });

  it('a timeout stays a timeout, and the hook is unsubscribed at its deadline', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('------x|', { x: exit2('late') });
      const out = from([commandHook('slow', { dialect: 'gemini', timeout: 3 })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ slow }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('---(t|)', { t: 'slow:timeout:none:' });
      expectSubscriptions(slow.subscriptions).toBe('^--!');
    });
  });

  it('unsubscribing cancels the wrapped run', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const hook = cold('-----x|', { x: results.allow() });
      const out = translateDialect(
        commandHook('h', { dialect: 'claude' }),
        pre,
        () => hook as Observable<HookResult>,
      );
      expectObservable(out, '--!').toBe('--');
      expectSubscriptions(hook.subscriptions).toBe('^-!');
    });
  });

  it('passes an error of the wrapped run on, untranslated (runHooks turns it into a failure)', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const hook = cold<HookResult>('--#', undefined, new Error('boom'));
      const out = translateDialect(commandHook('h', { dialect: 'gemini' }), pre, () => hook);
      expectObservable(out).toBe('--#', undefined, new Error('boom'));
      expectSubscriptions(hook.subscriptions).toBe('^-!');
    });
  });

  it('types: a hook, an event and a runner in, an Observable of HookResult out', () => {
    const run: RunOne = () => of(results.none());
    expectTypeOf(translateDialect(commandHook('h'), pre, run)).toEqualTypeOf<Observable<HookResult>>();
    expectTypeOf(translateDialect).parameter(2).toEqualTypeOf<RunOne>();
  });

  it('translates nothing before subscription', () => {
    let runs = 0;
    const out = translateDialect(commandHook('h', { dialect: 'claude' }), pre, () => {
      runs += 1;
      return of(results.none());
    });
    expect(runs).toBe(0);
    out.subscribe();
    expect(runs).toBe(1);
  });

  it('reads a printed Claude answer: permissionDecision deny', () => {
    const scheduler = createTestScheduler();
    const stdout =
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets"}}';
    const answer = () =>
      defer(() =>
        of(withPrinted(results.none({ hookSpecificOutput: JSON.parse(stdout).hookSpecificOutput }), stdout)),
      );
    scheduler.run(({ expectObservable }) => {
      const out = from([commandHook('g', { dialect: 'claude' })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ g: answer }), scheduler }),
      );
      expectObservable(out.pipe(map(brief))).toBe('(g|)', { g: 'g:ok:block:secrets' });
    });
  });

  it('knows no hook kind: a function hook goes to the runner as it is, and its answer is read from the result', () => {
    const hook = defineHooks({
      PreToolUse: [
        {
          name: 'fn',
          dialect: 'claude',
          run: () => {
            throw new Error('the runner (the executor port) calls it, not translateDialect');
          },
        },
      ],
    }).PreToolUse[0]!;
    const given: unknown[] = [];
    const returned = { continue: false, stopReason: 'Quota reached' };
    const results: HookResult[] = [];
    translateDialect(hook, pre, (h, event) => {
      given.push(h, (event as unknown as Record<string, unknown>)['tool_name']);
      return of(withReturned(success({ decision: 'none' }), returned));
    }).subscribe((result) => results.push(result));
    expect(given).toStrictEqual([hook, 'Read']);
    expect(given[0]).toBe(hook);
    expect(results).toStrictEqual([
      {
        outcome: 'ok',
        output: {
          decision: 'block',
          reason: 'Quota reached',
          hookSpecificOutput: { continue: false, stop_reason: 'Quota reached' },
        },
      },
    ]);
  });

  it('in-process hooks speak a dialect too: Claude event in, continue:false read from the returned value', async () => {
    const seen: HookEvent[] = [];
    const registry = defineHooks({
      PreToolUse: [
        {
          name: 'fn',
          dialect: 'claude',
          run: (event) => {
            seen.push(event);
            return Promise.resolve({ continue: false, stopReason: 'Quota reached' });
          },
        },
      ],
    });
    const scheduler = createTestScheduler();
    const runs: HookRun[] = [];
    await new Promise<void>((done) =>
      from(registry.PreToolUse)
        .pipe(runHooks(pre, { executor: fakeExecutor({}), scheduler }))
        .subscribe({ next: (run) => runs.push(run), complete: done }),
    );
    expect((seen[0] as unknown as Record<string, unknown>)['tool_name']).toBe('Read');
    expect(runs.map((run) => run.result)).toStrictEqual([
      {
        outcome: 'ok',
        output: {
          decision: 'block',
          reason: 'Quota reached',
          hookSpecificOutput: { continue: false, stop_reason: 'Quota reached' },
        },
      },
    ]);
  });
});
