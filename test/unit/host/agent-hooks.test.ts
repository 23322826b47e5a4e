import { concatMap, from, map, of, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { TestMessage } from 'rxjs/internal/testing/TestMessage';
import { describe, expect, it } from 'vitest';
import {
  createSession,
  registryOf,
  type EventInput,
  type HookDecision,
  type HookEvent,
  type Registry,
  type Session,
} from 'cosh-hooks';
import type { HookResult } from 'cosh-hooks/executors';
import { commandHook, createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';
import { agentHooks, asJson, asObject, jsonOf } from '../../../src/host/agent-hooks.js';
import { effectiveInput, resultGate, toolGate } from '../../../src/host/gates.js';

const decision = (fields: Partial<HookDecision>): HookDecision => ({
  type: 'hook_decision',
  seq: 1,
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  decision: 'none',
  hooks: [],
  ...fields,
});
const decided = (fields: Partial<HookDecision>) => ({ ok: true as const, decision: decision(fields) });

describe('asObject, jsonOf, asJson: a framework value as event data', () => {
  it.each([
    [{ command: 'ls' }, { command: 'ls' }],
    ['{"command":"ls"}', { command: 'ls' }],
    ['not json', { input: 'not json' }],
    ['[1]', { input: '[1]' }],
    [42, { input: 42 }],
    [undefined, {}],
  ])('asObject(%j) is %j', (value, object) => expect(asObject(value)).toEqual(object));

  it('copies class instances, Dates and Errors as JSON writes them', () => {
    expect(jsonOf({ at: new Date(0), n: 2 })).toEqual({
      ok: true,
      value: { at: '1970-01-01T00:00:00.000Z', n: 2 },
    });
    expect(jsonOf(new Error('boom'))).toEqual({ ok: true, value: {} });
    expect(jsonOf(undefined)).toEqual({ ok: true, value: null });
  });

  it('names what has no JSON copy instead of throwing: a BigInt, too deep, a throwing getter', () => {
    let deep: unknown = {};
    for (let i = 0; i < 600; i++) deep = { deep };
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('trap');
      },
    });
    expect(jsonOf({ n: 1n })).toEqual({ ok: false, error: 'n: a BigInt, which JSON cannot carry' });
    expect(jsonOf(deep)).toEqual({ ok: false, error: 'deep: nested deeper than 512 levels' });
    expect(jsonOf(getter)).toEqual({ ok: false, error: 'value: cannot be read: trap' });
    expect(asJson({ n: 1n })).toBe(
      'cosh-hooks: the value cannot be written as JSON: n: a BigInt, which JSON cannot carry',
    );
  });
});

describe('effectiveInput, toolGate, resultGate: decisions read as what to do', () => {
  const input = { command: 'ls', options: { color: true, all: false } };

  it('leaves the input as it is (the same object) when no hook patched it', () => {
    expect(effectiveInput(input, decision({}))).toBe(input);
  });

  it('applies updated_input as a replacement, then a tool_input patch deep-merged on top', () => {
    expect(
      effectiveInput(
        input,
        decision({ hook_specific_output: { tool_input: { options: { color: false } } } }),
      ),
    ).toEqual({
      command: 'ls',
      options: { color: false, all: false },
    });
    expect(
      effectiveInput(
        input,
        decision({ hook_specific_output: { updated_input: { command: 'pwd' }, tool_input: { dir: '/' } } }),
      ),
    ).toEqual({ command: 'pwd', dir: '/' });
    expect(effectiveInput(input, decision({ hook_specific_output: { updated_input: 'rm -rf /' } }))).toBe(
      input,
    );
  });

  it('reads block as deny, ask as ask, allow and none as run; an engine failure is a deny naming it', () => {
    expect(toolGate(input, decided({ decision: 'block', reason: 'no' }))).toMatchObject({
      action: 'deny',
      reason: 'no',
    });
    expect(toolGate(input, decided({ decision: 'block', systemMessage: 'shown' }))).toMatchObject({
      reason: 'shown',
    });
    expect(toolGate(input, decided({ decision: 'block' }))).toMatchObject({ reason: 'blocked by a hook' });
    expect(toolGate(input, decided({ decision: 'ask', reason: 'sure?' }))).toMatchObject({
      action: 'ask',
      reason: 'sure?',
    });
    expect(toolGate(input, decided({ decision: 'allow' }))).toMatchObject({ action: 'run', input });
    expect(toolGate(input, decided({}))).toMatchObject({ action: 'run', input });
    expect(toolGate(input, { ok: false, failure: 'cosh-hooks: closed' })).toEqual({
      action: 'deny',
      reason: 'cosh-hooks: closed',
    });
  });

  it('reads a PostToolUse block as withhold, updated_tool_response as replace; an engine failure withholds', () => {
    expect(resultGate(decided({ decision: 'block', reason: 'secret' }))).toEqual({
      action: 'withhold',
      reason: 'secret',
    });
    expect(resultGate(decided({ hook_specific_output: { updated_tool_response: null } }))).toEqual({
      action: 'replace',
      response: null,
    });
    expect(resultGate(decided({ decision: 'allow' }))).toEqual({ action: 'keep' });
    expect(resultGate({ ok: false, failure: 'cosh-hooks: closed' })).toEqual({
      action: 'withhold',
      reason: 'cosh-hooks: closed',
    });
  });
});

/**
 * Runs virtual time frame by frame and lets promises settle between frames: the adapter's calls
 * are promises (as every framework's hook points are), the engine's hooks run on the scheduler.
 */
const play = async (scheduler: TestScheduler, frames: number) => {
  for (let frame = 0; frame <= frames; frame++) {
    scheduler.maxFrames = frame;
    scheduler.flush();
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  }
};

/** What an observable emits, as the messages of a marble diagram (frame and notification). */
const record = <T>(scheduler: TestScheduler, source$: Observable<T>): TestMessage[] => {
  const messages: TestMessage[] = [];
  const at = (kind: 'N' | 'C', value?: T) =>
    messages.push({ frame: scheduler.now(), notification: { kind, value, error: undefined } as never });
  source$.subscribe({ next: (value) => at('N', value), complete: () => at('C') });
  return messages;
};

describe('a host loop on agentHooks, in virtual time', () => {
  const commandOf = (event: HookEvent) => ('tool_input' in event ? String(event.tool_input['command']) : '');
  const guarded: Registry = registryOf((event) =>
    event === 'PreToolUse' ? [commandHook('guard', { timeout: 50, fail_closed: true })] : [],
  );

  it('runs each tool call only after its PreToolUse decision: ran, denied, timed out under fail_closed', async () => {
    const scheduler = createTestScheduler();
    // The guard takes 2 frames; on `hang` it never answers, and its timeout (50 ms = 5 frames of
    // 10, outside run mode) blocks, as fail_closed says.
    const guard = (event: HookEvent) =>
      commandOf(event) === 'hang'
        ? scheduler.createColdObservable<HookResult>('-')
        : scheduler.createColdObservable('--(r|)', {
            r: commandOf(event).startsWith('rm') ? results.block('no rm') : results.allow(),
          });
    const session = createSession(guarded, testDeps(scheduler, fakeExecutor({ guard })), {
      concurrency: 'per-session',
    });
    const hooks = agentHooks({ session, sessionId: 's1', cwd: '/work' });
    const calls$ = scheduler.createHotObservable<{ id: string; command: string }>('a-b-c|', {
      a: { id: 't1', command: 'ls' },
      b: { id: 't2', command: 'rm -rf /' },
      c: { id: 't3', command: 'hang' },
    });
    // The host's loop: one call at a time, each run only when its gate says so.
    const loop$ = calls$.pipe(
      concatMap((call) =>
        from(hooks.beforeTool('shell', { command: call.command }, call.id)).pipe(
          map((gate) =>
            gate.action === 'run' ? `run ${String(gate.input['command'])}` : `deny ${gate.reason}`,
          ),
        ),
      ),
    );
    const seen = record(scheduler, loop$);
    await play(scheduler, 120);
    // t1 decided at 2; t2 (sent at 2) waits for it and is decided at 4; t3 starts at 4 and times out at 9.
    expect(seen).toEqual(
      TestScheduler.parseMarbles('--r-d----(t|)', {
        r: 'run ls',
        d: 'deny no rm',
        t: 'deny hook "guard" failed closed: timed out after 50 ms',
      }),
    );
    session.close();
  });

  it('denies every call of a run once its session is closed, and withholds results', async () => {
    const scheduler = createTestScheduler();
    const session = createSession(guarded, testDeps(scheduler, fakeExecutor({})));
    const hooks = agentHooks({ session, sessionId: 's1' });
    session.close();
    await expect(hooks.beforeTool('shell', { command: 'ls' })).resolves.toEqual({
      action: 'deny',
      reason: 'cosh-hooks: the session is closed',
      judged: { command: 'ls' },
    });
    await expect(hooks.afterTool('shell', { command: 'ls' }, 'out')).resolves.toEqual({
      action: 'withhold',
      reason: 'cosh-hooks: the session is closed',
    });
  });

  it('denies a tool input no hook could see (a BigInt), without asking the engine', async () => {
    const scheduler = createTestScheduler();
    const session = createSession(guarded, testDeps(scheduler, fakeExecutor({})));
    const hooks = agentHooks({ session, sessionId: 's1' });
    await expect(hooks.beforeTool('shell', { n: 1n })).resolves.toEqual({
      action: 'deny',
      reason: 'cosh-hooks: invalid event: tool_input: n: a BigInt, which JSON cannot carry',
    });
    session.close();
  });

  it('builds and sends no event that no enabled hook or observer can match: its answer is a pass', async () => {
    const scheduler = createTestScheduler();
    const engine = createSession(
      guarded,
      testDeps(scheduler, fakeExecutor({ guard: () => of(results.allow()) })),
    );
    const sent: string[] = [];
    const session: Session = {
      ...engine,
      wants: (name, matched) => engine.wants(name, matched),
      get closed() {
        return engine.closed;
      },
      decide: (event) => {
        sent.push((event as EventInput).hook_event_name);
        return engine.decide(event);
      },
    };
    const hooks = agentHooks({ session, sessionId: 's1' });
    // Only PreToolUse has a hook: the model's events, PostToolUse and Stop are never built.
    let built = 0;
    const request = {
      get messages() {
        built += 1;
        return [];
      },
    };
    await expect(hooks.beforeModel(request)).resolves.toEqual({ ok: true });
    await expect(hooks.afterModel({ text: 'hi' }, request)).resolves.toEqual({ ok: true });
    await expect(hooks.afterTool('shell', { command: 'ls' }, 'out')).resolves.toEqual({ action: 'keep' });
    await expect(hooks.stop('done')).resolves.toEqual({ ok: true });
    // A tool no matcher selects runs with its input, unasked; the guarded one is asked.
    await expect(hooks.beforeTool('shell', { command: 'ls' }, 't1')).resolves.toMatchObject({
      action: 'run',
    });
    expect(sent).toEqual(['PreToolUse']);
    expect(built).toBe(0);
    // Someone listening to the audit hears every event: then every event is sent.
    const listening = engine.audit$.subscribe();
    await hooks.stop('done');
    listening.unsubscribe();
    expect(sent).toEqual(['PreToolUse', 'Stop']);
    engine.close();
  });
});
