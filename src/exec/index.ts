/** The public face of the executor: the port, its composition by hook kind, and the real adapters. */
export * from './port.js';
export { hookExecutor } from './hook-executor.js';
export { runFunctionHook } from './function-hook.js';
export { processExecutor, type ProcessExecutorOptions } from './process-executor.js';
export { withPersistentHooks, type PersistentHookOptions } from './persistent/persistent.js';
export { backoffDelay, DEFAULT_BACKOFF, type Backoff } from './persistent/persistent-answer.js';
