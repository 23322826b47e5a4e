import { concat, EMPTY, from } from 'rxjs';
import { configNotes } from './config-notes.js';
import { readInputText } from '../config/files.js';
import { describeThrown } from '../events/untrusted.js';
import { registryOf } from '../registry/chain.js';
import { formatProblem, loadHooks, type ConfigProblem, type LoadResult } from '../config/index.js';
import type { EventName } from '../events/names.js';
import type { EventInput } from '../events/codecs.js';
import { parseJson } from '../events/untrusted.js';
import { processExecutor } from '../exec/index.js';
import { createDispatcher, type DispatchResult } from '../pipeline/dispatch.js';
import { defaultDeps, type PipelineDeps } from '../pipeline/pipeline.js';
import { dryRunHooks } from './doctor.js';
import { buildFireEvent } from './fire-event.js';
import { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
import {
  chainsToJson,
  formatChains,
  formatDoctorSummary,
  formatDryRuns,
  formatFireResult,
  formatProblemLines,
  formatValidationSummary,
  modeOf,
  printableJson,
  printableLine,
  redactedHooks,
} from './format.js';
import { redactJson, redactText } from '../protocol/redact/index.js';
import { toLoadOptions, type ConfigFlags, type ExecutionFlags } from './options.js';
import { serve } from './serve.js';
import { openAuditFile, type AuditFile } from './audit-file.js';
import { otlpRequested, startOtlpExport, type OtlpExport } from '../audit/otlp.js';
import type { AuditRecord } from '../audit/records.js';
import { followConfiguration } from './follow.js';
import { foreignWarnings } from './foreign-warnings.js';
import { useColor } from './style.js';
import { abandonPendingWrites, onStopSignals } from './terminal.js';
import { err, ok, type Result } from '../result.js';

/** Exit statuses (spec §6): 2 is reserved for an invalid configuration. */
export const EXIT = { ok: 0, failed: 1, invalidConfig: 2 } as const;

const stdoutColor = () => useColor(process.stdout.isTTY, process.env);
const stderrColor = () => useColor(process.stderr.isTTY, process.env);

const load = (flags: ConfigFlags): LoadResult => loadHooks(toLoadOptions(flags, process.cwd()));
/** The configuration the flags name, for commands in other modules (`replay`). */
export const loadForCommand = load;

const errorsOf = (result: LoadResult): readonly ConfigProblem[] => (result.ok ? [] : result.errors);

/** A problem as printed: it may quote a config value, so secrets are redacted (docs/protocol.md). */
const shownProblem = (problem: ConfigProblem): string => redactText(formatProblem(problem));

/** Warnings, and errors when loading failed, on stderr: the diagnostics of every command but `validate`. */
export const reportProblems = (result: LoadResult): void => {
  const lines = formatProblemLines(
    errorsOf(result).map(shownProblem),
    result.warnings.map(shownProblem),
    stderrColor(),
  );
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
};

/** The engine's collaborators for `run` and `fire`: real processes, bounded by `--max-processes`. */
export const engineDeps = (flags: ConfigFlags & ExecutionFlags): PipelineDeps =>
  defaultDeps(
    processExecutor({
      maxProcesses: flags.maxProcesses,
      workspace: toLoadOptions(flags, process.cwd()).workspace,
    }),
  );

/** One diagnostic line on stderr; it may quote a file name or a file's text, so controls are escaped (spec §6). */
const fail = (message: string): number => {
  process.stderr.write(`cosh-hooks: ${printableLine(redactText(message))}\n`);
  return EXIT.failed;
};

export interface RunFlags extends ConfigFlags, ExecutionFlags {
  readonly concurrency: 'sequential' | 'per-session';
  readonly maxLineBytes: number;
  /** `--audit FILE`: audit records as JSON lines, `-` = stderr (docs/audit.md). */
  readonly audit?: string;
  /** `--observer-queue N`: events one observer hook may hold. */
  readonly observerQueue?: number;
  /** `--otlp-endpoint URL`: export spans over OTLP/HTTP. */
  readonly otlpEndpoint?: string;
  /** `--otlp-content`: tool input and prompts on the spans (and in the audit), redacted. */
  readonly otlpContent?: boolean;
  /** Follow the configuration files and swap in each valid change (docs/configuration.md, reload). */
  readonly watch?: boolean;
}

/** What a run's audit goes to: the `--audit` file and the OTLP export, either, both or none. */
interface AuditOutputs {
  readonly file?: AuditFile;
  readonly otlp?: OtlpExport;
}

const openAuditOutputs = async (flags: RunFlags): Promise<Result<AuditOutputs, string>> => {
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

const fanOut = (outputs: AuditOutputs): ((record: AuditRecord) => void) | undefined => {
  const { file, otlp } = outputs;
  if (file === undefined && otlp === undefined) return undefined;
  if (otlp === undefined) return file?.write;
  if (file === undefined) return otlp.feed;
  return (record) => {
    file.write(record);
    otlp.feed(record);
  };
};

/** Ends the audit outputs: the OTLP tally goes to the audit and, when spans were lost, to stderr. */
const closeAuditOutputs = async (outputs: AuditOutputs, stopped: boolean): Promise<void> => {
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
  }
};

/** `run`: JSONL events on stdin, notification and decision lines on stdout, until end of input. */
export const runCommand = async (flags: RunFlags): Promise<number> => {
  const followed =
    flags.watch === true
      ? followConfiguration(toLoadOptions(flags, process.cwd()), stderrColor())
      : undefined;
  const loaded = followed?.initial ?? load(flags);
  if (followed === undefined) reportProblems(loaded);
  if (!loaded.ok) {
    followed?.stop();
    return EXIT.invalidConfig;
  }
  const outputs = await openAuditOutputs(flags);
  if (!outputs.ok) {
    followed?.stop();
    return fail(outputs.error);
  }
  const onAudit = fanOut(outputs.value);
  // The configuration running now, for the file and line of a hook named in a warning.
  let current = loaded.registry;
  const following = followed?.registry$.subscribe((registry) => (current = registry));
  const onLine = foreignWarnings(
    () => current,
    (text) => process.stderr.write(text),
    stderrColor(),
  );
  const serving = serve(
    followed?.registry$ ?? loaded.registry,
    engineDeps(flags),
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    {
      concurrency: flags.concurrency,
      maxLineBytes: flags.maxLineBytes,
      ...(loaded.stopLoopLimit !== undefined && { stopLoopLimit: loaded.stopLoopLimit }),
      ...(flags.observerQueue !== undefined && { observerQueue: flags.observerQueue }),
      ...(flags.otlpContent === true && { auditContent: true }),
      ...(onAudit !== undefined && { onAudit }),
      onLine,
      // Trust and reload records (docs/audit.md): the untrusted hooks at start, then each change.
      auditNotes: concat(from(configNotes(loaded, 'start')), followed?.notes$ ?? EMPTY),
    },
  );
  onStopSignals(serving.stop);
  try {
    const status = await serving.done;
    await closeAuditOutputs(outputs.value, status >= 128);
    return status;
  } finally {
    following?.unsubscribe();
    followed?.stop();
  }
};

/** `validate`: every configuration and extension problem on stdout; status 1 when there is any. */
export const validateCommand = (flags: ConfigFlags & { readonly json?: boolean }): number => {
  const loaded = load(flags);
  const errors = errorsOf(loaded);
  const problems = errors.length + loaded.warnings.length;
  if (flags.json === true) {
    const redacted = loaded.ok ? redactedHooks(loaded.registry) : [];
    const report = redactJson({ ok: problems === 0, errors, warnings: loaded.warnings, redacted });
    process.stdout.write(`${printableJson(JSON.stringify(report, null, 2))}\n`);
  } else {
    const color = stdoutColor();
    const lines = formatProblemLines(errors.map(shownProblem), loaded.warnings.map(shownProblem), color);
    const found = loaded.ok ? { registry: loaded.registry, sources: loaded.sources } : undefined;
    lines.push(formatValidationSummary(errors.length, loaded.warnings.length, found, color));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return problems === 0 ? EXIT.ok : EXIT.failed;
};

/** `list`: the resolved chain of every event, with where each hook came from; hooks with problems marked. */
export const listCommand = (flags: ConfigFlags & { readonly json?: boolean }): number => {
  const loaded = load(flags);
  reportProblems(loaded);
  if (!loaded.ok) return EXIT.invalidConfig;
  const text =
    flags.json === true
      ? printableJson(JSON.stringify(chainsToJson(loaded.registry, loaded.sources, loaded.warnings), null, 2))
      : formatChains(loaded.registry, loaded.sources, stdoutColor(), loaded.warnings);
  process.stdout.write(`${text}\n`);
  return EXIT.ok;
};

/**
 * `doctor`: every problem `validate` reports, then a dry run of each enabled hook with a harmless
 * sample event (docs/cli.md). Status 0 only when there is no problem and every hook started and
 * answered.
 */
export const doctorCommand = async (
  flags: ConfigFlags & ExecutionFlags & { readonly json?: boolean },
): Promise<number> => {
  const loaded = load(flags);
  const errors = errorsOf(loaded);
  const runs = loaded.ok ? await dryRunHooks(loaded.registry, engineDeps(flags)) : [];
  const healthy = errors.length + loaded.warnings.length === 0 && runs.every((run) => run.answered);
  if (flags.json === true) {
    const report = { ok: healthy, errors, warnings: loaded.warnings, hooks: runs };
    process.stdout.write(`${printableJson(JSON.stringify(report, null, 2))}\n`);
  } else {
    const color = stdoutColor();
    const lines = formatProblemLines(errors.map(formatProblem), loaded.warnings.map(formatProblem), color);
    if (loaded.ok) lines.push(...formatDryRuns(runs, color));
    lines.push(formatDoctorSummary(errors.length, loaded.warnings.length, runs, color));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return healthy ? EXIT.ok : EXIT.failed;
};

export interface FireFlags extends ConfigFlags, ExecutionFlags {
  readonly tool?: string;
  readonly input?: string;
  readonly eventFile?: string;
  readonly session?: string;
  readonly json?: boolean;
}

const parseFields = (text: string, what: string): Result<unknown> => {
  const parsed = parseJson(text);
  return parsed.ok ? parsed : err(`${what} is not JSON: ${parsed.error}`);
};

/** The event fields given by `--input` or `--event-file` (`-` reads stdin). */
const readFields = (flags: FireFlags): Result<unknown> => {
  if (flags.input !== undefined) return parseFields(flags.input, '--input');
  if (flags.eventFile === undefined) return ok(undefined);
  // Bounded like one input line of `run`: /dev/zero is an error, not a process that eats memory.
  const read = readInputText(flags.eventFile === '-' ? 0 : flags.eventFile, DEFAULT_MAX_LINE_BYTES);
  if (!read.ok) return err(`cannot read ${flags.eventFile}: ${read.error}`);
  return parseFields(read.value, flags.eventFile);
};

/** `fire`: runs one event through its chain and shows what happened. */
export const fireCommand = async (eventName: EventName, flags: FireFlags): Promise<number> => {
  const fields = readFields(flags);
  if (!fields.ok) return fail(fields.error);
  const built = buildFireEvent({
    event: eventName,
    fields: fields.value,
    ...(flags.tool !== undefined && { tool: flags.tool }),
    ...(flags.session !== undefined && { session: flags.session }),
  });
  if (!built.ok) return fail(built.error);
  const loaded = load(flags);
  reportProblems(loaded);
  if (!loaded.ok) return EXIT.invalidConfig;

  // `fire` shows the chain's answer; observers (docs/audit.md) would only be stopped on the way out.
  const chains = registryOf((name) => loaded.registry[name].filter((hook) => hook.observe !== true));
  const dispatcher = createDispatcher(chains, engineDeps(flags));
  let interrupted: number | undefined;
  onStopSignals((status) => {
    interrupted = status;
    dispatcher.close();
  });
  let result: DispatchResult;
  try {
    // Built from the flags; the engine checks it like any event (an invalid one is `result.error`).
    result = await dispatcher.dispatch(built.value as EventInput);
  } catch (error) {
    if (interrupted !== undefined) return interrupted;
    return fail(String(error));
  } finally {
    dispatcher.close();
  }
  if (result.error !== undefined) return fail(`invalid event: ${result.error.message}`);
  const text =
    flags.json === true
      ? printableJson(
          JSON.stringify(
            {
              event: redactJson(built.value),
              notifications: result.notifications,
              decision: result.decision,
            },
            null,
            2,
          ),
        )
      : formatFireResult(
          {
            hook_event_name: eventName,
            session_id: result.decision.session_id,
            tool_name: built.value['tool_name'],
          },
          result.notifications,
          result.decision,
          stdoutColor(),
          (name, source) => {
            const hook = loaded.registry[eventName].find((h) => h.name === name && h.source === source);
            return hook === undefined ? undefined : modeOf(hook);
          },
        );
  process.stdout.write(`${text}\n`);
  return EXIT.ok;
};
