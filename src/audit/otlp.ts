import type { Span } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import { describeThrown } from '../events/untrusted.js';
import { packageVersion } from '../version.js';
import type { AuditRecord } from './records.js';
import { spanBuilder } from './spans.js';

/** The OTLP export of `cosh-hooks run`: records in, spans out over OTLP/HTTP (JSON). */
export interface OtlpExport {
  /** Makes the spans of one record; never blocks, never throws. */
  readonly feed: (record: AuditRecord) => void;
  /** Sends what is queued (bounded in time) and says how it went. */
  readonly finish: () => Promise<OtlpTally>;
}

/** How an export went: spans the collector accepted, and spans lost (refused, unreachable, queue full). */
export interface OtlpTally {
  readonly exported: number;
  readonly dropped: number;
  readonly message?: string;
}

/** Queue and batch bounds: a collector that is down costs at most this much memory. */
const MAX_QUEUE = 8192;
const EXPORT_TIMEOUT_MS = 3000;
/** How long the end of a run waits for the last batch. */
const FINISH_TIMEOUT_MS = 5000;

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * Whether OTLP export is asked for: `--otlp-endpoint`, or the standard variables
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, unless
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export const otlpRequested = (endpoint: string | undefined, env: NodeJS.ProcessEnv): boolean => {
  if (endpoint !== undefined) return true;
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  if (env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() === 'none') return false;
  return nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT']) || nonEmpty(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
};

/** `--otlp-endpoint` is a base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` is: `/v1/traces` is added to it. */
export const tracesUrl = (endpoint: string): string =>
  /\/v1\/traces\/?$/.test(endpoint) ? endpoint : `${endpoint.replace(/\/+$/, '')}/v1/traces`;

const timeout = (ms: number) =>
  new Promise<'timeout'>((resolve) => {
    setTimeout(() => resolve('timeout'), ms).unref();
  });

/**
 * Starts the export: loads the OpenTelemetry SDK and the official OTLP/HTTP exporter (only now:
 * a run without OTLP never loads them), with a batch processor whose queue is bounded. Spans are
 * counted as they end and as the collector accepts them; whatever ended and was not accepted is
 * `dropped`. The tracer provider is this run's own; nothing global is registered.
 */
export const startOtlpExport = async (settings: {
  readonly endpoint?: string | undefined;
  readonly content: boolean;
  readonly env: NodeJS.ProcessEnv;
}): Promise<OtlpExport> => {
  const [api, sdk, resources, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  let ended = 0;
  let exported = 0;
  let lastError: string | undefined;
  const exporter = new otlp.OTLPTraceExporter({
    ...(settings.endpoint !== undefined && { url: tracesUrl(settings.endpoint) }),
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const counting: SpanExporter = {
    export: (spans, done) => {
      exporter.export(spans, (result) => {
        if (result.code === 0) exported += spans.length;
        else lastError = result.error === undefined ? 'export failed' : describeThrown(result.error);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  const batch = new sdk.BatchSpanProcessor({
    exporter: counting,
    maxQueueSize: MAX_QUEUE,
    maxExportBatchSize: 512,
    scheduledDelayMillis: 1000,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span: ReadableSpan) => {
      ended += 1;
      batch.onEnd(span);
    },
    forceFlush: () => batch.forceFlush(),
    shutdown: () => batch.shutdown(),
  };
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': nonEmpty(settings.env['OTEL_SERVICE_NAME'])
        ? settings.env['OTEL_SERVICE_NAME']
        : 'cosh-hooks',
      'service.version': packageVersion(),
    }),
    spanProcessors: [processor],
  });
  const feed = spanBuilder(
    {
      tracer: provider.getTracer('cosh-hooks', packageVersion()),
      parentContext: (span: Span) => api.trace.setSpan(api.ROOT_CONTEXT, span),
    },
    { content: settings.content },
  );
  return {
    feed,
    finish: async () => {
      let message = lastError;
      try {
        if ((await Promise.race([provider.shutdown(), timeout(FINISH_TIMEOUT_MS)])) === 'timeout') {
          message = `the collector did not answer within ${FINISH_TIMEOUT_MS} ms`;
        }
      } catch (error) {
        message = describeThrown(error);
      }
      message ??= lastError;
      const dropped = Math.max(0, ended - exported);
      return { exported, dropped, ...(dropped > 0 && message !== undefined && { message }) };
    },
  };
};
