import { concat, EMPTY, from, type Observable } from 'rxjs';
import type { AuditConfigRecord, AuditRecord } from '../audit/records.js';
import type { OutputLine } from '../output/lines.js';
import type { Registry } from '../registry/hook.js';
import { configNotes } from './config-notes.js';
import { readInputText } from '../config/files.js';
import { observersFor } from '../registry/chain.js';
import type { HookEvent } from '../events/codecs.js';
import type { ObserverResultRecord } from '../audit/records.js';
import { formatProblem, loadHooks, type ConfigProblem, type LoadResult } from '../config/index.js';
import type { EventName } from '../events/names.js';
import type { EventInput } from '../events/codecs.js';
import { parseJson } from '../events/untrusted.js';
import { processExecutor } from '../exec/index.js';
import { createDispatcher, type DispatchResult } from '../pipeline/dispatch.js';
import { defaultDeps, type PipelineDeps } from '../pipeline/pipeline.js';
import { dryRunHooks, observerRecords } from './doctor.js';
import { buildFireEvent } from './fire-event.js';
import { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
import {
  chainsToJson,
  formatChains,
  formatDoctorSummary,
  formatDryRuns,
  formatFireResult,
  formatObserverRuns,
  type ObserverShown,
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
import { closeAuditOutputs, fanOut, openAuditOutputs, type AuditFlags } from './audit-outputs.js';
import { followConfiguration } from './follow.js';
import { foreignWarnings } from './foreign-warnings.js';
import { useColor } from './style.js';
import { onStopSignals } from './terminal.js';
import { err, ok, type Result } from '../result.js';

/** Exit statuses (spec §6): 2 is reserved for an invalid configuration. */
/** Exit statuses (docs/cli.md); 128 + n after a signal. `auditLost`: every answer written, `--audit` records lost. */
export const EXIT = { ok: 0, failed: 1, invalidConfig: 2, auditLost: 3 } as const;

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

export interface RunFlags extends ConfigFlags, ExecutionFlags, AuditFlags {
  readonly concurrency: 'sequential' | 'per-session';
  readonly maxLineBytes: number;
  /** `--observer-queue N`: events one observer hook may hold. */
  readonly observerQueue?: number;
  /** Follow the configuration files and swap in each valid change (docs/configuration.md, reload). */
  readonly watch?: boolean;
}

/** What a command that serves a host runs on (`run`, `mcp-proxy`): its hooks, its audit, its warnings. */
export interface HostRun {
  /** The registry, or the registries of `--watch` (each valid change). */
  readonly registry: Registry | Observable<Registry>;
  readonly stopLoopLimit?: number;
  /** Where the audit records go, when anywhere. */
  readonly onAudit?: (record: AuditRecord) => void;
  /** Every engine line, for the warnings of foreign-dialect hooks on stderr. */
  readonly onLine: (line: OutputLine) => void;
  /** Trust and reload records (docs/audit.md): the untrusted hooks at start, then each change. */
  readonly auditNotes: Observable<AuditConfigRecord>;
  /**
   * Ends it: the audit closed (its tallies on stderr), the configuration no longer followed.
   * True when `--audit` records were lost.
   */
  finish(stopped: boolean): Promise<boolean>;
}

/**
 * Loads the configuration (following it with `--watch`) and opens the audit outputs; an invalid
 * configuration or an audit that cannot open is the exit status instead, problems on stderr.
 */
export const openHostRun = async (
  flags: ConfigFlags & AuditFlags & { readonly watch?: boolean },
): Promise<Result<HostRun, number>> => {
  const followed =
    flags.watch === true
      ? followConfiguration(toLoadOptions(flags, process.cwd()), stderrColor())
      : undefined;
  const loaded = followed?.initial ?? load(flags);
  if (followed === undefined) reportProblems(loaded);
  if (!loaded.ok) {
    followed?.stop();
    return err(EXIT.invalidConfig);
  }
  const outputs = await openAuditOutputs(flags);
  if (!outputs.ok) {
    followed?.stop();
    return err(fail(outputs.error));
  }
  const onAudit = fanOut(outputs.value);
  // The configuration running now, for the file and line of a hook named in a warning.
  let current = loaded.registry;
  const following = followed?.registry$.subscribe((registry) => (current = registry));
  return ok({
    registry: followed?.registry$ ?? loaded.registry,
    ...(loaded.stopLoopLimit !== undefined && { stopLoopLimit: loaded.stopLoopLimit }),
    ...(onAudit !== undefined && { onAudit }),
    onLine: foreignWarnings(
      () => current,
      (text) => process.stderr.write(text),
      stderrColor(),
    ),
    auditNotes: concat(from(configNotes(loaded, 'start')), followed?.notes$ ?? EMPTY),
    finish: async (stopped) => {
      try {
        return await closeAuditOutputs(outputs.value, stopped);
      } finally {
        following?.unsubscribe();
        followed?.stop();
      }
    },
  });
};

/** `run`: JSONL events on stdin, notification and decision lines on stdout, until end of input. */
export const runCommand = async (flags: RunFlags): Promise<number> => {
  const opened = await openHostRun(flags);
  if (!opened.ok) return opened.error;
  const host = opened.value;
  const serving = serve(
    host.registry,
    engineDeps(flags),
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    {
      concurrency: flags.concurrency,
      maxLineBytes: flags.maxLineBytes,
      ...(host.stopLoopLimit !== undefined && { stopLoopLimit: host.stopLoopLimit }),
      ...(flags.observerQueue !== undefined && { observerQueue: flags.observerQueue }),
      ...(flags.otlpContent === true && { auditContent: true }),
      ...(host.onAudit !== undefined && { onAudit: host.onAudit }),
      onLine: host.onLine,
      auditNotes: host.auditNotes,
    },
  );
  onStopSignals(serving.stop);
  let status = EXIT.failed as number;
  try {
    status = await serving.done;
  } finally {
    if ((await host.finish(status >= 128)) && status === EXIT.ok) status = EXIT.auditLost;
  }
  return status;
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
  // Each sample's cwd is the folder `run` would run hooks in, so relative commands resolve as they will.
  const cwd = toLoadOptions(flags, process.cwd()).workspace ?? process.cwd();
  const runs = loaded.ok ? await dryRunHooks(loaded.registry, engineDeps(flags), cwd) : [];
  const foreign = runs.flatMap((run) => (run.foreign === undefined ? [] : [run.foreign]));
  const healthy =
    errors.length + loaded.warnings.length === 0 && runs.every((run) => run.answered) && foreign.length === 0;
  if (flags.json === true) {
    const report = { ok: healthy, errors, warnings: loaded.warnings, hooks: runs };
    process.stdout.write(`${printableJson(JSON.stringify(report, null, 2))}\n`);
  } else {
    const color = stdoutColor();
    const lines = formatProblemLines(errors.map(formatProblem), loaded.warnings.map(formatProblem), color);
    if (loaded.ok) lines.push(...formatDryRuns(runs, color));
    // A hook without dialect answering in another agent's words: the warning `run` would print.
    if (foreign.length > 0) lines.push('', ...formatProblemLines([], foreign, color));
    lines.push(formatDoctorSummary(errors.length, loaded.warnings.length + foreign.length, runs, color));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return healthy ? EXIT.ok : EXIT.failed;
};

/** What `fire` shows of one observer's run (its record, without the event ids). */
const observerShown = (record: ObserverResultRecord): ObserverShown => ({
  name: record.hook,
  source: record.source,
  outcome: record.outcome,
  ...(record.decision !== undefined && { decision: record.decision }),
  duration_ms: record.duration_ms,
  ...(record.message !== undefined && { message: record.message }),
});

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

  // `fire` shows the chain's answer, then what each observer (docs/audit.md) did with it.
  // The event was built from the flags with the fields the matchers test (tool_name and the like).
  const observers = observersFor(loaded.registry, built.value as unknown as HookEvent);
  const dispatcher = createDispatcher(loaded.registry, engineDeps(flags));
  const observed = observerRecords(
    dispatcher,
    observers.length,
    Math.max(0, ...observers.map((hook) => hook.timeoutMs)) + 2_000,
  );
  let interrupted: number | undefined;
  onStopSignals((status) => {
    interrupted = status;
    dispatcher.close();
  });
  let result: DispatchResult;
  let ran: readonly ObserverResultRecord[] = [];
  try {
    // Built from the flags; the engine checks it like any event (an invalid one is `result.error`).
    result = await dispatcher.dispatch(built.value as EventInput);
    // Observers run only after the decision of a valid event.
    if (result.error === undefined) ran = await observed;
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
              ...(ran.length > 0 && { observers: ran.map(observerShown) }),
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
        ) + formatObserverRuns(ran.map(observerShown), observers.length, stdoutColor());
  process.stdout.write(`${text}\n`);
  return EXIT.ok;
};
