import { defer, of } from 'rxjs';
import { changedTrustedScript } from './trusted-scripts.js';
import { runFunctionHook } from './function-hook.js';
import { runRuleHook } from './rule-hook.js';
import {
  openRun,
  type CommandExecutor,
  type ExecutorRun,
  type FunctionExecutor,
  type HookExecutor,
  type RunScopedExecutor,
} from './port.js';

/** One hook for one event, routed to the executor of its kind. */
const routed =
  (commands: CommandExecutor, functions: FunctionExecutor): HookExecutor =>
  (hook, event) => {
    if (hook.kind === 'function') return functions(hook, event);
    // Rule hooks are decided in process, whatever executors were given (docs/configuration.md).
    if (hook.kind === 'rule') return runRuleHook(hook, event);
    if (hook.trustedScripts === undefined) return commands(hook, event);
    // A trusted project hook: its scripts are digested again at each start (on subscribe).
    return defer(() => {
      const changed = changedTrustedScript(hook);
      return changed === undefined ? commands(hook, event) : of(changed);
    });
  };

/**
 * The executor port for every hook kind, composed from one executor per kind: command hooks go to
 * `commands` (processes: `processExecutor` uses this with its own), function hooks to `functions`
 * (in process by default), rule hooks to their in-process decision. Each hook's stream is its kind's executor's stream, unchanged: progress,
 * result, cancellation on unsubscribe.
 *
 * Run-scoped like its parts: `openRun()` opens a run of `commands` (persistent hook processes, spec
 * §8) and of `functions`, and unsubscribing it ends both; called outside a run, each call owns what
 * it starts, as the parts' own calls do.
 *
 * Example: `defaultDeps(hookExecutor(myCommandExecutor))`: an executor of your own that knows only
 * command hooks, with function hooks run in process.
 */
export const hookExecutor = (
  commands: CommandExecutor,
  functions: FunctionExecutor = runFunctionHook,
): RunScopedExecutor =>
  Object.assign(routed(commands, functions), {
    openRun: (): ExecutorRun => {
      const commandRun = openRun(commands);
      const functionRun = openRun(functions);
      return {
        executor: routed(commandRun.executor, functionRun.executor),
        unsubscribe: () => {
          commandRun.unsubscribe();
          functionRun.unsubscribe();
        },
      };
    },
  });
