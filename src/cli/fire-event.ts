import { TOOL_EVENTS, type EventName } from '../events/names.js';
import { err, ok, type Result } from '../result.js';
import { isJsonObject } from '../events/untrusted.js';

/** What `fire` was told on the command line. */
export interface FireRequest {
  readonly event: EventName;
  readonly tool?: string;
  readonly session?: string;
  /** Event fields from `--input` or `--event-file`, already parsed. */
  readonly fields?: unknown;
}

/** The event to send, or why the request is ambiguous. */
export type BuiltEvent = Result<Record<string, unknown>>;

export const DEFAULT_FIRE_SESSION = 'cosh-hooks-fire';

/**
 * Placeholders for the fields an event requires, so `fire Stop` or `fire PreToolUse --tool shell`
 * works without writing JSON. The tool name has no sensible placeholder, so it is asked for.
 */
const REQUIRED_DEFAULTS: Readonly<Record<EventName, Readonly<Record<string, unknown>>>> = {
  PreToolUse: { tool_input: {} },
  PostToolUse: { tool_input: {}, tool_response: null },
  PostToolUseFailure: { tool_input: {}, error: 'tool failed' },
  UserPromptSubmit: { prompt: '' },
  SessionStart: { source: 'startup' },
  Stop: {},
  BeforeModel: { llm_request: {} },
  AfterModel: { llm_response: {} },
  SessionEnd: { reason: 'other' },
  Notification: { message: '', notification_type: 'idle_prompt' },
  PreCompact: { trigger: 'manual', custom_instructions: '' },
  SubagentStart: { agent_id: 'cosh-hooks-fire-agent', agent_type: 'general-purpose' },
  SubagentStop: { agent_id: 'cosh-hooks-fire-agent', agent_type: 'general-purpose' },
};

/**
 * The event `fire` sends, before validation: placeholders, then the given fields, then the flags
 * (a flag is the most specific thing the user said). Validation proper is the engine's job; this
 * only rejects what would make the request ambiguous.
 */
export const buildFireEvent = (request: FireRequest): BuiltEvent => {
  const fields = request.fields ?? {};
  if (!isJsonObject(fields)) return err('the event input must be a JSON object');
  const named = fields['hook_event_name'];
  if (named !== undefined && named !== request.event) {
    return err(`the input is a ${JSON.stringify(named)} event, not ${request.event}`);
  }
  const event: Record<string, unknown> = {
    session_id: DEFAULT_FIRE_SESSION,
    ...REQUIRED_DEFAULTS[request.event],
    ...fields,
    hook_event_name: request.event,
    ...(request.tool !== undefined && { tool_name: request.tool }),
    ...(request.session !== undefined && { session_id: request.session }),
  };
  if (TOOL_EVENTS.includes(request.event) && event['tool_name'] === undefined) {
    return err(`${request.event} needs a tool: pass --tool NAME`);
  }
  return ok(event);
};
