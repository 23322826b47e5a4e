import type { HookEvent } from '../events/codecs.js';
import type { EventName } from '../events/names.js';
import type { ForeignDialect } from '../registry/dialect.js';
import { claudeToolCall, geminiToolCall, type ToolCall } from './tools.js';
import { isJsonObject, type JsonObject } from '../events/untrusted.js';

/** The event a foreign hook receives, and how a tool input it returns maps back to cosh names. */
export interface SentEvent {
  readonly event: JsonObject;
  /** A tool input in the hook's field names → the event's cosh field names (identity off tool events). */
  readonly back: (input: JsonObject) => JsonObject;
  /** Why the event must not be shown to the hook: two names of one tool field disagree (`ToolCall`). */
  readonly conflict?: string;
}

/**
 * cosh event → Gemini CLI event name (docs/compat.md). Gemini CLI has no sub-agent events: a
 * Gemini-dialect hook placed on one receives the cosh name.
 */
export const GEMINI_EVENT_OF: Readonly<Record<EventName, string>> = {
  PreToolUse: 'BeforeTool',
  PostToolUse: 'AfterTool',
  PostToolUseFailure: 'AfterTool',
  UserPromptSubmit: 'BeforeAgent',
  SessionStart: 'SessionStart',
  Stop: 'AfterAgent',
  BeforeModel: 'BeforeModel',
  AfterModel: 'AfterModel',
  SessionEnd: 'SessionEnd',
  Notification: 'Notification',
  PreCompact: 'PreCompress',
  SubagentStart: 'SubagentStart',
  SubagentStop: 'SubagentStop',
};

/**
 * Claude Code's notification types → Gemini CLI's, and back (a Gemini matcher names Gemini's). Gemini
 * CLI sends a notification for one reason only, a tool waiting for permission.
 */
export const GEMINI_NOTIFICATION_TYPE_OF: Readonly<Record<string, string>> = {
  permission_prompt: 'ToolPermission',
};

const identity = (input: JsonObject): JsonObject => input;

const toolCallOf = (
  event: HookEvent,
  translate: (name: string, input: JsonObject) => ToolCall,
): ToolCall | undefined =>
  'tool_name' in event && typeof event.tool_name === 'string' && isJsonObject(event.tool_input)
    ? translate(event.tool_name, event.tool_input)
    : undefined;

/**
 * The event as a Claude Code hook reads it: Claude tool names and `tool_input` fields
 * (`shell` → `Bash`; `read_file` → `Read` with `file_path`), plus the fields every Claude hook may
 * read and cosh events may lack (`transcript_path`, `permission_mode`, SessionStart `source`,
 * Stop and SubagentStop `stop_hook_active`, PreCompact `custom_instructions`, SessionEnd `reason`).
 * Event names are the same; other fields are kept.
 */
export const claudeEvent = (event: HookEvent): SentEvent => {
  const call = toolCallOf(event, claudeToolCall);
  const extra: Record<string, unknown> = {};
  if (event.hook_event_name === 'SessionStart' && !('source' in event && event.source !== undefined))
    extra['source'] = 'startup';
  if (
    (event.hook_event_name === 'Stop' || event.hook_event_name === 'SubagentStop') &&
    !('stop_hook_active' in event && event.stop_hook_active !== undefined)
  )
    extra['stop_hook_active'] = false;
  if (event.hook_event_name === 'PreCompact' && event.custom_instructions === undefined)
    extra['custom_instructions'] = '';
  if (event.hook_event_name === 'SessionEnd' && event.reason === undefined) extra['reason'] = 'other';
  return {
    event: {
      ...event,
      transcript_path: event.transcript_path ?? '',
      permission_mode:
        typeof (event as JsonObject)['permission_mode'] === 'string'
          ? (event as JsonObject)['permission_mode']
          : 'default',
      ...extra,
      ...(call !== undefined && { tool_name: call.name, tool_input: call.input }),
    },
    back: call?.back ?? identity,
    ...(call?.conflict !== undefined && { conflict: call.conflict }),
  };
};

/**
 * The event as a Gemini CLI hook reads it: Gemini event names (`PreToolUse` → `BeforeTool`,
 * `UserPromptSubmit` → `BeforeAgent`, `Stop` → `AfterAgent` with `prompt_response`, `PreCompact` →
 * `PreCompress`; a `permission_prompt` notification is Gemini's `ToolPermission`, with `details`),
 * Gemini tool names (`shell` → `run_shell_command`); a failed tool is an `AfterTool` whose
 * `tool_response` holds the `error`, as Gemini reports it.
 */
export const geminiEvent = (event: HookEvent): SentEvent => {
  const call = toolCallOf(event, geminiToolCall);
  const extra: Record<string, unknown> = { hook_event_name: GEMINI_EVENT_OF[event.hook_event_name] };
  if (event.hook_event_name === 'PostToolUseFailure') extra['tool_response'] = { error: event.error };
  if (event.hook_event_name === 'Stop') {
    extra['prompt'] =
      typeof (event as JsonObject)['prompt'] === 'string' ? (event as JsonObject)['prompt'] : '';
    extra['prompt_response'] = event.last_assistant_message ?? '';
    extra['stop_hook_active'] = event.stop_hook_active ?? false;
  }
  if (event.hook_event_name === 'SessionStart' && event.source === undefined) extra['source'] = 'startup';
  if (event.hook_event_name === 'SessionEnd' && event.reason === undefined) extra['reason'] = 'other';
  if (event.hook_event_name === 'Notification') {
    const type = event.notification_type;
    if (type !== undefined && Object.hasOwn(GEMINI_NOTIFICATION_TYPE_OF, type))
      extra['notification_type'] = GEMINI_NOTIFICATION_TYPE_OF[type];
    if (!isJsonObject((event as JsonObject)['details'])) extra['details'] = {};
  }
  return {
    event: {
      ...event,
      transcript_path: event.transcript_path ?? '',
      ...extra,
      ...(call !== undefined && { tool_name: call.name, tool_input: call.input }),
    },
    back: call?.back ?? identity,
    ...(call?.conflict !== undefined && { conflict: call.conflict }),
  };
};

/** The event a hook of `dialect` receives. */
export const sentEvent = (dialect: ForeignDialect, event: HookEvent): SentEvent =>
  dialect === 'claude' ? claudeEvent(event) : geminiEvent(event);
