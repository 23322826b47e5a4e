/**
 * Generated scenarios for the equivalence tests of test/reference/ (issue 37, stage 0): scripts of
 * executor emissions at generated virtual frames, hooks with generated timeouts and fail_closed
 * flags, a deadline scheduler whose timers may run late, and a recorder of what a stream emitted
 * (frame by frame) and when each hook's executor was subscribed and ended.
 */
import fc from 'fast-check';
import {
  concat,
  defer,
  EMPTY,
  finalize,
  map,
  mergeMap,
  NEVER,
  of,
  throwError,
  timer,
  type Observable,
  type SchedulerAction,
  type SchedulerLike,
} from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import type { HookEvent } from '../../../src/events/index.js';
import type { HookEmission, HookExecutor } from '../../../src/exec/port.js';
import type { Hook } from '../../../src/registry/index.js';
import { commandHook, progress, results } from '../../../src/testing/index.js';

/** A progress notice, `gap` frames after the previous emission (0: at once, while subscribing if first). */
export type Notice =
  | { readonly kind: 'queued'; readonly gap: number }
  | { readonly kind: 'started'; readonly gap: number }
  | { readonly kind: 'exited'; readonly gap: number }
  | { readonly kind: 'stderr'; readonly gap: number; readonly line: string };

/** How the executor's stream ends after its notices. */
export type Ending =
  | { readonly kind: 'result'; readonly gap: number; readonly answer: Answer }
  | { readonly kind: 'error'; readonly gap: number }
  | { readonly kind: 'empty'; readonly gap: number }
  | { readonly kind: 'never' }
  /** The executor throws when called (it never returns a stream). */
  | { readonly kind: 'throws' };

export type Answer = 'allow' | 'block' | 'ask' | 'none' | 'fail';

export interface Script {
  readonly notices: readonly Notice[];
  readonly end: Ending;
}

const gap = fc.integer({ min: 0, max: 4 });

export const notice: fc.Arbitrary<Notice> = fc.oneof(
  fc.record({ kind: fc.constant('queued' as const), gap }),
  fc.record({ kind: fc.constant('started' as const), gap }),
  fc.record({ kind: fc.constant('exited' as const), gap }),
  fc.record({ kind: fc.constant('stderr' as const), gap, line: fc.constantFrom('disk full', 'no network') }),
);

export const ending: fc.Arbitrary<Ending> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      gap: fc.integer({ min: 0, max: 8 }),
      answer: fc.constantFrom<Answer>('allow', 'block', 'ask', 'none', 'fail'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('error' as const), gap }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('empty' as const), gap }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'never' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throws' as const }) },
);

export const script: fc.Arbitrary<Script> = fc.record({
  notices: fc.array(notice, { maxLength: 4 }),
  end: ending,
});

/** A hook's definition: its timeout (ms = frames) and whether it is fail_closed. */
export interface HookSpec {
  readonly timeout: number;
  readonly failClosed: boolean;
  readonly script: Script;
}

export const hookSpec: fc.Arbitrary<HookSpec> = fc.record({
  timeout: fc.integer({ min: 1, max: 8 }),
  failClosed: fc.boolean(),
  script,
});

/** Frames each deadline timer runs late by (0: on time). */
export const lateness = fc.integer({ min: 0, max: 3 });

export const eventName = fc.constantFrom('PreToolUse' as const, 'PostToolUse' as const, 'Stop' as const);

export const eventOf = (name: 'PreToolUse' | 'PostToolUse' | 'Stop'): HookEvent =>
  (name === 'Stop'
    ? { hook_event_name: 'Stop', session_id: 's', cwd: '/', timestamp: '2026-07-01T10:00:00Z' }
    : {
        hook_event_name: name,
        session_id: 's',
        cwd: '/',
        timestamp: '2026-07-01T10:00:00Z',
        tool_name: 'shell',
        tool_input: { command: 'ls' },
        ...(name === 'PostToolUse' && { tool_response: { ok: true } }),
      }) as HookEvent;

export const hooksOf = (specs: readonly HookSpec[], prefix = 'h'): Hook[] =>
  specs.map((spec, i) =>
    commandHook(`${prefix}${i}`, { timeout: spec.timeout, fail_closed: spec.failClosed }),
  );

const resultOf = (answer: Answer) =>
  answer === 'fail'
    ? results.fail('exit', 'exited with code 1')
    : answer === 'block'
      ? results.block('refused')
      : results[answer]();

const noticeOf = (n: Notice): HookEmission =>
  n.kind === 'queued'
    ? progress.queued()
    : n.kind === 'started'
      ? progress.started()
      : n.kind === 'exited'
        ? progress.exited()
        : progress.stderr(n.line);

/** `value$` `gap` frames after subscription, or while subscribing when `gap` is 0. */
const after = <T>(gapFrames: number, scheduler: SchedulerLike, value$: () => Observable<T>): Observable<T> =>
  gapFrames === 0 ? defer(value$) : timer(gapFrames, scheduler).pipe(mergeMap(value$));

/** The executor's stream for a script, on the test scheduler (not the late one: hooks are on time). */
export const emissions = (s: Script, scheduler: SchedulerLike): Observable<HookEmission> => {
  const end = s.end;
  const last: Observable<HookEmission> =
    end.kind === 'result'
      ? after(end.gap, scheduler, () => of<HookEmission>(resultOf(end.answer)))
      : end.kind === 'error'
        ? after(end.gap, scheduler, () => throwError(() => new Error('executor broke')))
        : end.kind === 'empty'
          ? after(end.gap, scheduler, () => EMPTY)
          : NEVER;
  return concat(...s.notices.map((n) => after(n.gap, scheduler, () => of(noticeOf(n)))), last);
};

/**
 * Records a run: output lines as `frame:value` in order, and the executors' lifetimes as
 * `frame:sub|end name`, sorted (within a frame, whether the next hook starts inside the previous
 * one's teardown or after it is not part of the contract).
 */
export interface Recording {
  readonly out: string[];
  readonly life: string[];
}

/** The lifetimes in frame order, then by text. */
export const lifetimes = (life: readonly string[]): string[] =>
  [...life].sort((a, b) => parseInt(a, 10) - parseInt(b, 10) || a.localeCompare(b));

/** An executor playing each hook's script (by name), logging its subscription and its end. */
export const scriptedExecutor = (
  scripts: ReadonlyMap<string, Script>,
  scheduler: TestScheduler,
  life: string[],
): HookExecutor => {
  return (hook) => {
    const s = scripts.get(hook.name);
    if (s === undefined) throw new Error(`no script for ${hook.name}`);
    if (s.end.kind === 'throws') throw new Error(`executor threw for ${hook.name}`);
    return defer(() => {
      life.push(`${scheduler.now()}:sub ${hook.name}`);
      return emissions(s, scheduler).pipe(finalize(() => life.push(`${scheduler.now()}:end ${hook.name}`)));
    });
  };
};

/**
 * The deadline's scheduler: the test scheduler, but every timer with a delay runs `late` frames
 * after it is due (the event loop was busy). What runs at once stays at once.
 */
export const lateScheduler = (scheduler: SchedulerLike, late: number): SchedulerLike => {
  if (late === 0) return scheduler;
  const schedule = <T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T) =>
    scheduler.schedule(work, delay > 0 ? delay + late : delay, state);
  return { now: () => scheduler.now(), schedule };
};

/** Subscribes `stream$` in the scheduler's run, unsubscribing at `cut` if given; what it emitted. */
export const record = <T>(
  scheduler: TestScheduler,
  stream$: Observable<T>,
  cut: number | undefined,
  show: (value: T) => string = (value) => JSON.stringify(value),
): string[] => {
  const out: string[] = [];
  const subscription = stream$.pipe(map(show)).subscribe({
    next: (line) => out.push(`${scheduler.now()}:${line}`),
    error: (error: unknown) => out.push(`${scheduler.now()}:error ${(error as Error).message}`),
    complete: () => out.push(`${scheduler.now()}:complete`),
  });
  if (cut !== undefined)
    scheduler.schedule(() => {
      out.push(`${scheduler.now()}:cut`);
      subscription.unsubscribe();
    }, cut);
  return out;
};
