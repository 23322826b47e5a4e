import type { Dialect, Issue, Segment } from './problems.js';

/**
 * Below this many milliseconds a `timeout` in `config.toml` or a legacy manifest is almost surely
 * seconds written as Claude Code and cosh-core's `schemaVersion: 1` manifests write them: 30 is
 * 30 ms here, and a guard that times out passes the call.
 */
export const SHORT_TIMEOUT_MS = 100;

/**
 * The warning for a `timeout` under 100 ms, naming the unit and the value meant in seconds
 * (docs/configuration.md). A warning, so `run` still starts, `validate` fails (status 1), and the
 * hook keeps the value as written; anything that is not an integer 1..99 is none of its business.
 */
export const shortTimeout = (value: unknown, path: readonly Segment[], dialect: Dialect): Issue[] =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value < SHORT_TIMEOUT_MS
    ? [
        {
          path: [...path, 'timeout'],
          message: `${dialect === 'toml' ? 'timeout =' : '"timeout":'} ${value} is ${value} ms; timeouts here are milliseconds (write ${value * 1000} for ${value} s)`,
        },
      ]
    : [];
