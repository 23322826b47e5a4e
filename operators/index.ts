/**
 * `cosh-hooks/operators`: the RxJS operators the engine is made of, each with its marble diagram
 * in docs/operators.md, for hosts that assemble their own pipeline. Their input and output types
 * are inferred where they are piped. Every name here is public API, locked by
 * `test/package/api.test.ts`.
 */
export { parseLines } from './parseLines.js';
export { admitEvents } from './admitEvents.js';
export { matchHooks } from './matchHooks.js';
export { runHooks } from './runHooks.js';
export { stopOnBlock } from './stopOnBlock.js';
export { foldDecision } from './foldDecision.js';
export { concatMapByKey } from './concatMapByKey.js';
export { runObservers } from './runObservers.js';
export { withLatestRegistry } from './withLatestRegistry.js';
