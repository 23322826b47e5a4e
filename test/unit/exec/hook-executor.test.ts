// The executor port for every hook kind (`hookExecutor`): command and function hooks through one
// port, in virtual time, in the style of RxJS's operator specs (subscriptions asserted, an error
// case, an explicit-unsubscribe case, type tests).
import { asapScheduler, firstValueFrom, from, map, NEVER, toArray, type Observable } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { runHooks } from '../../../operators/index.js';
import { runHook } from '../../../operators/runHooks.js';
import type { HookEvent } from '../../../src/events/index.js';
import { processExecutor } from '../../../src/exec/process-executor.js';
import { runFunctionHook } from '../../../src/exec/function-hook.js';
import { hookExecutor } from '../../../src/exec/hook-executor.js';
import {
  openRun,
  type CommandExecutor,
  type ExecutorRun,
  type HookEmission,
  type HookExecutor,
  type RunScopedExecutor,
} from '../../../src/exec/port.js';
import type { HookResult, HookRun } from '../../../src/protocol/index.js';
import {
  defineHooks,
  type FunctionHook,
  type Hook,
  type HookFunctionValue,
} from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  progress,
  results,
} from '../../../src/testing/index.js';

const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: 'ls' },
};

/** A function hook as `defineHooks` makes it. */
const functionHook = (name: string, run: FunctionHook['run'], timeout?: number): FunctionHook => {
  const hook = defineHooks({ PreToolUse: [{ name, run, ...(timeout !== undefined && { timeout }) }] })
    .PreToolUse[0];
  if (hook?.kind !== 'function') throw new Error('expected a function hook');
  return hook;
};

/** A command executor playing one cold script per hook name (the process side, in virtual time). */
const scripted =
  (scripts: Readonly<Record<string, Observable<HookEmission>>>): CommandExecutor =>
  (hook) => {
    const script = scripts[hook.name];
    if (script === undefined) throw new Error(`no script for ${hook.name}`);
    return script;
  };

const brief = (run: HookRun) =>
  `${run.hook.name}:${run.result.outcome}:${run.effective.decision}@${run.durationMs}`;

describe('hookExecutor', () => {
  it('routes each hook to its kind: command hooks to the command executor, function hooks in process', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const cmd = cold('-p--A|', { p: progress.stderr('working'), A: results.allow() });
      const fn = cold('--x|', { x: { decision: 'block', reason: 'no' } as const });
      const executor = hookExecutor(scripted({ cmd }));
      expectObservable(executor(commandHook('cmd'), pre)).toBe('-p--A|', {
        p: progress.stderr('working'),
        A: results.allow(),
      });
      // Only a function hook's first value counts: its Observable is done with at that value.
      expectObservable(
        executor(
          functionHook('fn', () => fn),
          pre,
        ),
      ).toBe('--(x|)', {
        x: results.block('no'),
      });
      expectSubscriptions(cmd.subscriptions).toBe('^----!');
      expectSubscriptions(fn.subscriptions).toBe('^-!');
    });
  });

  it('is cold: nothing runs before subscribe, and each subscription runs the hook again', () => {
    const calls: string[] = [];
    const executor = hookExecutor(scripted({}));
    const hook = functionHook('count', (event) => {
      calls.push(event.hook_event_name);
      return { decision: 'allow' };
    });
    const run$ = executor(hook, pre);
    expect(calls).toEqual([]);
    run$.subscribe();
    run$.subscribe();
    expect(calls).toEqual(['PreToolUse', 'PreToolUse']);
  });

  it('runs command and function hooks of one chain through one port, in order, each under its timeout', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const cmd = cold('--A|', { A: results.allow() });
      const fn = cold('---x|', { x: { decision: 'ask' } as const });
      const chain: Hook[] = [commandHook('cmd'), functionHook('fn', () => fn), commandHook('cmd')];
      const out = from(chain).pipe(runHooks(pre, { executor: hookExecutor(scripted({ cmd })), scheduler }));
      expectObservable(out.pipe(map(brief))).toBe('--a--b-(c|)', {
        a: 'cmd:ok:allow@2',
        b: 'fn:ok:ask@3',
        c: 'cmd:ok:allow@2',
      });
      expectSubscriptions(cmd.subscriptions).toBe(['^-!', '-----^-!']);
      expectSubscriptions(fn.subscriptions).toBe('--^--!');
    });
  });

  it('a function hook that misses its deadline is a timeout at the exact frame, and unsubscribed there', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('------x|', { x: { decision: 'block' } as const });
      const next = cold('-n|', { n: results.none() });
      const chain: Hook[] = [functionHook('slow', () => slow, 3), commandHook('next')];
      const out = from(chain).pipe(runHooks(pre, { executor: hookExecutor(scripted({ next })), scheduler }));
      expectObservable(out.pipe(map(brief))).toBe('---t(n|)', {
        t: 'slow:timeout:none@3',
        n: 'next:ok:none@1',
      });
      expectSubscriptions(slow.subscriptions).toBe('^--!');
      expectSubscriptions(next.subscriptions).toBe('---^!');
    });
    expect(scheduler.run(() => 0)).toBe(0);
  });

  it('a timed-out function hook carries the timeout message', async () => {
    const scheduler = createTestScheduler();
    let result: HookResult | undefined;
    scheduler.run(({ flush }) => {
      runHook(
        functionHook('hangs', () => NEVER, 5),
        pre,
        {
          executor: hookExecutor(scripted({})),
          scheduler,
        },
      ).subscribe((answered) => (result = answered));
      flush();
    });
    expect(result).toEqual(results.fail('timeout', 'timed out after 5 ms'));
  });

  it('unsubscribing cancels the running hook, of either kind', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const cmd = cold('-----A|', { A: results.allow() });
      const fn = cold('-----x|', { x: { decision: 'allow' } as const });
      const executor = hookExecutor(scripted({ cmd }));
      expectObservable(executor(commandHook('cmd'), pre), '^--!').toBe('---');
      expectObservable(
        executor(
          functionHook('fn', () => fn),
          pre,
        ),
        '^-!',
      ).toBe('--');
      expectSubscriptions(cmd.subscriptions).toBe('^--!');
      expectSubscriptions(fn.subscriptions).toBe('^-!');
    });
  });

  it('unsubscribing a chain mid-function-hook cancels it and never starts the next hook', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const fn = cold('----x|', { x: { decision: 'allow' } as const });
      const cmd = cold('-A|', { A: results.allow() });
      const chain: Hook[] = [functionHook('fn', () => fn), commandHook('cmd')];
      const out = from(chain).pipe(runHooks(pre, { executor: hookExecutor(scripted({ cmd })), scheduler }));
      expectObservable(out.pipe(map(brief)), '^--!').toBe('---');
      expectSubscriptions(fn.subscriptions).toBe('^--!');
      expectSubscriptions(cmd.subscriptions).toBe([]);
    });
  });

  it('a function hook that throws, or whose Observable errors (#), is an `exception` result: the port never errors', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const broken = cold<HookFunctionValue>('--#', undefined, new Error('stream broke'));
      const executor = hookExecutor(scripted({}));
      const throws = functionHook('throws', () => {
        throw new Error('bug in the hook');
      });
      expectObservable(executor(throws, pre)).toBe('(e|)', {
        e: results.fail('exception', 'threw: bug in the hook'),
      });
      expectObservable(
        executor(
          functionHook('errors', () => broken),
          pre,
        ),
      ).toBe('--(e|)', {
        e: results.fail('exception', 'threw: stream broke'),
      });
      expectSubscriptions(broken.subscriptions).toBe('^-!');
    });
  });

  it('a function hook that rejects, or throws a non-Error, is an `exception` result too', async () => {
    const executor = hookExecutor(scripted({}));
    const rejects = functionHook('rejects', () => Promise.reject(new Error('async bug')));
    const throwsString = functionHook('throws-string', () => {
      throw 'plain string'; // a JS host may throw anything
    });
    expect(await firstValueFrom(executor(rejects, pre))).toEqual(
      results.fail('exception', 'threw: async bug'),
    );
    expect(await firstValueFrom(executor(throwsString, pre))).toEqual(
      results.fail('exception', 'threw: plain string'),
    );
    const unprintable = functionHook('unprintable', () => Promise.reject(Object.create(null)));
    expect(await firstValueFrom(executor(unprintable, pre))).toEqual(
      results.fail('exception', 'threw: an unprintable value was thrown'),
    );
  });

  it('a returned value whose `then` getter throws is an `exception` result, not an error of the port', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const hostile = {
        get then(): unknown {
          throw new Error('then getter');
        },
      };
      const hook = functionHook('hostile', () => hostile as unknown as HookFunctionValue);
      expectObservable(hookExecutor(scripted({}))(hook, pre)).toBe('(e|)', {
        e: results.fail('exception', 'threw: then getter'),
      });
    });
  });

  it('an erroring command executor (breaking the contract) still gives one `exception` run', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const cmd = cold<HookEmission>('-#', undefined, new Error('adapter bug'));
      const out = from([commandHook('cmd')]).pipe(
        runHooks(pre, { executor: hookExecutor(scripted({ cmd })), scheduler }),
      );
      expectObservable(out.pipe(map((run) => run.result))).toBe('-(e|)', {
        e: results.fail('exception', 'threw: adapter bug'),
      });
    });
  });

  it('opens a run of a run-scoped command executor, and ends it with the composed run', () => {
    const log: string[] = [];
    let runs = 0;
    const perRun =
      (id: number): CommandExecutor =>
      (hook) => {
        log.push(`run ${id}: ${hook.name}`);
        return from([results.allow()]);
      };
    const commands: RunScopedExecutor<CommandExecutor> = Object.assign(perRun(0), {
      openRun: (): ExecutorRun<CommandExecutor> => {
        const id = (runs += 1);
        log.push(`open ${id}`);
        return { executor: perRun(id), unsubscribe: () => log.push(`end ${id}`) };
      },
    });
    const executor = hookExecutor(commands);
    const fn = functionHook('fn', () => ({ decision: 'allow' }));
    executor(commandHook('outside'), pre).subscribe();
    const run = openRun(executor);
    run.executor(commandHook('a'), pre).subscribe();
    run.executor(fn, pre).subscribe();
    run.executor(commandHook('b'), pre).subscribe();
    run.unsubscribe();
    expect(log).toEqual(['run 0: outside', 'open 1', 'run 1: a', 'run 1: b', 'end 1']);
  });

  it('keeps a plain command executor plain inside a run', () => {
    const seen: string[] = [];
    const commands: CommandExecutor = (hook) => {
      seen.push(hook.name);
      return from([results.none()]);
    };
    const run = openRun(hookExecutor(commands));
    run.executor(commandHook('a'), pre).subscribe();
    run.unsubscribe();
    run.executor(commandHook('b'), pre).subscribe();
    expect(seen).toEqual(['a', 'b']);
  });

  it('processExecutor() is the port for function hooks too, inside and outside a run (0.1 hosts pass it as is)', async () => {
    const executor = processExecutor();
    const hook = functionHook('fn', (event) => ({ decision: 'block', reason: event.hook_event_name }));
    expect(await firstValueFrom(executor(hook, pre).pipe(toArray()))).toEqual([results.block('PreToolUse')]);
    const run = openRun(executor);
    try {
      expect(await firstValueFrom(run.executor(hook, pre).pipe(toArray()))).toEqual([
        results.block('PreToolUse'),
      ]);
    } finally {
      run.unsubscribe();
    }
  });

  it('types: one port for every kind; a command-only executor is not one until composed', () => {
    const commands: CommandExecutor = scripted({});
    expectTypeOf(hookExecutor(commands)).toEqualTypeOf<RunScopedExecutor>();
    expectTypeOf(hookExecutor(commands)).toMatchTypeOf<HookExecutor>();
    expectTypeOf(processExecutor()).toEqualTypeOf<RunScopedExecutor>();
    expectTypeOf(fakeExecutor({})).toEqualTypeOf<HookExecutor>();
    expectTypeOf(runFunctionHook).parameter(0).toEqualTypeOf<FunctionHook>();
    expectTypeOf(openRun(hookExecutor(commands))).toEqualTypeOf<ExecutorRun<RunScopedExecutor>>();
    // @ts-expect-error -- an executor of command hooks only cannot be given a function hook
    const port: HookExecutor = commands;
    expect(typeof port).toBe('function');
    // @ts-expect-error -- the function runner is not a command executor
    hookExecutor(runFunctionHook);
    runHooks(pre, { executor: hookExecutor(commands), scheduler: asapScheduler });
    // @ts-expect-error -- operators take the port, not a command-only executor
    runHooks(pre, { executor: commands, scheduler: asapScheduler });
  });
});

describe('fakeExecutor and function hooks', () => {
  it('plays a function hook by its name when scripted (its function never runs), in virtual time', () => {
    const scheduler = createTestScheduler();
    let called = false;
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const fn = cold('---B|', { B: results.block('scripted') });
      const hook = functionHook('fn', () => {
        called = true;
        return { decision: 'allow' };
      });
      expectObservable(fakeExecutor({ fn })(hook, pre)).toBe('---B|', { B: results.block('scripted') });
      expectSubscriptions(fn.subscriptions).toBe('^---!');
    });
    expect(called).toBe(false);
  });

  it('runs an unscripted function hook in process; an unscripted command hook fails as `spawn`', async () => {
    const executor = fakeExecutor({});
    const fn = functionHook('fn', (event) => ({
      decision: 'block',
      reason: `saw ${event.hook_event_name}`,
    }));
    expect(await firstValueFrom(executor(fn, pre).pipe(toArray()))).toEqual([
      results.block('saw PreToolUse'),
    ]);
    expect(await firstValueFrom(executor(commandHook('cmd'), pre))).toEqual(
      results.fail('spawn', 'no fake behaviour for hook "cmd"'),
    );
  });

  it('a script named like an Object.prototype member is not found on the prototype', async () => {
    expect(await firstValueFrom(fakeExecutor({})(commandHook('toString'), pre))).toEqual(
      results.fail('spawn', 'no fake behaviour for hook "toString"'),
    );
  });
});
