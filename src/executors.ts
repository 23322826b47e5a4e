/**
 * `cosh-hooks/executors`: what runs a hook, for hosts that build their own executor. The port
 * (`HookExecutor`: a hook and an event in, progress notices and one result out), its composition by
 * hook kind (`hookExecutor`), the real one (`processExecutor`: processes for command hooks, one
 * long-running process per persistent hook, function hooks in process) and the results a hook
 * ends with. A host that runs hooks the default way needs none of this: `defaultDeps()` builds the
 * real executor. Every name here is public API, locked by `test/package/api.test.ts`.
 */
export { processExecutor } from './exec/process-executor.js';
export type { ProcessExecutorOptions } from './exec/process-executor.js';
export { hookExecutor } from './exec/hook-executor.js';
export { resultOnly } from './exec/port.js';
export type {
  CommandExecutor,
  HookEmission,
  HookExecutor,
  HookProgress,
  RunScopedExecutor,
} from './exec/port.js';
export type { HookResult } from './protocol/result.js';
