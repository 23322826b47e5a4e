import { map, type OperatorFunction } from 'rxjs';
import { chainFor } from '../src/registry/chain.js';
import type { Hook, Registry } from '../src/registry/hook.js';
import type { Admitted, AdmittedEvent, RejectedInput } from './admitEvents.js';

/** A valid event with the chain of hooks that applies to it. */
export interface MatchedEvent extends AdmittedEvent {
  readonly chain: readonly Hook[];
}

/** What `matchHooks` emits: an event with its chain, or a rejected input. */
export type Job = MatchedEvent | RejectedInput;

/** `matchHooks` for one item: what the operator maps each item to. May throw if a matcher does. */
export const matchJob =
  (registry: Registry) =>
  (item: Admitted): Job =>
    // A literal: `{ ...item, chain }` made row 3a (events without hooks) 1.75× slower in Node 20.
    item.kind === 'event'
      ? { kind: 'event', seq: item.seq, event: item.event, chain: chainFor(registry, item.event) }
      : item;

/**
 * Attaches to each event its chain: the registry's enabled hooks for the event name, in chain
 * order, filtered by matcher on tool events (spec §4, §4.1). Rejected input passes through
 * untouched. Pure and synchronous: one output per input, in the same frame.
 *
 * ```
 * input:  --a----x----b--|
 * output: --A----x----B--|    A = { ...a, chain: [guard, audit] }
 * ```
 *
 * Example: `input$.pipe(admitEvents(defaults), matchHooks(registry))`
 */
export const matchHooks = (registry: Registry): OperatorFunction<Admitted, Job> => map(matchJob(registry));
