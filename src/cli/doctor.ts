import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COSH_TOOL_NAMES } from '../config/checks.js';
import { EVENT_NAMES, type EventName } from '../events/names.js';
import type { EventInput } from '../events/codecs.js';
import { createDispatcher, type DispatchResult } from '../pipeline/dispatch.js';
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

/** A harmless event of `event` for `hook`, in `scratch`. */
export const sampleEvent = (event: EventName, hook: Hook, scratch: string): Record<string, unknown> => {
  const base = { hook_event_name: event, session_id: DOCTOR_SESSION, cwd: scratch };
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

const meaningOf = (hook: Hook, result: DispatchResult): Omit<DryRun, 'event' | 'name' | 'source'> => {
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
    return { started: true, answered: true, outcome: decision, ...timing, meaning };
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
  };
};

/** Dry-runs every enabled hook of `registry`, in event and chain order. Never throws. */
export const dryRunHooks = async (registry: Registry, deps: PipelineDeps): Promise<DryRun[]> => {
  const scratch = mkdtempSync(join(tmpdir(), 'cosh-hooks-doctor-'));
  const runs: DryRun[] = [];
  try {
    writeFileSync(join(scratch, 'sample.txt'), 'cosh-hooks doctor sample\n');
    for (const event of EVENT_NAMES) {
      for (const hook of registry[event]) {
        if (!hook.enabled) continue;
        const dispatcher = createDispatcher(alone(event, hook), deps);
        const id = { event, name: hook.name, source: hook.source };
        try {
          // Built per event name above; the engine checks it like any event.
          const result = await dispatcher.dispatch(sampleEvent(event, hook, scratch) as EventInput);
          runs.push({ ...id, ...meaningOf(hook, result) });
        } catch (error) {
          runs.push({
            ...id,
            started: false,
            answered: false,
            outcome: 'error',
            meaning: describeThrown(error),
          });
        } finally {
          dispatcher.close();
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return runs;
};
