import type { EventInput } from '../src/events/codecs.js';
import { performance } from 'node:perf_hooks';
import { InMemorySpanExporter, BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Subject, type Subscription } from 'rxjs';
import { traceAudit } from '../src/audit/trace.js';
import type { AuditRecord } from '../src/audit/records.js';
import { encodeAuditRecord } from '../src/cli/audit-file.js';
import type { HookDecision } from '../src/output/lines.js';
import { processExecutor } from '../src/exec/process-executor.js';
import { defaultDeps, hookPipeline } from '../src/pipeline/pipeline.js';
import { defineHooks, type HookDefinition } from '../src/registry/define.js';
import type { Registry } from '../src/registry/hook.js';
import { mixedEvent, preToolUse } from './fixtures.js';
import { stockEngine } from './stock-engine.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { formatNumber, type Row } from './report.js';
import { median, pairedRatios, summarize } from './stats.js';
import { interleaveIsolated, type IsolatedProbe } from './isolated.js';

/** An observer that takes 50 ms per event: far slower than events arrive, so its lane fills. */
const slowObserver: HookDefinition = {
  name: 'slow-observer',
  observe: true,
  run: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 50)),
};
const guard: HookDefinition = { name: 'guard', run: () => ({ decision: 'allow' as const }) };

type Setup = 'plain' | 'audited' | 'traced' | 'floor' | 'stock';

/**
 * The floor of an audit: the records `audited` gets for an event (event_received, a hook_result
 * per hook that ran, decision), built by the host from the event and its decision line and
 * encoded as the CLI encodes them. What any audit must do per event, with no engine part in it.
 */
const floorRecords = (
  line: HookDecision,
  event: Readonly<Record<string, unknown>>,
  at: number,
): readonly AuditRecord[] => {
  const ids = {
    type: 'audit',
    seq: line.seq,
    hook_event_name: line.hook_event_name,
    session_id: line.session_id,
    ...(line.tool_use_id !== undefined && { tool_use_id: line.tool_use_id }),
  };
  const hooks = line.hooks;
  const records: Record<string, unknown>[] = [
    {
      ...ids,
      record: 'event_received',
      time_ms: at,
      chain: hooks.map((hook) => hook.name),
      tool_name: event['tool_name'],
    },
    ...hooks.map((hook, position) => ({
      ...ids,
      record: 'hook_result',
      time_ms: at,
      hook: hook.name,
      source: hook.source,
      position,
      start_ms: at,
      end_ms: at,
      duration_ms: hook.duration_ms,
      outcome: hook.outcome,
      decision: hook.decision,
      effective: hook.decision,
    })),
    {
      ...ids,
      record: 'decision',
      time_ms: at,
      decision: line.decision,
      ...(hooks.length > 0 && { decided_by: hooks[0]!.name }),
      hooks_run: hooks.length,
      hooks_skipped: 0,
      duration_ms: 0,
    },
  ];
  return records as unknown as readonly AuditRecord[];
};

/**
 * Microseconds from `next(event)` to its decision reaching a subscriber, averaged over `events`.
 * `audited`: an audit$ subscriber encoding every record as the CLI does, and the slow observer;
 * `traced`: that, plus spans from the audit stream into an SDK with a batch processor; `floor`: no
 * audit, no observer, but after taking the decision's time the host builds and encodes the same
 * records itself (`floorRecords`): what an audit costs at the least, on the same thread.
 */
const latencyRound =
  (registry: Registry, setup: Setup, events: readonly unknown[]): (() => Promise<number>) =>
  async () => {
    const input = new Subject<EventInput>();
    const deps = defaultDeps(processExecutor());
    const streams = hookPipeline(registry, deps)(input);
    // The floor of 9a and 9b: the same shape from stock RxJS operators, the host building the records.
    const decisions$ = setup === 'stock' ? stockEngine(registry, deps)(input) : streams.decisions$;
    const subscriptions: Subscription[] = [];
    let encoded = '';
    let provider: TracerProvider | undefined;
    if (setup === 'audited' || setup === 'traced') {
      subscriptions.push(streams.audit$.subscribe((record) => (encoded = encodeAuditRecord(record))));
    }
    if (setup === 'traced') {
      provider = new TracerProvider({
        spanProcessors: [
          new BatchSpanProcessor({ exporter: new InMemorySpanExporter(), maxQueueSize: 2048 }),
        ],
      });
      subscriptions.push(await traceAudit(streams.audit$, { tracerProvider: provider }));
    }
    let decidedAt = 0;
    let decided = 0;
    subscriptions.push(
      decisions$.subscribe((line) => {
        decidedAt = performance.now();
        decided += 1;
        if (setup === 'floor' || setup === 'stock') {
          for (const record of floorRecords(
            line,
            events[line.seq - 1] as Record<string, unknown>,
            Date.now(),
          )) {
            encoded = encodeAuditRecord(record);
          }
        }
      }),
    );
    let total = 0;
    for (const event of events) {
      const sent = performance.now();
      input.next(event as EventInput);
      total += decidedAt - sent;
    }
    for (const subscription of subscriptions) subscription.unsubscribe();
    await provider?.shutdown();
    if (decided !== events.length) throw new Error(`${decided} of ${events.length} decided synchronously`);
    if (setup !== 'plain' && encoded === '') throw new Error('no audit record was encoded');
    return (total * 1000) / events.length;
  };

/** Which events and registries a probe of measurement 9 uses. */
type HookCase = 'none' | 'one';

export interface AuditProbeOptions {
  readonly setup: Setup;
  readonly hookCase: HookCase;
  /** The fixtures folder (the events' `cwd`). */
  readonly dir: string;
  readonly batch: number;
}

/**
 * The registry of a case and set-up: `none`, events that match no chain hook (the guard wants a
 * tool none of them uses; the observer has no matcher, so the PreToolUse ones reach it); `one`,
 * PreToolUse events that all meet the guard. The audited and traced set-ups add the slow observer.
 */
const registryOf = (hookCase: HookCase, setup: Setup): Registry => {
  const chainHook: HookDefinition = hookCase === 'none' ? { ...guard, matcher: '^deploy$' } : guard;
  const observed = setup === 'audited' || setup === 'traced';
  return defineHooks({ PreToolUse: observed ? [chainHook, slowObserver] : [chainHook] });
};

/** Builds one probe of measurement 9 with its own events: what `bench/probe-worker.ts` calls. */
export const probe = (options: AuditProbeOptions): (() => Promise<number>) => {
  const make = options.hookCase === 'none' ? mixedEvent : preToolUse;
  const events = Array.from({ length: options.batch }, (_, n) => make(options.dir, n));
  return latencyRound(registryOf(options.hookCase, options.setup), options.setup, events);
};

const cell = (samples: readonly number[]) => {
  const summary = summarize(samples);
  return `${formatNumber(summary.median)} µs (p95 ${formatNumber(summary.p95)})`;
};

/**
 * Measurement 9: decision latency with the audit on (an audit$ subscriber encoding every record as
 * `run --audit` does, plus an observer far too slow for the event rate) against the floor of an
 * audit (the host building and encoding the same records, no engine part) and against the same
 * registry without either, on events without a chain hook and on events with one in-process hook; then
 * OpenTelemetry spans built from the audit stream, on against off. Latency is the time from
 * `next(event)` to the decision reaching a subscriber (the engine answers these synchronously).
 * Each set-up runs in a worker thread of its own (`interleaveIsolated`), as a host runs one of
 * them, not all four in one process.
 */
export const measureAudit = async (context: Context): Promise<Measured> => {
  const batch = context.quick ? 4_000 : 20_000;
  const counts = context.quick ? { warmup: 2, iterations: 7 } : { warmup: 3, iterations: 15 };
  context.log(
    `9 audit: ${counts.iterations} rounds of ${batch} events, plain / audited / traced, each in its own worker`,
  );
  const isolated = (hookCase: HookCase, setup: Setup): IsolatedProbe => ({
    module: new URL(import.meta.url),
    options: { setup, hookCase, dir: context.fixtures.dir, batch } satisfies AuditProbeOptions,
  });
  const none = await interleaveIsolated(counts, {
    plain: isolated('none', 'plain'),
    audited: isolated('none', 'audited'),
    traced: isolated('none', 'traced'),
    floor: isolated('none', 'floor'),
    stock: isolated('none', 'stock'),
  });
  const one = await interleaveIsolated(counts, {
    plain: isolated('one', 'plain'),
    audited: isolated('one', 'audited'),
    traced: isolated('one', 'traced'),
    floor: isolated('one', 'floor'),
    stock: isolated('one', 'stock'),
  });
  const pairRatio = (subject: readonly number[], baseline: readonly number[]) =>
    median(pairedRatios(subject, baseline));
  const rows: Row[] = [
    {
      id: '9a',
      what: 'decision latency, no chain hook: audit$ subscriber + slow observer vs `stockEngine` (the same shape from stock RxJS operators) with the host building and encoding the same records',
      subject: cell(none.audited),
      baseline: cell(none.stock),
      ratio: pairRatio(none.audited, none.stock),
    },
    {
      id: '9b',
      what: 'decision latency, one in-process hook: audit$ subscriber + slow observer vs `stockEngine` with the host building the records',
      subject: cell(one.audited),
      baseline: cell(one.stock),
      ratio: pairRatio(one.audited, one.stock),
    },
    {
      id: '9c',
      what: 'decision latency, no chain hook: + OpenTelemetry spans (SDK, batch processor) vs audit off',
      subject: cell(none.traced),
      baseline: cell(none.plain),
      ratio: pairRatio(none.traced, none.plain),
    },
    {
      id: '9d',
      what: 'decision latency, one in-process hook: + OpenTelemetry spans vs audit off',
      subject: cell(one.traced),
      baseline: cell(one.plain),
      ratio: pairRatio(one.traced, one.plain),
    },
    {
      id: '9e',
      what: 'the floor of an audit, no chain hook: no audit, no observer, the host builds and encodes the records itself vs plain',
      subject: cell(none.floor),
      baseline: cell(none.plain),
      ratio: pairRatio(none.floor, none.plain),
    },
    {
      id: '9f',
      what: 'the floor of an audit, one in-process hook (three records) vs plain',
      subject: cell(one.floor),
      baseline: cell(one.plain),
      ratio: pairRatio(one.floor, one.plain),
    },
  ];
  return {
    rows,
    raw: {
      auditNoHookUs: {
        plain: rawSeries(none.plain),
        audited: rawSeries(none.audited),
        traced: rawSeries(none.traced),
        floor: rawSeries(none.floor),
        stock: rawSeries(none.stock),
      },
      auditOneHookUs: {
        plain: rawSeries(one.plain),
        audited: rawSeries(one.audited),
        traced: rawSeries(one.traced),
        floor: rawSeries(one.floor),
        stock: rawSeries(one.stock),
      },
    },
  };
};
