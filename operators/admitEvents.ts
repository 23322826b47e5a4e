import { defer, map, type OperatorFunction } from 'rxjs';
import type { HookEvent } from '../src/events/codecs.js';
import type { EventDefaults } from '../src/events/decode.js';
import { admit, idsOf, type EventIds, type ParsedInput } from '../src/events/input.js';

/** A valid event with its sequence number (valid events counted from 1). */
export interface AdmittedEvent {
  readonly kind: 'event';
  readonly seq: number;
  readonly event: HookEvent;
}

/** An input item that is not a valid event; `index` counts every input item from 1. */
export interface RejectedInput {
  readonly kind: 'rejected';
  readonly index: number;
  readonly line?: number;
  /** The ids the input carried (as strings, read without running its code). */
  readonly ids?: EventIds;
  readonly message: string;
}

const withIds = (ids: EventIds | undefined) => (ids === undefined ? {} : { ids });

/** What `admitEvents` emits for each input item. */
export type Admitted = AdmittedEvent | RejectedInput;

/**
 * Validates each input item past the edge (`parseLines`) as an event and numbers the valid ones.
 * Invalid items (not an event, or a line that held no value) become `rejected` values in place,
 * with their line number when they came as text: the stream never errors on bad input.
 *
 * ```
 * input:  --a--x--b--|      (x is not a valid event)
 * output: --A--X--B--|      A = {kind:'event', seq:1}, X = {kind:'rejected', index:2}, B = {seq:2}
 * ```
 *
 * Example: `events$.pipe(parseLines(), admitEvents({ now: () => new Date(), cwd: () => process.cwd() }))`
 */
export const admitEvents = (defaults: EventDefaults): OperatorFunction<ParsedInput, Admitted> => {
  return (source) =>
    defer(() => {
      // Counters live per subscription, so a re-subscribed stream numbers from 1 again.
      let seq = 0;
      let index = 0;
      return source.pipe(
        map((input): Admitted => {
          index += 1;
          const admission = admit(input, defaults);
          if (admission.ok) {
            seq += 1;
            return { kind: 'event', seq, event: admission.value };
          }
          const { error: message, line } = admission;
          return {
            kind: 'rejected',
            index,
            ...(line !== undefined && { line }),
            ...withIds(idsOf(input)),
            message,
          };
        }),
      );
    });
};
