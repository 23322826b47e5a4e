import { deepStrictEqual } from 'node:assert';
import { defer, of, type Observable, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { HookEvent } from '../events/codecs.js';
import { runFunctionHook } from '../exec/function-hook.js';
import { hookExecutor } from '../exec/hook-executor.js';
import type { HookEmission, HookExecutor, HookProgress } from '../exec/port.js';
import type { HookOutput } from '../protocol/output.js';
import { failure, success, type FailureKind, type HookResult } from '../protocol/result.js';
import type { PipelineDeps } from '../pipeline/pipeline.js';
import type { EventInput } from '../events/codecs.js';
import type { EventName } from '../events/names.js';
import { defineHooks, type HookDefinition } from '../registry/define.js';
import type { CommandHook, Hook } from '../registry/hook.js';

/** Per hook name: the result stream to play (cold), or a function of the event producing one. */
type FakeBehaviours = Readonly<
  Record<string, Observable<HookEmission> | ((event: HookEvent) => Observable<HookEmission>)>
>;

/** An executor of one hook kind playing each hook's script, or `unscripted` for a hook without one. */
const played =
  <H extends Hook>(
    behaviours: FakeBehaviours,
    unscripted: (hook: H, event: HookEvent) => Observable<HookEmission>,
  ): ((hook: H, event: HookEvent) => Observable<HookEmission>) =>
  (hook, event) =>
    defer(() => {
      const behaviour = Object.hasOwn(behaviours, hook.name) ? behaviours[hook.name] : undefined;
      if (behaviour === undefined) return unscripted(hook, event);
      return typeof behaviour === 'function' ? behaviour(event) : behaviour;
    });

/**
 * An executor for every hook kind that plays scripted results instead of running hooks. Each
 * subscription subscribes to the hook's script, so TestScheduler subscription marbles show exactly
 * when a hook started and when it was cancelled. A command hook with no script fails as `spawn`; a
 * function hook with no script runs in process, as `processExecutor()` runs it (its own Observable
 * runs in virtual time inside `TestScheduler.run`).
 */
export const fakeExecutor = (behaviours: FakeBehaviours): HookExecutor =>
  hookExecutor(
    played(behaviours, (hook) => of(failure('spawn', `no fake behaviour for hook "${hook.name}"`))),
    played(behaviours, runFunctionHook),
  );

/** Hook results for marble values. */
export const results = {
  allow: (extra: Omit<HookOutput, 'decision'> = {}): HookResult => success({ decision: 'allow', ...extra }),
  block: (reason?: string, extra: Omit<HookOutput, 'decision' | 'reason'> = {}): HookResult =>
    success({ decision: 'block', ...(reason !== undefined && { reason }), ...extra }),
  ask: (extra: Omit<HookOutput, 'decision'> = {}): HookResult => success({ decision: 'ask', ...extra }),
  none: (extra: Omit<HookOutput, 'decision'> = {}): HookResult => success({ decision: 'none', ...extra }),
  fail: (kind: FailureKind, message: string = kind, stderr?: string): HookResult =>
    failure(kind, message, stderr === undefined ? {} : { stderr }),
};

/** Progress notices for marble values: what a real process reports before its result. */
export const progress = {
  /** The hook waits for its turn (`waitingFor`: "a process slot"…): its own deadline has not started. */
  queued: (waitingFor = 'a process slot'): HookProgress => ({ progress: 'queued', waitingFor }),
  /** The queued hook's process started: its own deadline starts now. */
  started: (): HookProgress => ({ progress: 'started' }),
  /** The process exited: the hook's deadline stops, its result follows. */
  exited: (): HookProgress => ({ progress: 'exited' }),
  /** The first line of the hook's stderr (the reason a fail_closed hook gets if it times out). */
  stderr: (firstLine: string): HookProgress => ({ progress: 'stderr', firstLine }),
};

/**
 * The options of `commandHook`: the fields of a `defineHooks` command hook, in the same spelling
 * (`timeout` in milliseconds, `fail_closed`, `matcher` as an RE2 pattern…), all optional, and the
 * `source` the hook reports (`config` unless given).
 */
type CommandHookOptions = Partial<Omit<Extract<HookDefinition, { readonly command: string }>, 'name'>> & {
  readonly source?: string;
};

/**
 * A command hook for test registries; the fake executor finds its script by `name`. Built by
 * `defineHooks` from the same fields (`commandHook('guard', { timeout: 50, fail_closed: true,
 * matcher: '^shell$' })`), so an invalid field throws `HookDefinitionError` as it does there. The
 * command defaults to `fake <name>`, which only the fake executor can run.
 */
export const commandHook = (name: string, options: CommandHookOptions = {}): CommandHook => {
  const { source = 'config', command = `fake ${name}`, ...fields } = options;
  const [hook] = defineHooks({ PreToolUse: [{ ...fields, name, command }] }, source).PreToolUse;
  if (hook?.kind !== 'command') throw new TypeError(`commandHook: "${name}" is not a command hook`);
  return hook;
};

/** The fields of an `event(name, …)`: the event's own, `session_id` optional. */
type EventFields<N extends EventName> = Omit<EventInput<N>, 'hook_event_name' | 'session_id'> & {
  readonly session_id?: string;
};

/**
 * A host event for tests, typed by its name: `event('PreToolUse', { tool_name: 'shell',
 * tool_input: { command: 'ls' } })`. `session_id` defaults to `test-session`; `cwd` and
 * `timestamp` are left to the engine (it fills them from its deps), as a host may leave them.
 * Fields an event requires are required here too; an event without required fields
 * (`event('Stop')`) needs none.
 */
export const event = <N extends EventName>(
  name: N,
  ...fields: object extends EventFields<N> ? [fields?: EventFields<N>] : [fields: EventFields<N>]
): EventInput<N> => ({ hook_event_name: name, session_id: 'test-session', ...fields[0] }) as EventInput<N>;

/** A TestScheduler asserting with `node:assert` deep equality (works under any test runner). */
export const createTestScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => deepStrictEqual(actual, expected));

/** Pipeline deps for virtual time: the given scheduler and executor, a fixed clock and cwd. */
export const testDeps = (scheduler: SchedulerLike, executor: HookExecutor): PipelineDeps => ({
  scheduler,
  executor,
  now: () => new Date(Date.UTC(2026, 0, 1) + scheduler.now()),
  cwd: () => '/work',
});
