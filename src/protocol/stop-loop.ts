import { boundedKey } from '../events/bounded-key.js';
import type { HookEvent } from '../events/codecs.js';
import type { Decision } from '../events/names.js';

/*
 * The Stop-loop guard's bookkeeping (docs/protocol.md, "Stop loops"). A Stop hook that always
 * blocks makes the agent go on forever; the engine counts the blocked Stop decisions of each
 * session in a row and, at the limit, lets the next block through as pass-through. No I/O, no
 * clock: the ledger changes only by the calls below, in the order the engine decides events. It is
 * bounded in bytes: sessions and sub-agents are filed under `boundedKey` of their ids (at most 128
 * characters however long the ids), and the entries it holds are bounded in count.
 */

/** Blocked Stop decisions in a row after which the next block is let through. */
export const DEFAULT_STOP_LOOP_LIMIT = 8;
/** The largest limit accepted (config file and library). */
export const MAX_STOP_LOOP_LIMIT = 1000;
/** Sessions whose stop loop is counted at once; the oldest is forgotten past it. */
export const MAX_LOOPING_SESSIONS = 10_000;
/** Sub-agents of one session whose stop loop is counted at once; the oldest is forgotten past it. */
export const MAX_LOOPING_AGENTS = 64;
/** Sub-agents counted at once in all sessions; past it, the oldest sessions are forgotten. */
export const MAX_LOOPING_AGENTS_IN_ALL = 10_000;

/** A limit as given (library option or config file): a whole number 1..1000, else the default. */
export const stopLoopLimitOf = (value: unknown): number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_STOP_LOOP_LIMIT
    ? value
    : DEFAULT_STOP_LOOP_LIMIT;

/** One session's blocks in a row: the main agent's, and each sub-agent's by its id. */
interface SessionLoops {
  stop: number;
  readonly agents: Map<string, number>;
}

/**
 * What the guard did to one decision, as data: the block it let through, why, and the count. It
 * is on the decision line and on the guard's notification (`stop_loop_guard`), so an audit record
 * can be made of it.
 */
export interface StopLoopIntervention {
  readonly limit: number;
  /** Blocks in a row before this one (equal to `limit`). */
  readonly blocked: number;
  /** The sub-agent whose loop it was, on SubagentStop. */
  readonly agent?: string;
  /** The decision the hooks gave, now pass-through, with its reason and message. */
  readonly overridden: {
    readonly decision: Decision;
    readonly reason?: string;
    readonly systemMessage?: string;
  };
}

/**
 * The counts of every session in a stop loop, by `boundedKey(session_id)`; sessions with nothing
 * counted are not kept.
 */
export interface StopLoopLedger {
  readonly limit: number;
  readonly sessions: Map<string, SessionLoops>;
  /** Sub-agents counted in all sessions (at most MAX_LOOPING_AGENTS_IN_ALL). */
  agents: number;
}

export const createStopLoopLedger = (limit: number = DEFAULT_STOP_LOOP_LIMIT): StopLoopLedger => ({
  limit: stopLoopLimitOf(limit),
  sessions: new Map(),
  agents: 0,
});

/** The sub-agent a SubagentStop is about: its id, else its type (hosts without ids). */
const agentIdOf = (event: HookEvent): string =>
  'agent_id' in event && typeof event.agent_id === 'string'
    ? event.agent_id
    : 'agent_type' in event && typeof event.agent_type === 'string'
      ? event.agent_type
      : '';

/** The key the sub-agent's count is filed under. */
const agentOf = (event: HookEvent): string => boundedKey(agentIdOf(event));

/** Blocks in a row so far for the loop `event` belongs to (0 for events outside one). */
export const blockedInARow = (ledger: StopLoopLedger, event: HookEvent): number => {
  const loops = ledger.sessions.get(boundedKey(event.session_id));
  if (loops === undefined) return 0;
  if (event.hook_event_name === 'Stop') return loops.stop;
  if (event.hook_event_name === 'SubagentStop') return loops.agents.get(agentOf(event)) ?? 0;
  return 0;
};

/**
 * The event as hooks receive it: a Stop (or SubagentStop) right after a blocked one has
 * `stop_hook_active: true`. A host's own `true` is kept (it knows its continuation); a host's
 * `false` or nothing becomes `true` when the engine blocked the previous Stop of the loop.
 */
export const withStopHookActive = (ledger: StopLoopLedger, event: HookEvent): HookEvent => {
  if (blockedInARow(ledger, event) === 0) return event;
  if ('stop_hook_active' in event && event.stop_hook_active === true) return event;
  return { ...event, stop_hook_active: true } as HookEvent;
};

/** Forgets the session filed under `key`, its sub-agents with it. */
const drop = (ledger: StopLoopLedger, key: string): void => {
  const loops = ledger.sessions.get(key);
  if (loops === undefined) return;
  ledger.agents -= loops.agents.size;
  ledger.sessions.delete(key);
};

/** Forgets the oldest session but `keep`: its next block starts a count from 0 (never a wrong pass-through). */
const dropOldest = (ledger: StopLoopLedger, keep: string): void => {
  for (const key of ledger.sessions.keys()) {
    if (key === keep) continue;
    drop(ledger, key);
    return;
  }
};

const dropIfIdle = (ledger: StopLoopLedger, key: string, loops: SessionLoops): void => {
  if (loops.stop === 0 && loops.agents.size === 0) drop(ledger, key);
};

/** A new prompt or the end of the session: nothing of the session is counted any more. */
export const forgetSession = (ledger: StopLoopLedger, session: string): void => {
  drop(ledger, boundedKey(session));
};

const loopsOf = (ledger: StopLoopLedger, key: string): SessionLoops => {
  const known = ledger.sessions.get(key);
  if (known !== undefined) return known;
  if (ledger.sessions.size >= MAX_LOOPING_SESSIONS) dropOldest(ledger, key);
  const fresh: SessionLoops = { stop: 0, agents: new Map() };
  ledger.sessions.set(key, fresh);
  return fresh;
};

const setAgent = (ledger: StopLoopLedger, key: string, loops: SessionLoops, agent: string, count: number) => {
  const { agents } = loops;
  if (count === 0) {
    if (agents.delete(agent)) ledger.agents -= 1;
    return;
  }
  if (!agents.has(agent)) {
    if (agents.size >= MAX_LOOPING_AGENTS) {
      const oldest = agents.keys().next();
      if (oldest.done !== true && agents.delete(oldest.value)) ledger.agents -= 1;
    }
    while (ledger.agents >= MAX_LOOPING_AGENTS_IN_ALL && ledger.sessions.size > 1) dropOldest(ledger, key);
    ledger.agents += 1;
  }
  agents.set(agent, count);
};

/**
 * Records the decision of a Stop or SubagentStop. A block counts one more in a row, unless the
 * limit is reached: then it is let through, and the intervention is returned (the count starts
 * again, as after any Stop that was not blocked). Any other decision ends the loop.
 */
export const recordStopDecision = (
  ledger: StopLoopLedger,
  event: HookEvent,
  verdict: { readonly decision: Decision; readonly reason?: string; readonly systemMessage?: string },
): StopLoopIntervention | undefined => {
  const session = boundedKey(event.session_id);
  const subagent = event.hook_event_name === 'SubagentStop';
  const before = blockedInARow(ledger, event);
  const intervene = verdict.decision === 'block' && before >= ledger.limit;
  const after = verdict.decision === 'block' && !intervene ? before + 1 : 0;
  if (after === 0 && before === 0) return undefined;
  const loops = after === 0 ? ledger.sessions.get(session) : loopsOf(ledger, session);
  if (loops !== undefined) {
    if (subagent) setAgent(ledger, session, loops, agentOf(event), after);
    else loops.stop = after;
    dropIfIdle(ledger, session, loops);
  }
  if (!intervene) return undefined;
  return {
    limit: ledger.limit,
    blocked: before,
    ...(subagent && { agent: agentIdOf(event) }),
    overridden: {
      decision: verdict.decision,
      ...(verdict.reason !== undefined && { reason: verdict.reason }),
      ...(verdict.systemMessage !== undefined && { systemMessage: verdict.systemMessage }),
    },
  };
};

/** The guard's message for the user when it lets a block through. */
export const stopLoopMessage = (event: HookEvent, intervention: StopLoopIntervention): string => {
  const what =
    event.hook_event_name === 'SubagentStop'
      ? `SubagentStop hooks blocked sub-agent ${JSON.stringify(intervention.agent ?? '')}`
      : 'Stop hooks blocked the agent';
  return `${what} from stopping ${intervention.blocked} times in a row (stop_loop_limit = ${intervention.limit}): this block is let through so that it can stop`;
};
