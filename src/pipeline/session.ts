import {
  concatMap,
  concatWith,
  defer,
  EMPTY,
  finalize,
  isObservable,
  map,
  of,
  ReplaySubject,
  Subject,
  take,
  takeUntil,
  throwError,
  type Observable,
} from 'rxjs';
import type { MatchedEvent } from '../../operators/matchHooks.js';
import { runObservers, type Observation } from '../../operators/runObservers.js';
import { withLatestRegistry } from '../../operators/withLatestRegistry.js';
import { auditEvent, type EventAudit } from '../audit/event-audit.js';
import type { AuditRecord } from '../audit/records.js';
import { boundedKey } from '../events/bounded-key.js';
import type { EventInput } from '../events/codecs.js';
import { admit, idsOf, readInput, type JsonLine } from '../events/input.js';
import { openRun } from '../exec/port.js';
import type { HookError, OutputLine } from '../output/lines.js';
import { redactText } from '../protocol/redact/index.js';
import type { EventName } from '../events/names.js';
import { chainFor, hasObservers, mayApply, observersFor } from '../registry/chain.js';
import type { Registry } from '../registry/hook.js';
import { runEvent, type PipelineDeps, type PipelineOptions } from './pipeline.js';
import { guardedRunner } from './stop-loop-run.js';

/** Options of `createSession`: the same scheduling choices as the pipeline's. */
export type SessionOptions = PipelineOptions;

/** The error of every `decide` still running or queued at `close()`, and of every `decide` after it. */
export class SessionClosedError extends Error {
  override readonly name = 'SessionClosedError';
}

/**
 * A long-lived engine for a host's own RxJS loop, made by `createSession`: one event in, that
 * event's lines out, with `seq` counting across calls. It holds what the run holds (running hook
 * processes, and the processes of persistent hooks, spec §8) until `close()`.
 */
export interface Session {
  /**
   * The lines of one event: a notification per hook as it finishes, then its decision, then
   * completion. The event is typed (`EventInput`), and still checked at run time: an input that
   * is not a valid event gives one `hook_error` value (never an error notification), so a host
   * loop goes on. Cold: nothing runs before `subscribe`, and each
   * subscription decides the event once more (with a new `seq`); subscribe once, as `concatMap`
   * does. Unsubscribing cancels the event: its running hook is stopped (a command hook's process
   * group is killed) and the hooks after it never start.
   *
   * Events wait for each other as in the pipeline: with `concurrency: 'sequential'` (default) an
   * event's hooks start only after every earlier subscribed event is decided or cancelled; with
   * `'per-session'` only events of the same `session_id` wait for each other. Errors with
   * `SessionClosedError` once the session is closed.
   */
  decide(event: EventInput | JsonLine): Observable<OutputLine>;
  /**
   * Whether deciding an event `name` could do anything: an enabled hook or observer of the
   * registry current now can match it (`matched`: its matched field, the tool name on tool
   * events; absent, any hook of the event counts), or someone listens to `audit$`. When not, its
   * decision would be pass-through with no hooks, and a host may skip building and sending it (the
   * adapters do). True before a registry$ has given a registry, and once closed (`decide` then
   * says why).
   */
  wants(name: EventName, matched?: string): boolean;
  /**
   * Ends the session: every running or queued `decide` errors with `SessionClosedError` and its
   * hooks are stopped; later `decide`s error the same way. Idempotent.
   */
  close(): void;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /**
   * The session's audit stream (docs/audit.md), hot, for its life: subscribe before deciding.
   * Records are built only while someone subscribes. Completes at `close()`, which also stops
   * observers still running.
   */
  readonly audit$: Observable<AuditRecord>;
}

/** One subscribed `decide` in its queue; the head of a queue is the one running. */
interface Turn {
  started: boolean;
  readonly start: () => void;
}

interface Queue {
  readonly turns: Turn[];
  /** Set while `pump` runs, so that a turn ending synchronously does not start the next one recursively. */
  pumping: boolean;
}

/**
 * Creates a session on a registry: the reactive way to ask for one event's decision. Compose it
 * in a host loop as `events$.pipe(concatMap((event) => session.decide(event)))`.
 *
 * ```
 * events$:                 --a---------b-------|
 * concatMap(decide):       --------n-A------B--|     n = a's notification, A and B the decisions
 * ```
 */
export const createSession = (
  registry: Registry | Observable<Registry>,
  deps: PipelineDeps,
  options: SessionOptions = {},
): Session => {
  let closed = false;
  // A registry$ is followed until close(); each event takes the registry current when it starts.
  // A fixed registry is paired as is: nothing to follow.
  const latest = new ReplaySubject<Registry>(1);
  const registries = isObservable(registry) ? registry.subscribe(latest) : undefined;
  // The registry current now, for `wants`; undefined until a registry$ gives one.
  let current = isObservable(registry) ? undefined : registry;
  const following = registries === undefined ? undefined : latest.subscribe((next) => (current = next));
  const withRegistry = isObservable(registry)
    ? withLatestRegistry<void>(latest)
    : map((): readonly [void, Registry] => [undefined, registry]);
  // One run for the session's life: persistent hook processes answer every `decide` until `close()`.
  const opened = openRun(deps.executor);
  const runDeps: PipelineDeps = { ...deps, executor: opened.executor };
  const guard = guardedRunner(options.stopLoopLimit);
  let index = 0;
  let seq = 0;
  const queues = new Map<string, Queue>();
  const closing = new Subject<void>();
  // The audit (docs/audit.md): one stream for the session's life, fed by every decide, the
  // observers and the host's notes.
  const audit = new Subject<AuditRecord>();
  const observations = new Subject<Observation>();
  const observed = observations
    .pipe(runObservers(runDeps, options.observerQueue))
    .subscribe((record) => audit.next(record));
  const notes = options.auditNotes?.subscribe((record) => audit.next(record));
  const observersOf = (current: Registry): EventAudit['observersOf'] =>
    hasObservers(current) ? (event) => observersFor(current, event) : () => [];
  const chainAudit: Omit<EventAudit, 'observersOf'> = {
    auditing: () => audit.observed,
    emit: (record) => audit.next(record),
    observe: (observation) => observations.next(observation),
    content: options.auditContent === true,
    now: () => deps.scheduler.now(),
  };

  // Starts the head of a queue; loops (instead of recursing) over turns that end synchronously.
  const pump = (key: string, queue: Queue): void => {
    if (queue.pumping) return;
    queue.pumping = true;
    try {
      for (let head = queue.turns[0]; !closed && head !== undefined && !head.started; head = queue.turns[0]) {
        head.started = true;
        head.start();
      }
    } finally {
      queue.pumping = false;
    }
    if (queue.turns.length === 0) queues.delete(key);
  };

  const leave = (key: string, turn: Turn): void => {
    const queue = queues.get(key);
    if (queue === undefined) return;
    const at = queue.turns.indexOf(turn);
    if (at === -1) return;
    queue.turns.splice(at, 1);
    pump(key, queue);
  };

  const enter = (key: string, turn: Turn): void => {
    const queue = queues.get(key) ?? { turns: [], pumping: false };
    queues.set(key, queue);
    queue.turns.push(turn);
    pump(key, queue);
  };

  const decide = (input: EventInput | JsonLine): Observable<OutputLine> =>
    defer(() => {
      if (closed) return throwError(() => new SessionClosedError('the session is closed'));
      index += 1;
      const parsed = readInput(input);
      const admission = admit(parsed, deps);
      if (!admission.ok) {
        // The message may quote the input: redacted, as everything that leaves the engine.
        const error: HookError = {
          type: 'hook_error',
          index,
          ...idsOf(parsed),
          message: redactText(admission.error),
        };
        return of(error);
      }
      seq += 1;
      const event = admission.value;
      const jobSeq = seq;
      const key = options.concurrency === 'per-session' ? boundedKey(event.session_id) : '';
      // Replays its one value: the turn may be started before the stream below subscribes to it.
      const go = new ReplaySubject<void>(1);
      const turn: Turn = { started: false, start: () => go.next() };
      enter(key, turn);
      return go.pipe(
        take(1),
        withRegistry,
        concatMap(([, current]) => {
          const job: MatchedEvent = { kind: 'event', seq: jobSeq, event, chain: chainFor(current, event) };
          const eventAudit: EventAudit = { ...chainAudit, observersOf: observersOf(current) };
          return auditEvent(
            job,
            (onRun) => guard(job, (guarded) => runEvent(guarded, runDeps, onRun)),
            eventAudit,
          );
        }),
        takeUntil(closing),
        concatWith(
          defer(() =>
            closed
              ? throwError(() => new SessionClosedError('the session was closed before the decision'))
              : EMPTY,
          ),
        ),
        // On completion, error or unsubscribe, at once: a turn that ends synchronously leaves its
        // queue before the next one starts.
        finalize(() => leave(key, turn)),
      );
    });

  return {
    decide,
    wants: (name, matched) =>
      closed || current === undefined || audit.observed || mayApply(current, name, matched),
    close: () => {
      if (closed) return;
      closed = true;
      // Every running or queued decide ends with SessionClosedError, its hook stopped.
      closing.next();
      queues.clear();
      observed.unsubscribe();
      notes?.unsubscribe();
      audit.complete();
      registries?.unsubscribe();
      following?.unsubscribe();
      opened.unsubscribe();
    },
    audit$: audit.asObservable(),
    get closed() {
      return closed;
    },
  };
};
