import type * as t from 'io-ts';
import { EventCodecs, type HookEvent } from './codecs.js';
import { describeJsonProblem, jsonProblemOf, MAX_JSON_DEPTH } from './untrusted.js';
import { byEvent, EVENT_NAMES, isEventName } from './names.js';
import { err, ok, type Result } from '../result.js';

/** Deeper events are rejected (spec §4.3's bound, applied to what the host sends). */
export const MAX_EVENT_DEPTH = MAX_JSON_DEPTH;

/** Values an event may be completed with; injected so decoding stays pure. */
export interface EventDefaults {
  readonly now: () => Date;
  readonly cwd: () => string;
}

/** A valid event, or the first problem as `field: expected X, got Y`. */
export type DecodedEvent = Result<HookEvent>;

const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
};

const isFieldKey = (key: string) => key !== '' && !/^\d+$/.test(key);

/** The first problem io-ts found, as `field: expected X, got Y` (X is the field's declared type). */
const firstProblem = (errors: t.Errors): string => {
  const error = errors[0];
  if (!error) return 'invalid event';
  const fields = error.context.filter((entry) => isFieldKey(entry.key));
  const declared = fields[fields.length - 1]?.type ?? error.context[error.context.length - 1]!.type;
  const field = fields.map((entry) => entry.key).join('.') || 'event';
  if (error.value === undefined) return `${field}: missing required field (expected ${declared.name})`;
  return `${field}: expected ${declared.name}, got ${describe(error.value)}`;
};

interface Field {
  readonly key: string;
  readonly is: (value: unknown) => boolean;
}

/** One event's fields as two flat lists, read from its codec: io-ts stays the one source of the shape. */
interface Shape {
  readonly required: readonly Field[];
  readonly optional: readonly Field[];
}

const fieldsOf = (props: t.Props): Field[] =>
  Object.entries(props).map(([key, codec]) => ({ key, is: codec.is }));

const SHAPES = byEvent((name): Shape => {
  const [required, optional] = EventCodecs[name].types;
  return { required: fieldsOf(required.props), optional: fieldsOf(optional.props) };
});

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * What `codec.is` answers for an object, in two plain loops: no validation context, and none of
 * io-ts's per-part record checks and callbacks (the caller has checked it is an object). Every
 * event of a session comes through here; `decode` runs only to explain a failure. Speed, measured
 * (docs/performance.md): `decode` for every event made row 3a 1.36× slower, io-ts `is` 1.10×.
 */
const fits = (value: Record<string, unknown>, shape: Shape): boolean => {
  for (const { key, is } of shape.required) {
    const field = value[key];
    if ((field === undefined && !hasOwn.call(value, key)) || !is(field)) return false;
  }
  for (const { key, is } of shape.optional) {
    // `in` first: most optional fields are absent, and reading an absent key from objects of
    // many shapes costs about ten times reading a present one (V8 cannot cache the miss).
    if (!(key in value)) continue;
    const field = value[key];
    if (field !== undefined && !is(field)) return false;
  }
  return true;
};

/**
 * Validates one untrusted value as an event (docs/protocol.md). Never throws: the result names the
 * field and the problem. Missing `cwd` and `timestamp` are filled from `defaults`. `bounded` says the
 * value is known to be within the depth bound already (the engine's own copy of a host's object),
 * so it is not walked again.
 */
export const decodeEvent = (
  value: unknown,
  defaults: EventDefaults,
  options: { readonly bounded?: boolean } = {},
): DecodedEvent => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err(`event: expected a JSON object, got ${describe(value)}`);
  }
  const name = (value as { hook_event_name?: unknown }).hook_event_name;
  if (name === undefined) return err('hook_event_name: missing required field');
  if (!isEventName(name)) {
    return err(
      `hook_event_name: unknown event ${describe(name)} (expected one of ${EVENT_NAMES.join(', ')})`,
    );
  }
  if (!fits(value as Record<string, unknown>, SHAPES[name])) {
    const result = EventCodecs[name].decode(value);
    return err(result._tag === 'Left' ? firstProblem(result.left) : 'invalid event');
  }
  // Deeper (or cyclic) events could not be written to a hook's stdin, nor echoed.
  const problem = options.bounded === true ? undefined : jsonProblemOf(value);
  if (problem !== undefined) return err(describeJsonProblem(problem, 'event'));
  const event = value as Partial<HookEvent>;
  if (typeof event.cwd === 'string' && typeof event.timestamp === 'string') {
    return ok(event as HookEvent);
  }
  return ok({
    ...event,
    cwd: event.cwd ?? defaults.cwd(),
    timestamp: event.timestamp ?? defaults.now().toISOString(),
  } as HookEvent);
};
