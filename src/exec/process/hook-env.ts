import { dialectEventEnv } from '../../dialects/env.js';
import type { HookEvent } from '../../events/codecs.js';
import type { CommandHook } from '../../registry/hook.js';
import { COSH_CORE_VERSION, packageVersion } from '../../version.js';

/** Longest value, in UTF-8 bytes, that an event may put into a hook's environment (spec §4.2). */
export const ENV_VALUE_MAX_BYTES = 32 * 1024;

/**
 * Whether `value` can be an environment value: no NUL byte (the C environment ends a string there,
 * and Node refuses to spawn), and at most 32 KiB (Linux refuses a single environment string over
 * 128 KiB with E2BIG, and the whole environment shares the argument space).
 */
export const fitsEnvironment = (value: string): boolean =>
  !value.includes('\0') &&
  // A UTF-16 unit is at most 3 UTF-8 bytes: short values skip the byte count.
  (value.length * 3 <= ENV_VALUE_MAX_BYTES || Buffer.byteLength(value, 'utf8') <= ENV_VALUE_MAX_BYTES);

/** The variables the engine sets; anything the host or the hook's `env` says about them is replaced. */
export const ENGINE_VARIABLES = [
  'COSH_HOOK_EVENT',
  'COSH_HOOK_NAME',
  'COSH_SESSION_ID',
  'COSH_RUNTIME',
  'COSH_HOOKS_VERSION',
  'COSH_WORKSPACE_PATH',
  'COSH_EXTENSION_PATH',
  'COSH_HOOK_PERSISTENT',
  'COSH_NG_VERSION',
] as const;

type EngineVariables = Partial<Record<(typeof ENGINE_VARIABLES)[number], string>>;

const ENGINE_NAMES: ReadonlySet<string> = new Set(ENGINE_VARIABLES);

/**
 * The host's environment and the hook's `env`, later wins, without any engine variable. A loop
 * over the keys, not `{ ...host }` and `delete`: reading `process.env` through a spread costs about
 * twice as much (it is an object backed by C++), and deleting keys slows every later read of the
 * copy, which Node walks again to build the child's environment.
 */
const baseEnvironment = (host: NodeJS.ProcessEnv, hook: CommandHook): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const name of Object.keys(host)) if (!ENGINE_NAMES.has(name)) env[name] = host[name];
  const own = hook.env;
  for (const name of Object.keys(own)) if (!ENGINE_NAMES.has(name)) env[name] = own[name];
  return env;
};

/** Sets `name` to `value`, or leaves it out when the value cannot be an environment value. */
const put = (env: EngineVariables, name: keyof EngineVariables, value: string | undefined): void => {
  if (value !== undefined && fitsEnvironment(value)) env[name] = value;
};

/** The variables that do not depend on an event: the hook, the runtime, where it was loaded. */
const hookVariables = (hook: CommandHook, cwd: string): EngineVariables => {
  const env: EngineVariables = {};
  put(env, 'COSH_HOOK_NAME', hook.name);
  env.COSH_RUNTIME = 'cosh-hooks';
  env.COSH_HOOKS_VERSION = packageVersion();
  // cosh-core's own variable, set after the hook's `env` as cosh-core sets it: hooks written for
  // cosh-core (tokenless) recognise their host by it (docs/compat.md).
  env.COSH_NG_VERSION = COSH_CORE_VERSION;
  put(env, 'COSH_WORKSPACE_PATH', hook.workspacePath ?? cwd);
  put(env, 'COSH_EXTENSION_PATH', hook.extensionPath);
  return env;
};

/** The engine's own variables for one hook run (spec §3, §4.2). */
export const engineVariables = (hook: CommandHook, event: HookEvent, cwd: string): EngineVariables => {
  const env = hookVariables(hook, cwd);
  put(env, 'COSH_HOOK_EVENT', event.hook_event_name);
  put(env, 'COSH_SESSION_ID', event.session_id);
  return env;
};

/**
 * A hook's environment: the host's, then the hook's `env`, then the engine's variables, which win
 * (a hook's `env` cannot fake them), then a foreign hook's per-event dialect variables (`runDir`:
 * the folder the hook runs in, for `GEMINI_CWD`). An engine variable whose value cannot be an
 * environment value (a NUL byte, over 32 KiB: event data) is left out, and so is an inherited one
 * of that name, so a hook never sees a stale value from an outer run. Event data never makes a
 * hook fail to start.
 */
export const hookEnvironment = (
  hook: CommandHook,
  event: HookEvent,
  host: NodeJS.ProcessEnv,
  cwd: string,
  runDir: string = cwd,
): NodeJS.ProcessEnv => {
  const env = Object.assign(baseEnvironment(host, hook), engineVariables(hook, event, cwd));
  if (hook.dialect === undefined || hook.dialect === 'cosh') return env;
  // A foreign hook's per-event variables (Gemini's GEMINI_SESSION_ID, GEMINI_CWD): the hook's own
  // `env` wins, as for its load-time ones; a value that cannot be an environment value is left
  // out, and so is an inherited one (an outer agent's session is not this event's).
  for (const [name, value] of Object.entries(dialectEventEnv(hook.dialect, event.session_id, runDir))) {
    if (Object.hasOwn(hook.env, name)) continue;
    if (fitsEnvironment(value)) env[name] = value;
    else delete env[name];
  }
  return env;
};

/**
 * A persistent hook's environment (spec §8): as `hookEnvironment`, without the per-event variables
 * (`COSH_HOOK_EVENT`, `COSH_SESSION_ID`: one process answers many events and sessions), plus
 * `COSH_HOOK_PERSISTENT=1`. An inherited value of a per-event variable is removed too.
 */
export const persistentHookEnvironment = (
  hook: CommandHook,
  host: NodeJS.ProcessEnv,
  cwd: string,
): NodeJS.ProcessEnv => {
  return Object.assign(baseEnvironment(host, hook), hookVariables(hook, cwd), { COSH_HOOK_PERSISTENT: '1' });
};
