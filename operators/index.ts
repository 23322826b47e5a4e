/**
 * `cosh-hooks/operators`: the RxJS operators the engine is made of, each with its marble diagram
 * in docs/operators.md, for hosts that assemble their own pipeline. Every name here is public API,
 * locked by `test/package/api.test.ts`.
 */
export { parseLines } from './parseLines.js';
export type { ParsedInput } from '../src/events/input.js';
export { admitEvents } from './admitEvents.js';
export type { Admitted, AdmittedEvent, RejectedInput } from './admitEvents.js';
export { matchHooks } from './matchHooks.js';
export type { Job, MatchedEvent } from './matchHooks.js';
export { runHooks } from './runHooks.js';
export type { RunDeps } from './runHooks.js';
export { stopOnBlock } from './stopOnBlock.js';
export { foldDecision } from './foldDecision.js';
export type { ChainStep } from './foldDecision.js';
export { concatMapByKey } from './concatMapByKey.js';
export { concatMapInline } from './concatMapInline.js';
export { runObservers } from './runObservers.js';
export type { Observation, ObserverRecord } from './runObservers.js';
export { withLatestRegistry } from './withLatestRegistry.js';
export type { HookRun, Verdict } from '../src/protocol/aggregate.js';
