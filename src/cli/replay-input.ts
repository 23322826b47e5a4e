import { JsonLine } from '../events/input.js';
import type { EventInput } from '../events/codecs.js';
import { parseJson, isJsonObject } from '../events/untrusted.js';

/*
 * What `cosh-hooks replay` reads (docs/cli.md): recorded events, one JSON object a line, as a host
 * sends them to `cosh-hooks run`. Lines are kept with their physical numbers, so a line that is not
 * an event gets the same `hook_error` (naming its line) as in `run`.
 *
 * Other record kinds can be read too: a line that is a JSON object with a `type` named in
 * RECORD_READERS is a record of that kind, and its reader gives the event it holds, or nothing
 * when the record holds none (the audit stream's `event_received` records are meant to plug in
 * here). Host events carry no `type`, so they never reach a reader.
 */

/** The event a record holds (as a value), or `undefined` for a record that is not an event. */
export type RecordReader = (record: Readonly<Record<string, unknown>>) => unknown;

/** Readers by the record's `type`. Empty today: every line is taken as a host event. */
export const RECORD_READERS: ReadonlyMap<string, RecordReader> = new Map();

const recordTypeOf = (text: string): string | undefined => {
  // Most lines are host events: parse again only the ones that may be records.
  if (RECORD_READERS.size === 0 || !text.includes('"type"')) return undefined;
  const parsed = parseJson(text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const type = parsed.value['type'];
  return typeof type === 'string' && RECORD_READERS.has(type) ? type : undefined;
};

/**
 * The input items of a recorded file, in order: a `JsonLine` per non-blank line (numbered from 1,
 * blank lines counted), or the event a known record holds.
 */
export const replayItemsOf = (text: string): (EventInput | JsonLine)[] => {
  // Recorded events as the host sent them; the engine checks each one as it checks any input.
  const items: (EventInput | JsonLine)[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const type = recordTypeOf(line);
    if (type === undefined) {
      items.push(new JsonLine(index + 1, line));
      return;
    }
    const parsed = parseJson(line);
    const event =
      parsed.ok && isJsonObject(parsed.value) ? RECORD_READERS.get(type)?.(parsed.value) : undefined;
    if (event !== undefined) items.push(event as EventInput);
  });
  return items;
};
