import type { CommandHook } from '../registry/hook.js';
import { isForeign, type Dialect } from '../registry/dialect.js';

/** Where a hook runs from, as far as its agent's environment variables go. */
export interface DialectPlaces {
  /** The project (workspace) root: `CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`. */
  readonly projectDir: string;
  /** The folder of the plugin or extension that shipped the hook: `CLAUDE_PLUGIN_ROOT`. */
  readonly pluginRoot?: string | undefined;
}

/**
 * The environment variables a hook of `dialect` reads (docs/compat.md). Claude Code sets
 * `CLAUDE_PROJECT_DIR` and, for plugin hooks, `CLAUDE_PLUGIN_ROOT`; Gemini CLI sets
 * `GEMINI_PROJECT_DIR` and, for compatibility, `CLAUDE_PROJECT_DIR` (its extensions' commands use
 * `${extensionPath}`, substituted at load time like cosh's); its per-event variables are
 * `dialectEventEnv`. Pure.
 */
export const dialectEnv = (dialect: Dialect | undefined, places: DialectPlaces): Record<string, string> => {
  if (dialect === 'claude')
    return {
      CLAUDE_PROJECT_DIR: places.projectDir,
      ...(places.pluginRoot !== undefined && { CLAUDE_PLUGIN_ROOT: places.pluginRoot }),
    };
  if (dialect === 'gemini')
    return {
      GEMINI_PROJECT_DIR: places.projectDir,
      CLAUDE_PROJECT_DIR: places.projectDir,
    };
  return {};
};

/**
 * The variables of `dialect` that change with each event, set when the hook starts: Gemini CLI
 * gives its hooks `GEMINI_SESSION_ID` (the event's session) and `GEMINI_CWD` (the folder the hook
 * runs in; Gemini CLI runs hooks in the event's `cwd`, as cosh does). Claude Code sets none. Pure.
 */
export const dialectEventEnv = (
  dialect: Dialect | undefined,
  sessionId: string,
  runDir: string,
): Record<string, string> =>
  dialect === 'gemini' ? { GEMINI_SESSION_ID: sessionId, GEMINI_CWD: runDir } : {};

/**
 * A command hook with its dialect's variables in its `env`, set once at load time (they are
 * constants of the installation, not of the event). The hook's own `env` wins.
 */
export const withDialectEnv = (hook: CommandHook, projectDir: string): CommandHook =>
  isForeign(hook.dialect)
    ? {
        ...hook,
        env: { ...dialectEnv(hook.dialect, { projectDir, pluginRoot: hook.extensionPath }), ...hook.env },
      }
    : hook;
