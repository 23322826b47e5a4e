import { map, of, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { auditConfigRecord } from '../../../src/audit/build.js';
import type { AuditConfigRecord, AuditRecord } from '../../../src/audit/records.js';
import type { HookEvent } from '../../../src/events/codecs.js';
import { createDispatcher } from '../../../src/pipeline/dispatch.js';
import { hookPipeline } from '../../../src/pipeline/pipeline.js';
import { createSession } from '../../../src/pipeline/session.js';
import { defineHooks, registryOf, type Hook } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

const pre = (command: string, extra: Record<string, unknown> = {}) => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's1',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: 't1',
  tool_name: 'shell',
  tool_input: { command },
  ...extra,
});

const chainOf = (hooks: readonly Hook[]) => registryOf((name) => (name === 'PreToolUse' ? hooks : []));

/** A text as a test compares it: a redacted secret shows as `<secret>`, whatever prefix the redactor keeps. */
const shown = (text: string) => text.replace(/(AKIA|ghp_)?<redacted>/g, '<secret>');

const ids = { seq: 1, hook_event_name: 'PreToolUse' as const, session_id: 's1', tool_use_id: 't1' } as const;

describe('the audit stream (marbles)', () => {
  it('chain [A allow, B block, C]: A allow, B block with its reason, C skipped, then the final block, with their virtual times, all after the decision', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('--a|', { a: results.allow() });
      const b = cold('---b|', { b: results.block('rm -rf is not allowed', { systemMessage: 'Blocked' }) });
      const c = cold('-c|', { c: results.allow() });
      const registry = chainOf([
        commandHook('A'),
        commandHook('B'),
        commandHook('C', { source: 'extension:x' }),
      ]);
      const input = hot('-x------------|', { x: pre('rm -rf /') });
      const streams = hookPipeline(registry, testDeps(scheduler, fakeExecutor({ A: a, B: b, C: c })))(input);
      expectObservable(streams.audit$).toBe('------(rabsd)-|', {
        r: {
          type: 'audit',
          record: 'event_received',
          time_ms: 1,
          ...ids,
          tool_name: 'shell',
          chain: ['A', 'B', 'C'],
        },
        a: {
          type: 'audit',
          record: 'hook_result',
          time_ms: 3,
          ...ids,
          hook: 'A',
          source: 'config',
          position: 0,
          start_ms: 1,
          end_ms: 3,
          duration_ms: 2,
          outcome: 'ok',
          decision: 'allow',
          effective: 'allow',
        },
        b: {
          type: 'audit',
          record: 'hook_result',
          time_ms: 6,
          ...ids,
          hook: 'B',
          source: 'config',
          position: 1,
          start_ms: 3,
          end_ms: 6,
          duration_ms: 3,
          outcome: 'ok',
          decision: 'block',
          reason: 'rm -rf is not allowed',
          message: 'Blocked',
          effective: 'block',
        },
        s: {
          type: 'audit',
          record: 'hook_skipped',
          time_ms: 6,
          ...ids,
          hook: 'C',
          source: 'extension:x',
          position: 2,
          blocked_by: 'B',
        },
        d: {
          type: 'audit',
          record: 'decision',
          time_ms: 6,
          ...ids,
          decision: 'block',
          reason: 'rm -rf is not allowed',
          system_message: 'Blocked',
          decided_by: 'B',
          hooks_run: 2,
          hooks_skipped: 1,
          duration_ms: 5,
        },
      });
      expectObservable(streams.decisions$.pipe(map((d) => `${d.decision}`))).toBe('------x-------|', {
        x: 'block',
      });
      expectSubscriptions(a.subscriptions).toBe('-^-!');
      expectSubscriptions(b.subscriptions).toBe('---^--!');
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('a failure is recorded with its kind and redacted message; output$ carries no audit record', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const a = cold('-a|', { a: results.fail('exit', 'exited with status 3: key AKIAIOSFODNN7EXAMPLE') });
      const input = hot('x-----|', { x: pre('ls') });
      const streams = hookPipeline(
        chainOf([commandHook('A')]),
        testDeps(scheduler, fakeExecutor({ A: a })),
      )(input);
      expectObservable(
        streams.audit$.pipe(
          map((r) =>
            r.record === 'hook_result'
              ? shown(`${r.outcome}|${r.failure_kind}|${r.message}|${r.effective}`)
              : r.record,
          ),
        ),
      ).toBe('-(rhd)|', {
        r: 'event_received',
        h: 'exit|exit|exited with status 3: key <secret>|none',
        d: 'decision',
      });
      expectObservable(streams.output$.pipe(map((line) => line.type))).toBe('-(nd)-|', {
        n: 'stream_event',
        d: 'hook_decision',
      });
    });
  });

  it('ids that hold a secret are redacted in every record', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const input = hot('x----|', {
        x: pre('ls', {
          session_id: 'AKIAIOSFODNN7EXAMPLE',
          tool_name: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
        }),
      });
      const streams = hookPipeline(chainOf([]), testDeps(scheduler, fakeExecutor({})))(input);
      expectObservable(
        streams.audit$.pipe(
          map((r) =>
            shown(
              `${r.record}:${'session_id' in r ? r.session_id : ''}:${'tool_name' in r ? r.tool_name : ''}`,
            ),
          ),
        ),
      ).toBe('(rd)-|', { r: 'event_received:<secret>:<secret>', d: 'decision:<secret>:' });
    });
  });

  it('a slow observer adds no virtual time to the decision, gets the blocked event with cosh_decision, and only the audit hears of it', () => {
    const scheduler = createTestScheduler();
    const seen: unknown[] = [];
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guard = cold('--g|', { g: results.block('no') });
      const slow = (event: HookEvent) => {
        seen.push((event as unknown as Record<string, unknown>)['cosh_decision']);
        return cold('-----------------------------o|', { o: results.fail('exit', 'observer broke') });
      };
      const registry = chainOf([commandHook('guard'), commandHook('logger', { observe: true })]);
      const input = hot('x---------|', { x: pre('rm -rf /') });
      const withObserver = hookPipeline(
        registry,
        testDeps(scheduler, fakeExecutor({ guard, logger: slow })),
      )(input);
      expectObservable(withObserver.output$.pipe(map((line) => line.type))).toBe(
        '--(nd)-------------------------|',
        { n: 'stream_event', d: 'hook_decision' },
      );
      expectObservable(
        withObserver.audit$.pipe(
          map((r) =>
            r.record === 'observer_result' ? `${r.hook}:${r.outcome}:${r.start_ms}-${r.end_ms}` : r.record,
          ),
        ),
      ).toBe('--(rhd)------------------------(o|)', {
        r: 'event_received',
        h: 'hook_result',
        d: 'decision',
        o: 'logger:exit:2-31',
      });
      // The same chain without the observer: the decision comes at the very same frame.
      const guard2 = cold('--g|', { g: results.block('no') });
      const without = hookPipeline(
        chainOf([commandHook('guard')]),
        testDeps(scheduler, fakeExecutor({ guard: guard2 })),
      )(hot('x---------|', { x: pre('rm -rf /') }));
      expectObservable(without.decisions$.pipe(map((d) => d.decision))).toBe('--x-------|', { x: 'block' });
      expectSubscriptions(guard.subscriptions).toBe('^-!');
    });
    expect(seen).toStrictEqual([
      {
        seq: 1,
        hook_event_name: 'PreToolUse' as const,
        session_id: 's1',
        tool_use_id: 't1',
        decision: 'block',
        reason: 'no',
        hooks: [{ name: 'guard', source: 'config', duration_ms: 2, decision: 'block', outcome: 'ok' }],
      },
    ]);
  });

  it('an observer lane holds at most observerQueue events: the newest past it is dropped, counted when the observations end', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const slow = cold('--------------------o|', { o: results.none() });
      const registry = chainOf([commandHook('logger', { observe: true })]);
      const input = hot('a-----b-----c---------------------|', { a: pre('1'), b: pre('2'), c: pre('3') });
      const streams = hookPipeline(registry, testDeps(scheduler, fakeExecutor({ logger: slow })), {
        observerQueue: 2,
      })(input);
      const observerRecords = streams.audit$.pipe(
        map((r) =>
          r.record === 'observer_result'
            ? `ran ${r.seq}`
            : r.record === 'observer_dropped'
              ? `dropped ${r.seq}-${r.last_seq} (${r.dropped} of queue ${r.queue})`
              : r.record,
        ),
      );
      expectObservable(observerRecords).toBe('(rd)--(rd)--(rd)----A-------------x-----(B|)', {
        r: 'event_received',
        d: 'decision',
        x: 'dropped 3-3 (1 of queue 2)',
        A: 'ran 1',
        B: 'ran 2',
      });
      expectSubscriptions(slow.subscriptions).toBe(['^ 19ms !', '20ms ^ 19ms !']);
    });
  });

  it('config records given as auditNotes join the stream in order', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const notes = hot<AuditConfigRecord>('-n---', {
        n: auditConfigRecord(
          {
            subject: 'trust',
            message: 'hook "p" changed: not run',
            hook: 'p',
            file: '/w/.copilot-shell/config.toml',
          },
          1,
        ),
      });
      const input = hot('--x-----|', { x: pre('ls') });
      const streams = hookPipeline(chainOf([]), testDeps(scheduler, fakeExecutor({})), { auditNotes: notes })(
        input,
      );
      expectObservable(streams.audit$.pipe(map((r: AuditRecord) => r.record))).toBe('-c(rd)--|', {
        c: 'config',
        r: 'event_received',
        d: 'decision',
      });
    });
  });
});

describe('the Stop-loop guard in the audit', () => {
  it('the decision record of a Stop the guard let through carries stop_loop_guard, with the overridden block', () => {
    const scheduler = createTestScheduler();
    const records: AuditRecord[] = [];
    scheduler.run(({ cold, hot, flush }) => {
      const registry = registryOf((name) => (name === 'Stop' ? [commandHook('keep-going')] : []));
      const executor = fakeExecutor({ 'keep-going': cold('-b|', { b: results.block('tests fail') }) });
      const stop = {
        hook_event_name: 'Stop' as const,
        session_id: 's1',
        cwd: '/',
        timestamp: '2026-07-01T10:00:00Z',
      };
      const input = hot('-x---y---|', { x: stop, y: stop });
      hookPipeline(registry, testDeps(scheduler, executor), { stopLoopLimit: 1 })(input).audit$.subscribe(
        (record) => records.push(record),
      );
      flush();
    });
    const decisions = records.filter((record) => record.record === 'decision');
    expect(decisions.map((record) => record.record === 'decision' && record.decision)).toEqual([
      'block',
      'none',
    ]);
    expect(decisions[0]).not.toHaveProperty('stop_loop_guard');
    expect(decisions[1]).toMatchObject({
      stop_loop_guard: { limit: 1, blocked: 1, overridden: { decision: 'block', reason: 'tests fail' } },
    });
  });
});

describe('the audit stream of createSession and createDispatcher', () => {
  it('a session offers audit$ for its life; a function observer sees the decision', async () => {
    const seen: string[] = [];
    const registry = defineHooks({
      PreToolUse: [
        { name: 'guard', run: () => ({ decision: 'block', reason: 'no' }) },
        {
          name: 'watch',
          observe: true,
          run: (event) => {
            seen.push(
              JSON.stringify(
                (event as unknown as Record<string, { decision: string }>)['cosh_decision']?.decision,
              ),
            );
          },
        },
      ],
    });
    const scheduler = createTestScheduler();
    const records: string[] = [];
    scheduler.run(({ expectObservable }) => {
      const session = createSession(registry, testDeps(scheduler, fakeExecutor({})));
      session.audit$.subscribe((r) => records.push(r.record));
      expectObservable(session.decide(pre('rm')).pipe(map((line) => line.type))).toBe('(nd|)', {
        n: 'stream_event',
        d: 'hook_decision',
      });
    });
    expect(records).toStrictEqual(['event_received', 'hook_result', 'decision', 'observer_result']);
    expect(seen).toStrictEqual(['"block"']);
  });

  it('a dispatcher offers audit$', async () => {
    const registry = defineHooks({ PreToolUse: [{ name: 'guard', run: () => ({ decision: 'allow' }) }] });
    const scheduler = createTestScheduler();
    const dispatcher = createDispatcher(registry, testDeps(scheduler, fakeExecutor({})));
    const records: AuditRecord[] = [];
    dispatcher.audit$.subscribe((r) => records.push(r));
    const result = await dispatcher.dispatch(pre('ls'));
    dispatcher.close();
    expect(result.decision?.decision).toBe('allow');
    expect(records.map((r) => r.record)).toStrictEqual(['event_received', 'hook_result', 'decision']);
  });

  it('nothing is built without an audit listener: a session without one still decides', () => {
    const session = createSession(defineHooks({}), testDeps(createTestScheduler(), fakeExecutor({})));
    const lines: string[] = [];
    of(pre('ls')).subscribe((event) => session.decide(event).subscribe((line) => lines.push(line.type)));
    expect(lines).toStrictEqual(['hook_decision']);
    void new Subject();
  });
});
