import {
  asyncScheduler,
  catchError,
  concatMap,
  concatWith,
  defer,
  EMPTY,
  filter,
  finalize,
  from,
  isObservable,
  map,
  merge,
  of,
  ReplaySubject,
  share,
  Subject,
  takeUntil,
  throwError,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import { admitEvents, type Admitted, type RejectedInput } from '../../operators/admitEvents.js';
import { concatMapByKey } from '../../operators/concatMapByKey.js';
import { concatMapInline } from '../../operators/concatMapInline.js';
import { matchJob, type Job, type MatchedEvent } from '../../operators/matchHooks.js';
import { parseLines } from '../../operators/parseLines.js';
import { runObservers, type Observation } from '../../operators/runObservers.js';
import { withLatestRegistry } from '../../operators/withLatestRegistry.js';
import { boundedKey } from '../events/bounded-key.js';
import type { HookEvent } from '../events/codecs.js';
import { auditEvent, type EventAudit } from '../audit/event-audit.js';
import { isAuditRecord, type AuditConfigRecord, type AuditRecord } from '../audit/records.js';
import { processExecutor } from '../exec/process-executor.js';
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
import type { AdmittedEvent } from '../../operators/admitEvents.js';
import type { EventInput } from '../events/codecs.js';
import type { JsonLine } from '../events/input.js';
import { describeThrown } from '../events/untrusted.js';
import { aggregate, type HookRun } from '../protocol/aggregate.js';
import { effectiveDecision } from '../protocol/effective.js';
import { redactText } from '../protocol/redact/index.js';
import { failure } from '../protocol/result.js';
import type { Hook, Registry } from '../registry/hook.js';
import { guardedRunner } from './stop-loop-run.js';
import type { ChainStep } from '../chain/hook-run.js';
import { foldDecision } from '../../operators/foldDecision.js';
import { runHooks } from '../../operators/runHooks.js';
import { stopOnBlock } from '../../operators/stopOnBlock.js';
import { hasObservers, observersFor } from '../registry/chain.js';

/** Collaborators, injected so tests run in virtual time with fake hooks. */
export interface PipelineDeps {
  readonly executor: HookExecutor;
  readonly scheduler: SchedulerLike;
  /** Fills a missing event `timestamp`. Defaults to the scheduler's clock. */
  readonly now: () => Date;
  /** Fills a missing event `cwd`. */
  readonly cwd: () => string;
}

/** How the engine schedules events. */
export interface PipelineOptions {
  /**
   * `sequential` (default): one event at a time, decision N before any hook of N+1.
   * `per-session`: events of different `session_id` may overlap; one session's never do.
   */
  readonly concurrency?: 'sequential' | 'per-session';
  /**
   * Blocked `Stop` (or `SubagentStop`) decisions in a row per session after which the next block is
   * let through (docs/protocol.md, "Stop loops"). A whole number 1..1000; default 8.
   */
  readonly stopLoopLimit?: number;
  /**
   * How many events one observer hook may hold, the one it is running included (docs/audit.md).
   * Past that, the newest event is not given to it and an `observer_dropped` record counts it.
   * Default 64.
   */
  readonly observerQueue?: number;
  /**
   * Emits when the host is about to stop the run (a signal): observers still running are stopped
   * and recorded as cut short, waiting ones as dropped (docs/audit.md), before the host unsubscribes.
   */
  readonly interrupt$?: Observable<unknown>;
  /** `event_received` audit records carry the event's `tool_input` and `prompt`, redacted. Default false. */
  readonly auditContent?: boolean;
  /**
   * Records made outside the engine (`auditConfigRecord`: trust, reload, ...), put on the audit
   * stream as they come, in order with the engine's own, for as long as the run lasts.
   */
  readonly auditNotes?: Observable<AuditConfigRecord>;
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
  /**
   * The audit stream (docs/audit.md): per event `event_received`, a `hook_result` per hook that
   * ran, `hook_skipped` per hook a block left unstarted, then `decision`; observer records when
   * observers end; `config` records from `auditNotes`. Redacted. Records are built only while
   * someone subscribes here; a subscriber runs synchronously, so it should be quick (the CLI's
   * writer only buffers).
   */
  readonly audit$: Observable<AuditRecord>;
}

/** A rejected input as a `hook_error`; its message may quote the input, so it is redacted. */
const toError = (rejected: RejectedInput): HookError => ({
  type: 'hook_error',
  ...(rejected.line !== undefined ? { line: rejected.line } : { index: rejected.index }),
  ...rejected.ids,
  message: redactText(rejected.message),
});

const toLine = (job: MatchedEvent, step: ChainStep): OutputLine | undefined =>
  step.type === 'run' ? toNotification(step.run, job.event) : toDecision(job.seq, job.event, step.verdict);

/** The name notifications carry when the engine itself, not a hook, failed on an event. */
const ENGINE_NAME = 'cosh-hooks';

/**
 * The answer for an event whose handling threw inside the engine (a bug, a hostile in-process
 * value, a matcher or executor that throws): still exactly one decision, as if every hook of the
 * chain had failed with `exception` (so a fail_closed hook blocks, where block is interceptable,
 * and the hooks after it are `skipped`), preceded by one `error` notification from the engine.
 * Hook reports carry no `duration_ms`: the engine does not know how long each hook ran.
 */
const internalFailureLines = (item: AdmittedEvent, chain: readonly Hook[], error: unknown): OutputLine[] => {
  const message = redactText(`internal error: ${describeThrown(error)}`);
  const result = failure('exception', message);
  const runs: HookRun[] = [];
  for (const hook of chain) {
    const effective = effectiveDecision(item.event.hook_event_name, hook, result);
    runs.push({ hook, result, effective, durationMs: 0 });
    if (effective.decision === 'block') break;
  }
  const verdict = aggregate(runs, chain.slice(runs.length));
  const hooks = verdict.hooks.map(({ duration_ms: _unknown, ...report }) => report);
  const notification: HookNotification = {
    type: 'stream_event',
    event: {
      subtype: 'hook_notification',
      hook_name: ENGINE_NAME,
      message,
      decision: 'error',
      hook_event_name: item.event.hook_event_name,
      session_id: item.event.session_id,
      ...(item.event.tool_use_id !== undefined && { tool_use_id: item.event.tool_use_id }),
    },
  };
  return [notification, toDecision(item.seq, item.event, { ...verdict, hooks })];
};

/**
 * The lines of one event: a notification per hook as it finishes, then the decision. The chain
 * runs hook by hook (`runHooks`) and stops after the first effective block (`stopOnBlock`), then
 * the verdict (`foldDecision`). Whatever throws on the way becomes the event's internal-failure
 * answer; lines already out stay out. `onRun` is told of each run as it finishes (the audit's clock).
 */
export const runEvent = (
  job: MatchedEvent,
  deps: PipelineDeps,
  onRun?: (run: HookRun) => void,
): ObservableInput<OutputLine> =>
  job.chain.length === 0
    ? // Most events have no hook: the answer is made in place.
      [toDecision(job.seq, job.event, aggregate([]))]
    : from(job.chain).pipe(
        runHooks(job.event, deps),
        stopOnBlock(),
        foldDecision(job.chain),
        map((step) => {
          if (onRun !== undefined && step.type === 'run') onRun(step.run);
          return toLine(job, step);
        }),
        filter((line): line is OutputLine => line !== undefined),
        catchError((error: unknown) => internalFailureLines(job, job.chain, error)),
      );

/** Told of each hook run of an event as it finishes (the audit's clock). */
type OnRun = (run: HookRun) => void;
/** Runs one matched event (the Stop-loop guard around the chain), telling `onRun` of each hook run. */
type RunJob = (job: MatchedEvent, onRun?: OnRun) => ObservableInput<OutputLine>;
/** The run's audit, but for which observers an event has: that depends on the registry it runs on. */
type ChainAudit = Omit<EventAudit, 'observersOf'>;

/**
 * One input item's lines, inside the per-event error boundary: matching, running, folding and
 * building lines. Nothing that throws for one event reaches the stream (spec §7).
 */
const runItem = (
  item: Admitted,
  match: (item: Admitted) => Job,
  runJob: RunJob,
  audit: EventAudit,
): ObservableInput<OutputLine> => {
  if (item.kind === 'rejected') return [toError(item)];
  let job: MatchedEvent | undefined;
  try {
    const matched = match(item) as MatchedEvent; // an admitted event stays an event
    job = matched;
    return auditEvent(matched, (onRun) => runJob(matched, onRun), audit);
  } catch (error) {
    return internalFailureLines(item, job?.chain ?? [], error);
  }
};

/**
 * How a run finds each event's chain. A fixed registry is matched directly. A `registry$` is
 * followed for the run's life; each event takes the registry current when its turn starts (not
 * when it was read), so an event that started keeps its chain to the end, and one waiting behind it
 * runs on whatever configuration is current when it starts (docs/configuration.md, reload).
 */
const followRegistry = (registry: Registry | Observable<Registry>) => {
  const observersOf = (current: Registry) =>
    hasObservers(current) ? (event: HookEvent) => observersFor(current, event) : () => [];
  // One audit context per registry, not a spread per event (it measured 7–15% of row 3a).
  const auditFor = (audit: ChainAudit, current: Registry): EventAudit => ({
    ...audit,
    observersOf: observersOf(current),
  });
  if (!isObservable(registry)) {
    const match = matchJob(registry);
    return {
      run: (runJob: RunJob, audit: ChainAudit) => {
        const eventAudit = auditFor(audit, registry);
        return (item: Admitted) => runItem(item, match, runJob, eventAudit);
      },
      unsubscribe: () => undefined,
    };
  }
  const latest = new ReplaySubject<Registry>(1);
  const subscription = registry.subscribe(latest);
  return {
    run: (runJob: RunJob, audit: ChainAudit) => {
      let last:
        | { readonly registry: Registry; readonly match: (item: Admitted) => Job; readonly audit: EventAudit }
        | undefined;
      const forRegistry = (current: Registry) => {
        if (last?.registry !== current)
          last = { registry: current, match: matchJob(current), audit: auditFor(audit, current) };
        return last;
      };
      return (item: Admitted): ObservableInput<OutputLine> =>
        item.kind === 'rejected'
          ? [toError(item)]
          : of(item).pipe(
              withLatestRegistry(latest),
              concatMap(([admitted, current]) => {
                const { match, audit: eventAudit } = forRegistry(current);
                return runItem(admitted, match, runJob, eventAudit);
              }),
            );
    },
    unsubscribe: () => subscription.unsubscribe(),
  };
};

const sessionOf = (item: Admitted): string =>
  item.kind === 'event' ? boundedKey(item.event.session_id) : '';

/**
 * Builds the engine: `input$` in, hook output streams out. Each input item is an event as a value
 * (typed `EventInput`; the engine still checks every value at run time, and answers one that is
 * not a valid event with a `hook_error`) or a `JsonLine` of raw text; `parseLines` at the edge
 * tells them apart, and from there on the engine works on typed `ParsedInput`s.
 * A misbehaving hook, a malformed event or anything that throws while one event is handled never
 * errors the outputs (that event gets its internal-failure answer, see `internalFailureLines`); an
 * error of `input$` itself is passed on once every event admitted before it has its answer.
 * Unsubscribing cancels running hooks (their process groups are killed).
 */
export const hookPipeline =
  (registry: Registry | Observable<Registry>, deps: PipelineDeps, options: PipelineOptions = {}) =>
  (input$: Observable<EventInput | JsonLine>): HookStreams => {
    let auditListeners = 0;
    const output$ = defer(() => {
      // What the executor keeps across events (persistent hook processes) lives exactly as long as
      // the run: opened on subscribe, ended on completion, error or unsubscribe.
      const opened = openRun(deps.executor);
      const runDeps = { ...deps, executor: opened.executor };
      // The Stop-loop guard's counts, like the executor's state, live as long as the run.
      const guard = guardedRunner(options.stopLoopLimit);
      const runJob: RunJob = (job, onRun) => guard(job, (guarded) => runEvent(guarded, runDeps, onRun));
      // The audit (docs/audit.md): records join the output in the order they are made; observers
      // get decided events and report on the audit stream only.
      const records = new Subject<AuditRecord>();
      const observations = new Subject<Observation>();
      const ended = new Subject<void>();
      const audit: ChainAudit = {
        auditing: () => auditListeners > 0,
        emit: (record) => records.next(record),
        observe: (observation) => observations.next(observation),
        content: options.auditContent === true,
        now: () => deps.scheduler.now(),
      };
      const registries = followRegistry(registry);
      const run = registries.run(runJob, audit);
      // An error of input$ waits until every event admitted before it has its answer (spec §7).
      let inputError: { readonly error: unknown } | undefined;
      const lines$ = input$.pipe(
        catchError((error: unknown) => {
          inputError = { error };
          return EMPTY;
        }),
        parseLines(),
        admitEvents(deps),
        options.concurrency === 'per-session' ? concatMapByKey(sessionOf, run) : concatMapInline(run),
        // Observers still running finish (each within its timeout) before the run completes.
        finalize(() => {
          ended.next();
          records.complete();
          observations.complete();
        }),
      );
      return merge<(OutputLine | AuditRecord)[]>(
        records,
        (options.auditNotes ?? EMPTY).pipe(takeUntil(ended)),
        observations.pipe(runObservers(runDeps, options.observerQueue, options.interrupt$)),
        lines$,
      ).pipe(
        concatWith(
          defer(() => {
            const failed = inputError;
            return failed === undefined ? EMPTY : throwError(() => failed.error);
          }),
        ),
        finalize(() => {
          registries.unsubscribe();
          opened.unsubscribe();
        }),
      );
    });
    // One run for all five streams. After it ended, a late subscriber only sees the completion:
    // hooks have side effects and must never run twice for one event.
    const shared$ = output$.pipe(share({ resetOnComplete: false, resetOnError: false }));
    const lineOut$ = shared$.pipe(filter(isOutputLine));
    return {
      output$: lineOut$,
      decisions$: lineOut$.pipe(filter(isDecision)),
      notifications$: lineOut$.pipe(filter(isNotification)),
      errors$: lineOut$.pipe(filter(isHookError)),
      audit$: defer(() => {
        auditListeners += 1;
        return shared$.pipe(
          filter(isAuditRecord),
          finalize(() => (auditListeners -= 1)),
        );
      }),
    };
  };

const isOutputLine = (item: OutputLine | AuditRecord): item is OutputLine => item.type !== 'audit';

/**
 * Production collaborators: the real executor (`processExecutor()` from `cosh-hooks/executors`:
 * processes for command hooks, one long-running process per persistent hook, function hooks in
 * process), the async scheduler, the wall clock and the process's cwd. Pass an executor of your
 * own (built with `cosh-hooks/executors`) to change how hooks run.
 *
 * Example: `hookPipeline(registry, defaultDeps())(events$)`
 */
export const defaultDeps = (
  executor: HookExecutor = processExecutor(),
  scheduler: SchedulerLike = asyncScheduler,
): PipelineDeps => ({
  executor,
  scheduler,
  now: () => new Date(scheduler.now()),
  cwd: () => process.cwd(),
});
