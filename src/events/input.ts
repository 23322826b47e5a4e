import { decodeEvent, type EventDefaults } from './decode.js';
import type { HookEvent } from './codecs.js';
import { describeThrown } from './untrusted.js';

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

/** What the engine made of one input item. */
export type Admission =
  | { readonly kind: 'event'; readonly event: HookEvent }
  | { readonly kind: 'rejected'; readonly message: string; readonly line?: number };

const parseLine = (input: JsonLine): { ok: true; value: unknown } | { ok: false; message: string } => {
  try {
    return { ok: true, value: JSON.parse(input.text) };
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
};

/**
 * Admits one input item (an event value or a `JsonLine`) or says why not. Never throws: a host's
 * object whose getter throws, or a Proxy that throws, is rejected like any invalid event.
 */
export const admit = (input: unknown, defaults: EventDefaults): Admission => {
  try {
    return admitUnsafe(input, defaults);
  } catch (error) {
    return { kind: 'rejected', message: `event: cannot be read: ${describeThrown(error)}` };
  }
};

const admitUnsafe = (input: unknown, defaults: EventDefaults): Admission => {
  const line = input instanceof JsonLine ? input.line : undefined;
  const where = line === undefined ? {} : { line };
  let value = input;
  if (input instanceof JsonLine) {
    if (input.problem !== undefined) return { kind: 'rejected', message: input.problem, ...where };
    const parsed = parseLine(input);
    if (!parsed.ok) return { kind: 'rejected', message: parsed.message, ...where };
    value = parsed.value;
  }
  const decoded = decodeEvent(value, defaults);
  return decoded.ok
    ? { kind: 'event', event: decoded.event }
    : { kind: 'rejected', message: decoded.error, ...where };
};
