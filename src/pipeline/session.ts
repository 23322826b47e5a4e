import {
  concatMap,
  concatWith,
  defer,
  EMPTY,
  finalize,
  of,
  ReplaySubject,
  Subject,
  take,
  takeUntil,
  throwError,
  type Observable,
} from 'rxjs';
import type { AdmittedEvent } from '../../operators/admitEvents.js';
import { concatMapByKey } from '../../operators/concatMapByKey.js';
import type { AuditRecord } from '../audit/records.js';
import { boundedKey } from '../events/bounded-key.js';
import type { EventInput } from '../events/codecs.js';
import { admit, idsOf, readInput, type JsonLine } from '../events/input.js';
import type { HookError, OutputLine } from '../output/lines.js';
import { redactText } from '../protocol/redact/index.js';
import type { EventName } from '../events/names.js';
import { mayApply } from '../registry/chain.js';
import type { Registry } from '../registry/hook.js';
import { openEngine, type PipelineDeps, type PipelineOptions } from './engine.js';

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

/** One subscribed `decide` waiting for, or taking, its turn in its key's queue. */
interface Turn {
  readonly key: string;
  /** Emits when the turn starts (replayed: it may start before the decide listens). */
  readonly go: ReplaySubject<void>;
  /** Completes when the decide ends: completed, errored or unsubscribed. */
  readonly done: Subject<void>;
  /** Emits at close(): the decide ends, running or queued (one subscriber: no shared list to search). */
  readonly stop: Subject<void>;
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
  // The session's audit (docs/audit.md): one stream for its life, fed by the engine (records and
  // observers) and the host's notes; records are built only while someone listens.
  const audit = new Subject<AuditRecord>();
  // One engine for the session's life: persistent hook processes answer every decide until close().
  const engine = openEngine(registry, deps, options, () => audit.observed);
  const side = engine.side$.subscribe((record) => audit.next(record));
  const notes = options.auditNotes?.subscribe((record) => audit.next(record));
  // Turns: one key's decides one after another, keys overlapping (per-session), by concatMapByKey.
  const turns = new Subject<Turn>();
  const queue = turns
    .pipe(
      concatMapByKey(
        (turn) => turn.key,
        (turn) => {
          turn.go.next();
          return turn.done;
        },
      ),
    )
    .subscribe();
  // The decides subscribed and not ended, for close().
  const open = new Set<Turn>();
  let index = 0;
  let seq = 0;

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
      const item: AdmittedEvent = { kind: 'event', seq, event: admission.value };
      const turn: Turn = {
        key: options.concurrency === 'per-session' ? boundedKey(item.event.session_id) : '',
        go: new ReplaySubject<void>(1),
        done: new Subject<void>(),
        stop: new Subject<void>(),
      };
      open.add(turn);
      turns.next(turn);
      return turn.go.pipe(
        take(1),
        concatMap(() => engine.decide(item)),
        takeUntil(turn.stop),
        concatWith(
          defer(() =>
            closed
              ? throwError(() => new SessionClosedError('the session was closed before the decision'))
              : EMPTY,
          ),
        ),
        // On completion, error or unsubscribe: the next turn of its key may start.
        finalize(() => {
          open.delete(turn);
          turn.done.complete();
        }),
      );
    });

  return {
    decide,
    wants: (name, matched) => {
      const current = engine.registry();
      return closed || current === undefined || audit.observed || mayApply(current, name, matched);
    },
    close: () => {
      if (closed) return;
      closed = true;
      // No turn starts any more; then every running or queued decide ends with SessionClosedError.
      queue.unsubscribe();
      for (const turn of [...open]) turn.stop.next();
      side.unsubscribe();
      notes?.unsubscribe();
      audit.complete();
      engine.close();
    },
    audit$: audit.asObservable(),
    get closed() {
      return closed;
    },
  };
};
