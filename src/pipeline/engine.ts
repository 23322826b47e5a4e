/**
 * The composition root: one engine, built of the public operators, that `hookPipeline` and
 * `createSession` (and through them the dispatcher, the adapters and the MCP gateway) run on.
 * For each admitted item, at its turn: the chain from the registry current then (`matchJob`), the
 * Stop-loop guard's preparation, the chain run as `from(chain) → runHooks → stopOnBlock →
 * foldDecision` (`runEvent`), the guard's settlement, then the audit after the decision
 * (`auditEvent`); whatever throws is that event's internal-failure answer. Audit records and
 * observer records leave on `side$`.
 */
import {
  catchError,
  concatMap,
  filter,
  from,
  isObservable,
  map,
  merge,
  of,
  ReplaySubject,
  Subject,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import type { Admitted, AdmittedEvent, RejectedInput } from '../../operators/admitEvents.js';
import { foldDecision } from '../../operators/foldDecision.js';
import { matchJob, type Job, type MatchedEvent } from '../../operators/matchHooks.js';
import { runHooks } from '../../operators/runHooks.js';
import { runObservers, type Observation } from '../../operators/runObservers.js';
import { stopOnBlock } from '../../operators/stopOnBlock.js';
import { withLatestRegistry } from '../../operators/withLatestRegistry.js';
import { auditEvent, type EventAudit } from '../audit/event-audit.js';
import type { AuditConfigRecord, AuditRecord } from '../audit/records.js';
import type { ChainStep } from '../chain/hook-run.js';
import type { HookEvent } from '../events/codecs.js';
import { describeThrown } from '../events/untrusted.js';
import { openRun, type HookExecutor } from '../exec/port.js';
import {
  toDecision,
  toNotification,
  type HookError,
  type HookNotification,
  type OutputLine,
} from '../output/lines.js';
import { aggregate, type HookRun } from '../protocol/aggregate.js';
import { effectiveDecision } from '../protocol/effective.js';
import { redactText } from '../protocol/redact/index.js';
import { failure } from '../protocol/result.js';
import { createStopLoopLedger } from '../protocol/stop-loop.js';
import { hasObservers, observersFor } from '../registry/chain.js';
import type { Hook, Registry } from '../registry/hook.js';
import { prepareStop, settleStop } from './stop-loop-run.js';

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
      current: () => registry,
      unsubscribe: () => undefined,
    };
  }
  const latest = new ReplaySubject<Registry>(1);
  const subscription = registry.subscribe(latest);
  let now: Registry | undefined;
  subscription.add(latest.subscribe((next) => (now = next)));
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
    current: () => now,
    unsubscribe: () => subscription.unsubscribe(),
  };
};

/** A running engine: what `hookPipeline` and `createSession` drive. */
export interface Engine {
  /** One admitted item's lines: a notification per hook as it finishes, then its decision. */
  readonly decide: (item: Admitted) => ObservableInput<OutputLine>;
  /** Audit records (only while `listening`) and observers' records, for the engine's life. */
  readonly side$: Observable<AuditRecord>;
  /** The registry current now; undefined until a `registry$` gives one. */
  readonly registry: () => Registry | undefined;
  /** No more items: observers still running finish, then `side$` completes. */
  readonly end: () => void;
  /** Releases the registry subscription and what the executor keeps (persistent processes). */
  readonly close: () => void;
}

/**
 * Opens an engine on a registry (or a `registry$`, followed until `close`). `listening` says
 * whether anyone reads the audit now: records are built only then.
 */
export const openEngine = (
  registry: Registry | Observable<Registry>,
  deps: PipelineDeps,
  options: PipelineOptions,
  listening: () => boolean,
): Engine => {
  // What the executor keeps across events (persistent hook processes) and the Stop-loop guard's
  // counts live exactly as long as the engine.
  const opened = openRun(deps.executor);
  const runDeps = { ...deps, executor: opened.executor };
  const ledger = createStopLoopLedger(options.stopLoopLimit);
  const runJob: RunJob = (job, onRun) => {
    const prepared = prepareStop(ledger, job);
    return settleStop(ledger, prepared, runEvent(prepared, runDeps, onRun));
  };
  // The audit (docs/audit.md): records join in the order they are made; observers get decided
  // events and report on the audit stream only.
  const records = new Subject<AuditRecord>();
  const observations = new Subject<Observation>();
  const audit: ChainAudit = {
    auditing: listening,
    emit: (record) => records.next(record),
    observe: (observation) => observations.next(observation),
    content: options.auditContent === true,
    now: () => deps.scheduler.now(),
  };
  const registries = followRegistry(registry);
  return {
    decide: registries.run(runJob, audit),
    registry: registries.current,
    side$: merge(
      records,
      observations.pipe(runObservers(runDeps, options.observerQueue, options.interrupt$)),
    ),
    end: () => {
      records.complete();
      observations.complete();
    },
    close: () => {
      registries.unsubscribe();
      opened.unsubscribe();
    },
  };
};
