import {
  asyncScheduler,
  catchError,
  concatMap,
  concatWith,
  defer,
  EMPTY,
  filter,
  finalize,
  merge,
  share,
  Subject,
  takeUntil,
  throwError,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import { admitEvents, type Admitted } from '../../operators/admitEvents.js';
import { concatMapByKey, trampolined } from '../../operators/concatMapByKey.js';
import { parseLines } from '../../operators/parseLines.js';
import { isAuditRecord, type AuditRecord } from '../audit/records.js';
import { boundedKey } from '../events/bounded-key.js';
import type { EventInput } from '../events/codecs.js';
import type { JsonLine } from '../events/input.js';
import { processExecutor } from '../exec/process-executor.js';
import type { HookExecutor } from '../exec/port.js';
import {
  isDecision,
  isHookError,
  isNotification,
  type HookDecision,
  type HookError,
  type HookNotification,
  type OutputLine,
} from '../output/lines.js';
import type { Registry } from '../registry/hook.js';
import { openEngine, type PipelineDeps, type PipelineOptions } from './engine.js';

export type { PipelineDeps, PipelineOptions };

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

const sessionOf = (item: Admitted): string =>
  item.kind === 'event' ? boundedKey(item.event.session_id) : '';

/**
 * Builds the engine: `input$` in, hook output streams out. Each input item is an event as a value
 * (typed `EventInput`; the engine still checks every value at run time, and answers one that is
 * not a valid event with a `hook_error`) or a `JsonLine` of raw text; `parseLines` at the edge
 * tells them apart, and from there on the engine works on typed `ParsedInput`s.
 * A misbehaving hook, a malformed event or anything that throws while one event is handled never
 * errors the outputs (that event gets its internal-failure answer); an error of `input$` itself is
 * passed on once every event admitted before it has its answer. Unsubscribing cancels running
 * hooks (their process groups are killed).
 */
export const hookPipeline =
  (registry: Registry | Observable<Registry>, deps: PipelineDeps, options: PipelineOptions = {}) =>
  (input$: Observable<EventInput | JsonLine>): HookStreams => {
    let auditListeners = 0;
    const output$ = defer(() => {
      const engine = openEngine(registry, deps, options, () => auditListeners > 0);
      const ended = new Subject<void>();
      // An error of input$ waits until every event admitted before it has its answer (spec §7).
      let inputError: { readonly error: unknown } | undefined;
      const lines$ = input$.pipe(
        catchError((error: unknown) => {
          inputError = { error };
          return EMPTY;
        }),
        parseLines(),
        admitEvents(deps),
        options.concurrency === 'per-session'
          ? concatMapByKey(sessionOf, engine.decide)
          : concatMap(trampolined(engine.decide)),
        // Observers still running finish (each within its timeout) before the run completes.
        finalize(() => {
          ended.next();
          engine.end();
        }),
      );
      return merge<(OutputLine | AuditRecord)[]>(
        engine.side$,
        (options.auditNotes ?? EMPTY).pipe(takeUntil(ended)),
        lines$,
      ).pipe(
        concatWith(
          defer(() => {
            const failed = inputError;
            return failed === undefined ? EMPTY : throwError(() => failed.error);
          }),
        ),
        finalize(() => engine.close()),
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
