export * from './hook.js';
export * from './chain.js';
export * from './define.js';
export * from './matcher.js';
