import { DEFAULT_SPAWN_HELPER_MIN_RSS, spawnerFor } from './helper/helper-client.js';
import { hookExecutor } from './hook-executor.js';
import { withPersistentHooks, type PersistentHookOptions } from './persistent/persistent.js';
import type { RunScopedExecutor } from './port.js';
import { perEventExecutor, type ProcessExecutorOptions } from './process/per-event.js';

export { DEFAULT_MAX_PROCESSES, type ProcessExecutorOptions } from './process/per-event.js';

/**
 * The real executor, for every hook kind: a command hook as a process per event
 * (`./process/per-event.ts`), except hooks with `persistent: true`, answered by one long-running
 * process per hook and run (`./persistent/persistent.ts`, spec §8); a function hook in process
 * (`hookExecutor`). Processes start directly or through the spawn helper (`./helper/`). The result
 * is run-scoped: `hookPipeline` opens it per run and ends its processes with the run.
 *
 * Example: `hookPipeline(registry, defaultDeps(processExecutor()))(events$)`
 */
export const processExecutor = (
  options: ProcessExecutorOptions & PersistentHookOptions = {},
): RunScopedExecutor => {
  const spawn = spawnerFor(
    options.spawnHelper ?? 'auto',
    options.spawnHelperMinRss ?? DEFAULT_SPAWN_HELPER_MIN_RSS,
  );
  return hookExecutor(withPersistentHooks(perEventExecutor(options, spawn), options, spawn));
};
