/** The public face of the executor: the port, and the real adapter behind it. */
export * from './port.js';
export { execaExecutor, type ExecaExecutorOptions } from './execa-executor.js';
export { withPersistentHooks, type PersistentHookOptions } from './persistent.js';
export { backoffDelay, DEFAULT_BACKOFF, type Backoff } from './persistent-answer.js';
