import type { Tracer } from '@opentelemetry/api';
import type { Observable, Subscription } from 'rxjs';
import { describeThrown } from '../events/untrusted.js';
import { packageVersion } from '../version.js';
import type { AuditRecord } from './records.js';
import { spanBuilder } from './spans.js';

/** Options of `traceAudit`. */
export interface TraceAuditOptions {
  /**
   * Where the tracer comes from: an OpenTelemetry `TracerProvider` (typed loosely so that hosts
   * without `@opentelemetry/api` still compile). Default: the global provider the host's SDK
   * registered; without an SDK, OpenTelemetry's no-op one, and nothing happens.
   */
  readonly tracerProvider?: { getTracer(name: string, version?: string): unknown };
  /**
   * Put the tool input and the prompt on the event span (`gen_ai.tool.call.arguments`,
   * `cosh.hook.event.prompt`), redacted. They are there only when the engine runs with
   * `auditContent: true`. Default false.
   */
  readonly content?: boolean;
}

/**
 * Builds OpenTelemetry spans from an audit stream (docs/audit.md): one span per event, a child per
 * hook, skipped hook and observer, with the GenAI semantic conventions' attribute names where they
 * exist (`gen_ai.conversation.id`, `gen_ai.session.id`, `gen_ai.tool.name`, `gen_ai.tool.call.id`)
 * and `cosh.hook.*` for the rest. `@opentelemetry/api` (an optional peer dependency) is loaded
 * here, on this call, never by the engine. Spans are made off the decision path, from records;
 * exporting them is the SDK's business. Resolves with the subscription once tracing is on (await
 * it before events flow: records from before are not traced); rejects when `@opentelemetry/api`
 * is not installed.
 *
 * Example: `const tracing = await traceAudit(streams.audit$);`
 */
export const traceAudit = async (
  audit$: Observable<AuditRecord>,
  options: TraceAuditOptions = {},
): Promise<Subscription> => {
  const loaded = await import('@opentelemetry/api').then(
    (module) => ({ ok: true as const, api: module }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (!loaded.ok) {
    throw new Error(
      `cosh-hooks: tracing needs the package @opentelemetry/api: ${describeThrown(loaded.error)}`,
      {
        cause: loaded.error,
      },
    );
  }
  const { api } = loaded;
  const provider = options.tracerProvider ?? api.trace.getTracerProvider();
  const tracer = provider.getTracer('cosh-hooks', packageVersion()) as Tracer;
  const feed = spanBuilder(
    { tracer, parentContext: (span) => api.trace.setSpan(api.context.active(), span) },
    { content: options.content },
  );
  return audit$.subscribe({ next: feed, error: () => undefined });
};
