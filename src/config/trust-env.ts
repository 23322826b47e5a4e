import { ENV_NAME } from './codecs.js';

/**
 * Which names a project hook's `env` table may set, for trust (docs/configuration.md, trust): an
 * allow-list the user keeps in their own config (`[hooks] project_env`, user or system layer),
 * since no list of the names that make a program load code (`LD_PRELOAD`, `OPENSSL_CONF`,
 * `NODE_OPTIONS`, …) is ever complete. Names the engine sets and `PATH` (trust finds interpreters
 * on the engine's) are refused even when allowed. Pure.
 */

/** Refused whatever the user allows: `PATH`, the engine's `COSH_*` and the agents' workspace variables. */
const ENGINE_SET = /^(?:PATH|COSH_[A-Za-z0-9_]*|CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|CLAUDE_PLUGIN_ROOT)$/;

/** Why a project hook may not set `name` in its `env` given the names `allowed`, or undefined when it may. */
export const envNameRefusal = (name: string, allowed: ReadonlySet<string>): string | undefined => {
  if (!ENV_NAME.test(name)) return `env ${JSON.stringify(name)}: not a plain variable name`;
  if (ENGINE_SET.test(name))
    return `env ${name}: set by the engine, or PATH (trust finds interpreters on the engine's); a project hook may not set it`;
  if (!allowed.has(name))
    return `env ${name}: not allowed by project_env in your user or system config (a variable can make a program load code, as OPENSSL_CONF does); allow it there only if it is data`;
  return undefined;
};
