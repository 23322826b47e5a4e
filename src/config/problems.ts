import type * as t from 'io-ts';
import { MATCHED_EVENTS, type EventName } from '../events/names.js';

/** One configuration problem, located as precisely as the file allows (spec §2). */
export interface ConfigProblem {
  readonly file: string;
  readonly line?: number;
  /** Dotted path of the offending value, e.g. `hooks.PreToolUse[1].timeout`. */
  readonly path?: string;
  readonly message: string;
  /** The loaded hook a check after loading found this in (docs/configuration.md, "Checks at load"). */
  readonly hook?: { readonly event: EventName; readonly name: string; readonly source: string };
}

/** `file:line: path: message`, leaving out the parts that are unknown. */
export const formatProblem = (problem: ConfigProblem): string => {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
  return problem.path === undefined || problem.path === ''
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
};

/** One step into a TOML or JSON document: a key or an array index. */
export type Segment = string | number;

/** A problem before it is tied to a file and a line. */
export interface Issue {
  readonly path: readonly Segment[];
  readonly message: string;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * `hooks.PreToolUse[1].env.TEAM`; keys that are not bare TOML keys are quoted
 * (`env["BAD NAME"]`) so the path stays unambiguous.
 */
export const formatPath = (path: readonly Segment[]): string =>
  path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (!BARE_KEY.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join('');

/** Whether a document is TOML (tables) or JSON (objects): only changes the words used. */
export type Dialect = 'toml' | 'json';

/** A short description of an unexpected value for "expected X, got Y". */
export const describeValue = (value: unknown, dialect: Dialect): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  switch (typeof value) {
    case 'string':
      return value.length > 40
        ? `a string (${JSON.stringify(`${value.slice(0, 40)}…`)})`
        : JSON.stringify(value);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'object':
      return dialect === 'toml' ? 'a table' : 'an object';
    default:
      return typeof value;
  }
};

/**
 * io-ts errors as located issues. Codecs in this folder name themselves after what they expect
 * ("an integer 1..600000"), and custom checks attach their own message, so each error reads as a
 * sentence. A numeric context key is an array index only when its parent value is an array.
 */
export const issuesOf = (errors: t.Errors, at: readonly Segment[], dialect: Dialect): Issue[] =>
  errors.map((error) => {
    const path: Segment[] = [...at];
    error.context.forEach((entry, index) => {
      if (index === 0) return;
      const parent = error.context[index - 1]?.actual;
      path.push(Array.isArray(parent) ? Number(entry.key) : entry.key);
    });
    const expected = error.context[error.context.length - 1]?.type.name ?? 'a valid value';
    const message =
      error.message ??
      (error.value === undefined
        ? `missing required key (expected ${expected})`
        : `expected ${expected}, got ${describeValue(error.value, dialect)}`);
    return { path, message };
  });

/**
 * Warning: a config-file hook without a name (absent, empty or blank) is skipped, as the seed says;
 * one that was a fail_closed guard says so (docs/configuration.md).
 */
export const skippedUnnamedHook = (path: readonly Segment[], name: unknown, failClosed: boolean): Issue => ({
  path,
  message: `hook has ${name === undefined ? 'no name' : 'a blank name'}; skipped${
    failClosed ? ': this fail_closed guard does not run' : ''
  } (every other hook of the file runs)`,
});

/** Warning: a manifest hook without a name is skipped; one that was fail_closed says so. */
export const unnamedManifestHook = (path: readonly Segment[], failClosed: boolean): Issue => ({
  path,
  message: failClosed
    ? 'hook has no name; skipped: this fail_closed guard does not run'
    : 'hook has no name; skipped',
});

/** Warning: a matcher on an event without a matched field is ignored (docs/protocol.md). */
export const ignoredMatcher = (event: EventName, path: readonly Segment[]): Issue => ({
  path,
  message: `ignored: ${event} has no field to match (matchers apply to ${MATCHED_EVENTS.join(', ')})`,
});

/**
 * Error: `fail_closed` and cosh-core's `fail_open` both set, saying opposite things
 * (`fail_closed = true` with `fail_open = true`). Either alone is fine; both agreeing is fine.
 */
export const failModeConflict = (
  table: Readonly<Record<string, unknown>>,
  path: readonly Segment[],
): Issue[] =>
  typeof table.fail_closed === 'boolean' &&
  typeof table.fail_open === 'boolean' &&
  table.fail_closed === table.fail_open
    ? [
        {
          path: [...path, 'fail_open'],
          message: `contradicts fail_closed = ${String(table.fail_closed)} (fail_open is its opposite; keep one of the two)`,
        },
      ]
    : [];
