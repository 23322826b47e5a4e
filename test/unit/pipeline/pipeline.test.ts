import { map } from 'rxjs';
import type { EventInput } from '../../../src/events/codecs.js';
import { describe, expect, it } from 'vitest';
import { JsonLine } from '../../../src/events/index.js';
import type { OutputLine } from '../../../src/output/index.js';
import { hookPipeline } from '../../../src/pipeline/index.js';
import { defineHooks, registryOf, type Hook } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  event,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

type FakeBehaviours = Parameters<typeof fakeExecutor>[0];

const at = { cwd: '/', timestamp: '2026-07-01T10:00:00Z' };
const pre = (session: string, command: string, id = command) =>
  event('PreToolUse', {
    ...at,
    session_id: session,
    tool_use_id: id,
    tool_name: 'shell',
    tool_input: { command },
  });
const start = (session: string) => event('SessionStart', { ...at, session_id: session });

/** Compact form of output lines: N:hook:decision, D<seq>:decision[hooks], E<line|index>. */
const brief = (line: OutputLine): string => {
  switch (line.type) {
    case 'stream_event':
      return `N:${line.event.hook_name}:${line.event.decision}`;
    case 'hook_decision':
      return `D${line.seq}:${line.decision}[${line.hooks.map((h) => `${h.name}=${h.outcome}`).join(',')}]`;
    case 'hook_error':
      return `E${line.line ?? line.index}`;
  }
};

const chains = (pre: readonly Hook[], start: readonly Hook[] = []) =>
  registryOf((name) => (name === 'PreToolUse' ? pre : name === 'SessionStart' ? start : []));

const setup = (scheduler: ReturnType<typeof createTestScheduler>, behaviours: FakeBehaviours) =>
  testDeps(scheduler, fakeExecutor(behaviours));

describe('hookPipeline (marbles)', () => {
  it('keeps order across hooks and events: notifications of N, decision N, then hooks of N+1', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('--g|', { g: results.allow({ systemMessage: 'checked' }) });
      const audit = cold('-a|', { a: results.none() });
      const registry = chains([commandHook('guard'), commandHook('audit')]);
      const input = hot('-x-y--------|', { x: pre('s', 'ls'), y: pre('s', 'pwd') });
      const { output$ } = hookPipeline(registry, setup(scheduler, { guard, audit }))(input);
      expectObservable(output$.pipe(map(brief))).toBe('---ab-cd----|', {
        a: 'N:guard:allow',
        b: 'D1:allow[guard=ok,audit=ok]',
        c: 'N:guard:allow',
        d: 'D2:allow[guard=ok,audit=ok]',
      });
      // guard of event 2 starts only once decision 1 is out (frame 4), although event 2 arrived at 3.
      expectSubscriptions(guard.subscriptions).toBe(['-^-!', '----^-!']);
      expectSubscriptions(audit.subscriptions).toBe(['---^!', '------^!']);
    });
  });

  it('short-circuits on block: later hooks are never subscribed and are reported skipped', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('-g|', {
        g: results.block('Dangerous rm -rf command', { systemMessage: 'Command blocked' }),
      });
      const audit = cold('-a|', { a: results.allow() });
      const registry = chains([commandHook('guard'), commandHook('audit', { source: 'extension:sec' })]);
      const input = hot('-x-------|', { x: pre('s', 'rm -rf /') });
      const { output$ } = hookPipeline(registry, setup(scheduler, { guard, audit }))(input);
      expectObservable(output$).toBe('--(nd)---|', {
        n: {
          type: 'stream_event',
          event: {
            subtype: 'hook_notification',
            hook_name: 'guard',
            message: 'Command blocked',
            decision: 'block',
            hook_event_name: 'PreToolUse' as const,
            session_id: 's',
            tool_use_id: 'rm -rf /',
          },
        },
        d: {
          type: 'hook_decision',
          seq: 1,
          hook_event_name: 'PreToolUse' as const,
          session_id: 's',
          tool_use_id: 'rm -rf /',
          decision: 'block',
          reason: 'Dangerous rm -rf command',
          systemMessage: 'Command blocked',
          hooks: [
            { name: 'guard', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 },
            { name: 'audit', source: 'extension:sec', outcome: 'skipped' },
          ],
        },
      });
      expectSubscriptions(guard.subscriptions).toBe('-^!');
      expectSubscriptions(audit.subscriptions).toBe([]);
    });
  });

  it('times a hook out at the exact virtual frame, unsubscribes it, and goes on', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const slow = cold('-------------s|', { s: results.block('too late') });
      const next = cold('-n|', { n: results.allow() });
      const registry = chains([commandHook('slow', { timeout: 5 }), commandHook('next')]);
      const input = hot('x-------|', { x: pre('s', 'ls') });
      const { output$ } = hookPipeline(registry, setup(scheduler, { slow, next }))(input);
      expectObservable(output$.pipe(map(brief))).toBe('-----td-|', {
        t: 'N:slow:error',
        d: 'D1:allow[slow=timeout,next=ok]',
      });
      expectSubscriptions(slow.subscriptions).toBe('^----!');
      expectSubscriptions(next.subscriptions).toBe('-----^!');
    });
  });

  it('a failure is a value: the next hook and the next event still run', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const flaky = cold('-f|', { f: results.fail('exit', 'exited with code 1: oops') });
      const ok = cold('-o|', { o: results.ask({ reason: 'confirm?' }) });
      const registry = chains([commandHook('flaky'), commandHook('ok')]);
      const input = hot('x-------y-----|', { x: pre('s', 'a'), y: pre('s', 'b') });
      const { output$ } = hookPipeline(registry, setup(scheduler, { flaky, ok }))(input);
      expectObservable(output$.pipe(map(brief))).toBe('-a(bc)---f(gh)|', {
        a: 'N:flaky:error',
        b: 'N:ok:ask',
        c: 'D1:ask[flaky=exit,ok=ok]',
        f: 'N:flaky:error',
        g: 'N:ok:ask',
        h: 'D2:ask[flaky=exit,ok=ok]',
      });
    });
  });

  it('runs every hook on a non-interceptable event, even when they say block', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const loader = cold('-l|', {
        l: results.block('ignored', { hookSpecificOutput: { additional_context: 'repo: cosh' } }),
      });
      const audit = cold('-a|', {
        a: results.none({ hookSpecificOutput: { additionalContext: 'user: ada' } }),
      });
      const registry = chains([], [commandHook('loader'), commandHook('audit')]);
      const input = hot('x---|', { x: start('s') });
      const { decisions$ } = hookPipeline(registry, setup(scheduler, { loader, audit }))(input);
      expectObservable(decisions$).toBe('--d-|', {
        d: {
          type: 'hook_decision',
          seq: 1,
          hook_event_name: 'SessionStart' as const,
          session_id: 's',
          decision: 'none',
          additional_context: 'repo: cosh\nuser: ada',
          hooks: [
            { name: 'loader', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 1 },
            { name: 'audit', source: 'config', decision: 'none', outcome: 'ok', duration_ms: 1 },
          ],
        },
      });
      expectSubscriptions(audit.subscriptions).toBe('-^!');
    });
  });

  it('aggregates ask over allow, allow over none', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const behaviours = {
        allow: cold('a|', { a: results.allow() }),
        ask: cold('a|', { a: results.ask() }),
        none: cold('a|', { a: results.none() }),
      };
      const registry = defineHooks({
        PreToolUse: [
          { name: 'allow', command: 'x', matcher: '^(both|allowed)$' },
          { name: 'ask', command: 'x', matcher: '^both$' },
          { name: 'none', command: 'x' },
        ],
      });
      const event = (tool: string) => ({ ...pre('s', tool), tool_name: tool });
      const input = hot('a-b-c-|', { a: event('both'), b: event('allowed'), c: event('other') });
      const { decisions$ } = hookPipeline(registry, setup(scheduler, behaviours))(input);
      expectObservable(decisions$.pipe(map(brief))).toBe('a-b-c-|', {
        a: 'D1:ask[allow=ok,ask=ok,none=ok]',
        b: 'D2:allow[allow=ok,none=ok]',
        c: 'D3:none[none=ok]',
      });
    });
  });

  it('events with no hooks decide none in the same frame; bad input becomes hook_error in order', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const input = hot('abcd|', {
        a: new JsonLine(1, JSON.stringify(start('s'))),
        b: new JsonLine(3, '{oops'),
        c: { hook_event_name: 'Nope', session_id: 's' } as unknown as EventInput, // checked at run time
        d: start('s'),
      });
      const { output$, errors$ } = hookPipeline(chains([]), setup(scheduler, {}))(input);
      expectObservable(output$.pipe(map(brief))).toBe('abcd|', {
        a: 'D1:none[]',
        b: 'E3',
        c: 'E3',
        d: 'D2:none[]',
      });
      const where = (e: { line?: number; index?: number; message: string }) =>
        `${e.line !== undefined ? `line ${e.line}` : `item ${e.index}`} ${e.message.split(':')[0]}`;
      expectObservable(errors$.pipe(map(where))).toBe('-bc-|', {
        b: 'line 3 not JSON',
        c: 'item 3 hook_event_name',
      });
    });
  });

  it('unsubscribing early tears down the running hook', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const long = cold('----------l|', { l: results.allow() });
      const input = hot('-x-------|', { x: pre('s', 'ls') });
      const { output$ } = hookPipeline(chains([commandHook('long')]), setup(scheduler, { long }))(input);
      expectObservable(output$, '^--!').toBe('----');
      expectSubscriptions(long.subscriptions).toBe('-^-!');
    });
  });

  it('per-session concurrency: sessions overlap, one session never does', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const hook = cold('---h|', { h: results.allow() });
      const input = hot('ab-c------|', { a: pre('A', 'a1'), b: pre('B', 'b1'), c: pre('A', 'a2') });
      const deps = setup(scheduler, { hook });
      const registry = chains([commandHook('hook')]);
      const perSession = hookPipeline(registry, deps, { concurrency: 'per-session' })(input);
      expectObservable(perSession.decisions$.pipe(map((d) => `${d.seq}:${d.tool_use_id}`))).toBe(
        '---ab-c---|',
        {
          a: '1:a1',
          b: '2:b1',
          c: '3:a2',
        },
      );
    });
  });

  it('sequential (default) concurrency never overlaps, whatever the session', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const hook = cold('---h|', { h: results.allow() });
      const input = hot('ab-c--------|', { a: pre('A', 'a1'), b: pre('B', 'b1'), c: pre('A', 'a2') });
      const { decisions$ } = hookPipeline(chains([commandHook('hook')]), setup(scheduler, { hook }))(input);
      expectObservable(decisions$.pipe(map((d) => d.tool_use_id))).toBe('---a--b--c--|', {
        a: 'a1',
        b: 'b1',
        c: 'a2',
      });
    });
  });

  it('decisions$ and notifications$ share one run of the hooks', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('-g|', { g: results.block('no') });
      const input = hot('-x--|', { x: pre('s', 'rm') });
      const streams = hookPipeline(chains([commandHook('guard')]), setup(scheduler, { guard }))(input);
      expectObservable(streams.notifications$.pipe(map(brief))).toBe('--n-|', { n: 'N:guard:block' });
      expectObservable(streams.decisions$.pipe(map(brief))).toBe('--d-|', { d: 'D1:block[guard=ok]' });
      expectSubscriptions(guard.subscriptions).toBe('-^!');
    });
  });
});

describe('hookPipeline outputs never error because of a hook', () => {
  it('a throwing function hook and a hostile return value still produce one decision per event', async () => {
    const { firstValueFrom, of, toArray } = await import('rxjs');
    const registry = defineHooks({
      UserPromptSubmit: [
        {
          name: 'throws',
          run: () => {
            throw new Error('bug');
          },
        },
        { name: 'rejects', run: () => Promise.reject(new Error('async bug')) },
        { name: 'array', run: () => [1, 2] as unknown as undefined },
        { name: 'blocks', run: async () => ({ decision: 'reject', reason: 'policy' }) },
      ],
    });
    const deps = testDeps((await import('rxjs')).asyncScheduler, fakeExecutor({}));
    const event = { hook_event_name: 'UserPromptSubmit' as const, session_id: 's', prompt: 'hi' };
    const lines = await firstValueFrom(
      hookPipeline(registry, deps)(of(event, event)).output$.pipe(toArray()),
    );
    expect(lines.map(brief)).toEqual([
      'N:throws:error',
      'N:rejects:error',
      'N:array:error',
      'N:blocks:block',
      'D1:block[throws=exception,rejects=exception,array=invalid_output,blocks=ok]',
      'N:throws:error',
      'N:rejects:error',
      'N:array:error',
      'N:blocks:block',
      'D2:block[throws=exception,rejects=exception,array=invalid_output,blocks=ok]',
    ]);
  });
});

describe('hookPipeline shares one run', () => {
  it('a stream subscribed after a synchronous run ended only completes: hooks never run twice', async () => {
    const { of } = await import('rxjs');
    let runs = 0;
    const registry = defineHooks({
      Stop: [{ name: 'count', run: () => ({ decision: 'allow', systemMessage: `run ${++runs}` }) }],
    });
    const deps = testDeps((await import('rxjs')).asyncScheduler, fakeExecutor({}));
    const stop = { hook_event_name: 'Stop' as const, session_id: 's' };
    const streams = hookPipeline(registry, deps)(of(stop, stop));
    const decisions: string[] = [];
    const notifications: string[] = [];
    let lateCompleted = false;
    streams.decisions$.subscribe((d) => decisions.push(brief(d)));
    streams.notifications$.subscribe({
      next: (n) => notifications.push(brief(n)),
      complete: () => (lateCompleted = true),
    });
    expect(decisions).toEqual(['D1:allow[count=ok]', 'D2:allow[count=ok]']);
    expect(runs).toBe(2);
    expect(notifications).toEqual([]);
    expect(lateCompleted).toBe(true);
  });
});

describe('hookPipeline: a run-scoped executor lives as long as the run (marbles)', () => {
  /** The fake executor, with `openRun` recording when runs open and end (virtual frames). */
  const scoped = (scheduler: ReturnType<typeof createTestScheduler>, behaviours: FakeBehaviours) => {
    const log: string[] = [];
    const executor = fakeExecutor(behaviours);
    const openRun = () => {
      log.push(`open@${scheduler.now()}`);
      return { executor, unsubscribe: () => log.push(`end@${scheduler.now()}`) };
    };
    return { log, deps: testDeps(scheduler, Object.assign(executor, { openRun })) };
  };

  it('opens the run at subscribe, once for every output stream, and ends it when the input completes', () => {
    const scheduler = createTestScheduler();
    let log: string[] = [];
    scheduler.run(({ cold, hot, expectObservable }) => {
      const run = scoped(scheduler, { guard: cold('--g|', { g: results.allow() }) });
      log = run.log;
      const input = hot('-x-----|', { x: pre('s', 'ls') });
      const streams = hookPipeline(chains([commandHook('guard')]), run.deps)(input);
      expectObservable(streams.output$.pipe(map(brief))).toBe('---b---|', { b: 'D1:allow[guard=ok]' });
      expectObservable(streams.decisions$.pipe(map(brief))).toBe('---b---|', { b: 'D1:allow[guard=ok]' });
    });
    expect(log).toEqual(['open@0', 'end@7']);
  });

  it('ends the run at unsubscribe, with a hook still running', () => {
    const scheduler = createTestScheduler();
    let log: string[] = [];
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('------g|', { g: results.allow() });
      const run = scoped(scheduler, { guard });
      log = run.log;
      const input = hot('-x------|', { x: pre('s', 'ls') });
      const { output$ } = hookPipeline(chains([commandHook('guard')]), run.deps)(input);
      expectObservable(output$.pipe(map(brief)), '^---!').toBe('-----');
      expectSubscriptions(guard.subscriptions).toBe('-^--!');
    });
    expect(log).toEqual(['open@0', 'end@4']);
  });
});
