import { otlpRequested, startOtlpExport, type OtlpExport } from '../audit/otlp.js';
import type { AuditRecord } from '../audit/records.js';
import { describeThrown } from '../events/untrusted.js';
import { err, ok, type Result } from '../result.js';
import { openAuditFile, type AuditFile } from './audit-file.js';
import { printableLine } from './format.js';
import { abandonPendingWrites } from './terminal.js';

/**
 * Where a command's audit records go (`run`, `mcp-proxy`): the `--audit` file and the OTLP
 * export, opened from the flags and closed with their tallies on stderr (docs/audit.md).
 */

/** The audit flags, as commander parses them. */
export interface AuditFlags {
  /** `--audit FILE`: audit records as JSON lines, `-` = stderr (docs/audit.md). */
  readonly audit?: string;
  /** `--otlp-endpoint URL`: export spans over OTLP/HTTP. */
  readonly otlpEndpoint?: string;
  /** `--otlp-content`: tool input and prompts on the spans (and in the audit), redacted. */
  readonly otlpContent?: boolean;
}

/** What a run's audit goes to: the `--audit` file and the OTLP export, either, both or none. */
export interface AuditOutputs {
  readonly file?: AuditFile;
  readonly otlp?: OtlpExport;
}

export const openAuditOutputs = async (flags: AuditFlags): Promise<Result<AuditOutputs, string>> => {
  const file = flags.audit === undefined ? undefined : openAuditFile(flags.audit, process.stderr);
  if (file !== undefined && !file.ok) return err(file.error);
  if (!otlpRequested(flags.otlpEndpoint, process.env))
    return ok(file === undefined ? {} : { file: file.value });
  try {
    // The OpenTelemetry SDK and exporter are imported inside: a run without OTLP never loads them.
    const otlp = await startOtlpExport({
      endpoint: flags.otlpEndpoint,
      content: flags.otlpContent === true,
      env: process.env,
    });
    return ok(file === undefined ? { otlp } : { file: file.value, otlp });
  } catch (error) {
    if (file !== undefined) await file.value.close();
    return err(`OTLP export: cannot start: ${describeThrown(error)}`);
  }
};

export const fanOut = (outputs: AuditOutputs): ((record: AuditRecord) => void) | undefined => {
  const { file, otlp } = outputs;
  if (file === undefined && otlp === undefined) return undefined;
  if (otlp === undefined) return file?.write;
  if (file === undefined) return otlp.feed;
  return (record) => {
    file.write(record);
    otlp.feed(record);
  };
};

/**
 * Ends the audit outputs: the OTLP tally goes to the audit and, when spans were lost, to stderr.
 * True when `--audit` records were lost (not written, or still waiting when the end gave up).
 */
export const closeAuditOutputs = async (outputs: AuditOutputs, stopped: boolean): Promise<boolean> => {
  if (outputs.otlp !== undefined) {
    // After a stop signal nobody waits for the collector: what is queued is counted as lost.
    const tally = stopped ? undefined : await outputs.otlp.finish();
    if (tally !== undefined) {
      outputs.file?.write({ type: 'audit', record: 'telemetry', time_ms: Date.now(), ...tally });
      if (tally.dropped > 0) {
        process.stderr.write(
          `cosh-hooks: OTLP export: ${tally.dropped} span(s) dropped, ${tally.exported} exported${tally.message === undefined ? '' : ` (${printableLine(tally.message)})`}\n`,
        );
      }
    }
  }
  if (outputs.file !== undefined) {
    const tally = await outputs.file.close();
    const why = [
      ...(tally.error === undefined ? [] : [printableLine(tally.error)]),
      ...(tally.gaveUpAfterMs === undefined ? [] : [`still waiting after ${tally.gaveUpAfterMs} ms`]),
    ];
    if (tally.dropped > 0 || why.length > 0) {
      process.stderr.write(
        `cosh-hooks: --audit: ${tally.dropped} record(s) not written${why.length === 0 ? '' : ` (${why.join('; ')})`}\n`,
      );
    }
    // The write still pending would hold the process until it ends: it ends without waiting for it.
    if (tally.gaveUpAfterMs !== undefined) abandonPendingWrites();
    return tally.dropped > 0 || why.length > 0;
  }
  return false;
};
