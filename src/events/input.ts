import { decodeEvent, type EventDefaults } from './decode.js';
import type { HookEvent } from './codecs.js';
import { eventDataCopy, markFreshJson, takeFreshJson } from './event-data.js';
import { describeThrown, parseJson } from './untrusted.js';
import { err, ok, type Result } from '../result.js';

/** One line of JSONL input, for hosts that hand the engine raw text (the CLI does). */
export class JsonLine {
  constructor(
    /** Physical line number, from 1, blank lines counted. */
    readonly line: number,
    readonly text: string,
    /**
     * Set when the reader could not turn the bytes into text (invalid UTF-8, over-long line): the
     * line is then rejected with this message, in its place in the stream.
     */
    readonly problem?: string,
  ) {}
}

/**
 * One input item past the engine's edge (`parseLines`): a `Result` holding the value to check as
 * an event, or why there is none (a line that is not JSON, not UTF-8 or too long). `line` is set
 * when the item came as a line of JSONL text, and a rejected item is then reported by it.
 */
export type ParsedInput = Result<unknown> & { readonly line?: number };

/** The ids a rejected input carried, so a host can tell which of its events was refused. */
export interface EventIds {
  readonly session_id?: string;
  readonly tool_use_id?: string;
}

/**
 * What the engine made of one input item: the event, or why it is none, with the line it came on
 * when it came as text.
 */
export type Admission = Result<HookEvent> & { readonly line?: number };

const ID_KEYS = ['session_id', 'tool_use_id'] as const;

/**
 * The string ids of an input item that is not a valid event; `undefined` when it has none. Reads own data properties only, never a
 * getter, and a Proxy that throws gives no id: reading an invalid host value must not run its code
 * or fail a second time.
 */
export const idsOf = (input: ParsedInput): EventIds | undefined => {
  if (!input.ok || typeof input.value !== 'object' || input.value === null) return undefined;
  const { value } = input;
  const ids: { session_id?: string; tool_use_id?: string } = {};
  for (const key of ID_KEYS) {
    try {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor !== undefined && typeof descriptor.value === 'string') ids[key] = descriptor.value;
    } catch {
      // A Proxy whose trap throws: this id cannot be read safely.
    }
  }
  return Object.keys(ids).length > 0 ? ids : undefined;
};

const readLine = (input: JsonLine): ParsedInput => {
  const { line } = input;
  if (input.problem !== undefined) return { ...err(input.problem), line };
  const parsed = parseJson(input.text);
  if (!parsed.ok) return { ...err(`not JSON: ${parsed.error}`), line };
  markFreshJson(parsed.value);
  // A literal, not `{ ...parsed, line }`: row 3d of the bench, docs/performance.md.
  return { ok: true, value: parsed.value, line };
};

/**
 * The engine's edge for one item: a `JsonLine` is parsed, anything else is an event value as the
 * host gave it. The only place that tells a line from a value. Never throws: a Proxy whose
 * `getPrototypeOf` trap throws is an item that cannot be read.
 */
export const readInput = (item: unknown): ParsedInput => {
  try {
    return item instanceof JsonLine ? readLine(item) : ok(item);
  } catch (error) {
    return err(`event: cannot be read: ${describeThrown(error)}`);
  }
};

/**
 * Admits one input item or says why not. A value parsed from a line is the engine's own already;
 * any other value is the host's, and the engine admits its own plain-data copy of it
 * (`eventDataCopy`: a getter, `toJSON`, function, cycle, Date… is refused with its path), so
 * nothing the host or a getter does later changes what hooks see. Never throws.
 */
export const admit = (input: ParsedInput, defaults: EventDefaults): Admission => {
  if (!input.ok) return input;
  let decoded: Result<HookEvent>;
  const { value } = input;
  if (typeof value !== 'object' || value === null || takeFreshJson(value)) {
    try {
      decoded = decodeEvent(value, defaults);
    } catch (error) {
      decoded = err(`event: cannot be read: ${describeThrown(error)}`);
    }
  } else {
    const copied = eventDataCopy(value);
    // The copy is bounded (depth, size, no cycle) by construction: no second walk to check it.
    decoded = copied.ok ? decodeEvent(copied.value, defaults, { bounded: true }) : copied;
  }
  return decoded.ok || input.line === undefined ? decoded : { ...decoded, line: input.line };
};
