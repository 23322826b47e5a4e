import {
  asyncScheduler,
  concatMap,
  defer,
  filter,
  finalize,
  from,
  map,
  share,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import { admitEvents, type RejectedInput } from '../../operators/admitEvents.js';
import { concatMapByKey } from '../../operators/concatMapByKey.js';
import { foldDecision, type ChainStep } from '../../operators/foldDecision.js';
import { matchHooks, type Job, type MatchedEvent } from '../../operators/matchHooks.js';
import { runHooks } from '../../operators/runHooks.js';
import { stopOnBlock } from '../../operators/stopOnBlock.js';
import { openRun, type HookExecutor } from '../exec/port.js';
import {
  isDecision,
  isHookError,
  isNotification,
  toDecision,
  toNotification,
  type HookDecision,
  type HookError,
  type HookNotification,
  type OutputLine,
} from '../output/lines.js';
import { aggregate } from '../protocol/aggregate.js';
import type { Registry } from '../registry/hook.js';

/** Collaborators, injected so tests run in virtual time with fake hooks. */
export interface PipelineDeps {
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
  /** Fills a missing event `timestamp`. Defaults to the scheduler's clock. */
  readonly now: () => Date;
  /** Fills a missing event `cwd`. */
  readonly cwd: () => string;
}

export interface PipelineOptions {
  /**
   * `sequential` (default): one event at a time, decision N before any hook of N+1.
   * `per-session`: events of different `session_id` may overlap; one session's never do.
   */
  readonly concurrency?: 'sequential' | 'per-session';
}

/**
 * The engine's outputs. All four share one run of the engine, started by the first subscriber and
 * cancelled when the last unsubscribes. Subscribe to the ones you need before events flow, or use
 * `output$` alone: a synchronous source such as `of(...)` runs to the end inside the first
 * subscribe, and a stream subscribed after the run ended only completes (hooks never run twice).
 */
export interface HookStreams {
  /** Every line in order: notifications of an event, then its decision; errors in input order. */
  readonly output$: Observable<OutputLine>;
  readonly decisions$: Observable<HookDecision>;
  readonly notifications$: Observable<HookNotification>;
  readonly errors$: Observable<HookError>;
}

const toError = (rejected: RejectedInput): HookError => ({
  type: 'hook_error',
  ...(rejected.line !== undefined ? { line: rejected.line } : { index: rejected.index }),
  message: rejected.message,
});

const toLine = (job: MatchedEvent, step: ChainStep): OutputLine | undefined =>
  step.type === 'run' ? toNotification(step.run, job.event) : toDecision(job.seq, job.event, step.verdict);

/**
 * The lines of one event: a notification per hook as it finishes, then the decision. The chain
 * runs hook by hook and stops after the first effective block.
 */
const runEvent = (job: MatchedEvent, deps: PipelineDeps): ObservableInput<OutputLine> =>
  job.chain.length === 0
    ? [toDecision(job.seq, job.event, aggregate([]))] // most events have no hook: skip the chain machinery
    : from(job.chain).pipe(
        runHooks(job.event, deps),
        stopOnBlock(),
        foldDecision(job.chain),
        map((step) => toLine(job, step)),
        filter((line): line is OutputLine => line !== undefined),
      );

const runJob = (job: Job, deps: PipelineDeps): ObservableInput<OutputLine> =>
  job.kind === 'rejected' ? [toError(job)] : runEvent(job, deps);

const sessionOf = (job: Job): string => (job.kind === 'event' ? job.event.session_id : '');

/**
 * Builds the engine: `input$` (event objects or `JsonLine`s) in, hook output streams out.
 * A misbehaving hook or a malformed event never errors the outputs; an error of `input$` itself
 * is passed on. Unsubscribing cancels running hooks (their process groups are killed).
 */
export const hookPipeline =
  (registry: Registry, deps: PipelineDeps, options: PipelineOptions = {}) =>
  (input$: Observable<unknown>): HookStreams => {
    const jobs$ = input$.pipe(admitEvents(deps), matchHooks(registry));
    // What the executor keeps across events (persistent hook processes) lives exactly as long as
    // the run: opened on subscribe, ended on completion, error or unsubscribe.
    const output$ = defer(() => {
      const run = openRun(deps.executor);
      const runDeps = { ...deps, executor: run.executor };
      return jobs$.pipe(
        options.concurrency === 'per-session'
          ? concatMapByKey(sessionOf, (job) => runJob(job, runDeps))
          : concatMap((job) => runJob(job, runDeps)),
        finalize(() => run.unsubscribe()),
      );
    });
    // One run for all four streams. After it ended, a late subscriber only sees the completion:
    // hooks have side effects and must never run twice for one event.
    const shared$ = output$.pipe(share({ resetOnComplete: false, resetOnError: false }));
    return {
      output$: shared$,
      decisions$: shared$.pipe(filter(isDecision)),
      notifications$: shared$.pipe(filter(isNotification)),
      errors$: shared$.pipe(filter(isHookError)),
    };
  };

/** Production defaults for everything but the executor. */
export const defaultDeps = (
  executor: HookExecutor,
  scheduler: SchedulerLike = asyncScheduler,
): PipelineDeps => ({
  executor,
  scheduler,
  now: () => new Date(scheduler.now()),
  cwd: () => process.cwd(),
});
