export * from './admitEvents.js';
export * from './matchHooks.js';
export * from './runHooks.js';
export * from './stopOnBlock.js';
export * from './foldDecision.js';
export * from './concatMapByKey.js';
export * from './translateDialect.js';
