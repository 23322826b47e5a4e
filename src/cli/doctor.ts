import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { filter, firstValueFrom, take, takeUntil, timer, toArray } from 'rxjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COSH_TOOL_NAMES } from '../config/checks.js';
import { EVENT_NAMES, type EventName } from '../events/names.js';
import type { EventInput } from '../events/codecs.js';
import { createDispatcher, type Dispatcher, type DispatchResult } from '../pipeline/dispatch.js';
import type { ObserverResultRecord } from '../audit/records.js';
import { foreignWarningText } from './foreign-text.js';
import type { PipelineDeps } from '../pipeline/pipeline.js';
import { registryOf } from '../registry/chain.js';
import type { Hook, Registry } from '../registry/hook.js';
import { describeThrown } from '../events/untrusted.js';

/**
 * `cosh-hooks doctor`'s dry run (docs/cli.md): every enabled hook, one at a time, given a harmless
 * sample event of its event in a scratch folder (the event's `cwd`, removed afterwards), through
 * the engine's own dispatcher and executor: the same start, deadline and classification a real
 * event gets. Nothing here spawns a process itself.
 */

/** What one dry run found. */
export interface DryRun {
  readonly event: EventName;
  readonly name: string;
  readonly source: string;
  /** False when the hook could not start (`spawn`). */
  readonly started: boolean;
  /** True when it answered with valid output in time. */
  readonly answered: boolean;
  /** The hook's own decision when it answered, else its failure kind. */
  readonly outcome: string;
  readonly duration_ms?: number;
  /** What the answer means for a real event, in a sentence. */
  readonly meaning: string;
  /** An observer (docs/audit.md): run after the sample's decision, as `run` runs it. */
  readonly observer?: true;
  /** A hook without dialect that answered in another agent's words: run's warning (docs/compat.md). */
  readonly foreign?: string;
}

export const DOCTOR_SESSION = 'cosh-hooks-doctor';

/** A tool the hook's matcher selects, for the sample: the first cosh tool it matches, else `shell`. */
const sampleTool = (hook: Hook): string =>
  hook.matcher === undefined
    ? 'shell'
    : (COSH_TOOL_NAMES.find((name) => hook.matcher?.matches(name)) ?? 'shell');

const toolInput = (tool: string, scratch: string): Record<string, unknown> =>
  tool === 'shell' || tool === 'run_shell_command'
    ? { command: 'echo cosh-hooks doctor' }
    : { absolute_path: join(scratch, 'sample.txt'), file_path: join(scratch, 'sample.txt') };

/**
 * A harmless event of `event` for `hook`: its files in `scratch`, its `cwd` the folder `run` would
 * run the hook in (default `scratch`), so that relative commands resolve as they will.
 */
export const sampleEvent = (
  event: EventName,
  hook: Hook,
  scratch: string,
  cwd: string = scratch,
): Record<string, unknown> => {
  const base = { hook_event_name: event, session_id: DOCTOR_SESSION, cwd };
  const tool = sampleTool(hook);
  switch (event) {
    case 'PreToolUse':
      return { ...base, tool_name: tool, tool_input: toolInput(tool, scratch) };
    case 'PostToolUse':
      return {
        ...base,
        tool_name: tool,
        tool_input: toolInput(tool, scratch),
        tool_response: { output: 'ok' },
      };
    case 'PostToolUseFailure':
      return { ...base, tool_name: tool, tool_input: toolInput(tool, scratch), error: 'sample failure' };
    case 'UserPromptSubmit':
      return { ...base, prompt: 'cosh-hooks doctor: a harmless sample prompt' };
    case 'SessionStart':
      return { ...base, source: 'startup' };
    case 'Stop':
      return { ...base, last_assistant_message: 'Done.', stop_hook_active: false };
    case 'BeforeModel':
      return { ...base, llm_request: { model: 'sample', messages: [] } };
    case 'AfterModel':
      return { ...base, llm_response: { content: 'ok' } };
    case 'SessionEnd':
      return { ...base, reason: 'other' };
    case 'Notification':
      return {
        ...base,
        message: 'cosh-hooks doctor: a sample notification',
        notification_type: 'idle_prompt',
      };
    case 'PreCompact':
      return { ...base, trigger: 'manual' };
    case 'SubagentStart':
      return { ...base, agent_id: 'doctor-agent', agent_type: 'general-purpose' };
    case 'SubagentStop':
      return { ...base, agent_id: 'doctor-agent', agent_type: 'general-purpose', stop_hook_active: false };
  }
};

/** The hook alone, enabled and with no matcher: the dry run is about its command, not its selection. */
const alone = (event: EventName, hook: Hook): Registry => {
  const { matcher: _matcher, ...rest } = hook;
  const only = { ...rest, enabled: true } as Hook;
  return registryOf((name) => (name === event ? [only] : []));
};

const meaningOf = (
  event: EventName,
  hook: Hook,
  result: DispatchResult,
): Omit<DryRun, 'event' | 'name' | 'source'> => {
  if (result.error !== undefined)
    return {
      started: false,
      answered: false,
      outcome: 'not run',
      meaning: `invalid sample event: ${result.error.message}`,
    };
  const report = result.decision.hooks[0];
  if (report === undefined)
    return { started: false, answered: false, outcome: 'not run', meaning: 'the engine did not run it' };
  const timing = report.duration_ms === undefined ? {} : { duration_ms: report.duration_ms };
  // Another agent's words (an exit 2 with a reason is a failure that carries them too): run's warning.
  const foreign =
    report.foreign === undefined ? undefined : { foreign: foreignWarningText(event, report, hook) };
  if (report.outcome === 'ok') {
    const decision = report.decision ?? 'none';
    const why = result.decision.reason ?? result.decision.systemMessage;
    const meaning =
      decision === 'block'
        ? `blocks even this harmless sample${why === undefined ? '' : `: ${why}`}`
        : decision === 'ask'
          ? 'asks the user about this sample'
          : decision === 'allow'
            ? 'allows the sample'
            : 'no opinion (pass-through)';
    return { started: true, answered: true, outcome: decision, ...timing, meaning, ...foreign };
  }
  const started = report.outcome !== 'spawn' && report.outcome !== 'queue_timeout';
  const onReal = hook.failClosed
    ? 'a real event it applies to is blocked (fail_closed)'
    : 'a real event passes as if it had no opinion (not fail_closed)';
  return {
    started,
    answered: false,
    outcome: report.outcome,
    ...timing,
    meaning: `${report.message ?? report.outcome}; ${onReal}`,
    ...foreign,
  };
};

/** What an observer's run on the sample means: it changes no decision, so a failure only loses its record. */
const observerMeaning = (
  record: ObserverResultRecord | undefined,
): Omit<DryRun, 'event' | 'name' | 'source'> => {
  if (record === undefined)
    return {
      started: false,
      answered: false,
      outcome: 'not run',
      meaning: 'the engine did not run it',
      observer: true,
    };
  const timing = { duration_ms: record.duration_ms };
  if (record.outcome === 'ok')
    return {
      started: true,
      answered: true,
      outcome: record.decision ?? 'none',
      ...timing,
      meaning: 'observer: ran after the decision (its answer changes nothing)',
      observer: true,
    };
  return {
    started: record.outcome !== 'spawn' && record.outcome !== 'queue_timeout',
    answered: false,
    outcome: record.outcome,
    ...timing,
    meaning: `${record.message ?? record.outcome}; an observer's failure changes no decision, but what it records is lost`,
    observer: true,
  };
};

/**
 * The first `count` observer records of `dispatcher` (what `fire` and `doctor` show), or those in
 * by `waitMs` (an observer stuck past its own deadline). Subscribes at once: call it before
 * dispatching, since records are built only while someone listens.
 */
export const observerRecords = (
  dispatcher: Dispatcher,
  count: number,
  waitMs: number,
): Promise<ObserverResultRecord[]> =>
  count === 0
    ? Promise.resolve([])
    : firstValueFrom(
        dispatcher.audit$.pipe(
          filter((record): record is ObserverResultRecord => record.record === 'observer_result'),
          take(count),
          takeUntil(timer(waitMs)),
          toArray(),
        ),
      );

/** Dry-runs one hook with the sample; an observer is given the sample's decision and awaited. */
const dryRunOne = async (
  event: EventName,
  hook: Hook,
  deps: PipelineDeps,
  sample: Record<string, unknown>,
): Promise<Omit<DryRun, 'event' | 'name' | 'source'>> => {
  const dispatcher = createDispatcher(alone(event, hook), deps);
  const observed = observerRecords(
    dispatcher,
    hook.observe === true ? 1 : 0,
    hook.timeoutMs + OBSERVER_GRACE_MS,
  );
  try {
    // Built per event name above; the engine checks it like any event.
    const result = await dispatcher.dispatch(sample as EventInput);
    if (hook.observe !== true) return meaningOf(event, hook, result);
    return observerMeaning((await observed)[0]);
  } finally {
    dispatcher.close();
  }
};

/** How long past its own timeout an observer is waited for (its process is then stopped with the run). */
const OBSERVER_GRACE_MS = 2_000;

/**
 * Dry-runs every enabled hook of `registry`, observers included, in event and chain order. Each
 * sample's `cwd` is `cwd` (the folder `run` would run hooks in; default the scratch folder).
 * Never throws.
 */
export const dryRunHooks = async (
  registry: Registry,
  deps: PipelineDeps,
  cwd?: string,
): Promise<DryRun[]> => {
  const scratch = mkdtempSync(join(tmpdir(), 'cosh-hooks-doctor-'));
  const runs: DryRun[] = [];
  try {
    writeFileSync(join(scratch, 'sample.txt'), 'cosh-hooks doctor sample\n');
    for (const event of EVENT_NAMES) {
      for (const hook of registry[event]) {
        if (!hook.enabled) continue;
        const id = { event, name: hook.name, source: hook.source };
        try {
          runs.push({
            ...id,
            ...(await dryRunOne(event, hook, deps, sampleEvent(event, hook, scratch, cwd))),
          });
        } catch (error) {
          runs.push({
            ...id,
            started: false,
            answered: false,
            outcome: 'error',
            meaning: describeThrown(error),
          });
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return runs;
};
