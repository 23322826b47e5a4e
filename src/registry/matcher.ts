import { createRequire } from 'node:module';
import type * as Re2js from 're2js';
import type { RE2JS } from 're2js';
import { err, ok, type Result } from '../result.js';
import { describeThrown } from '../events/untrusted.js';

/**
 * Tool-name aliases, as in cosh-core (`HookSystem::tool_name_alias` in
 * alibaba/anolisa `cosh-core/src/hook.rs`): cosh-core's own tool names and copilot-shell's
 * standard ones. A matcher that matches either name of a pair matches both (spec §4.1), so an
 * extension written for `run_shell_command` guards a host that calls the tool `shell`.
 */
export const TOOL_NAME_ALIASES: ReadonlyMap<string, string> = new Map([
  ['shell', 'run_shell_command'],
  ['run_shell_command', 'shell'],
  ['grep', 'grep_search'],
  ['grep_search', 'grep'],
  ['todo', 'todo_write'],
  ['todo_write', 'todo'],
]);

/** A compiled tool-name matcher (spec §4.1): RE2 syntax, unanchored, linear time, aliases included. */
export interface ToolMatcher {
  /** The pattern as written, for listings. */
  readonly source: string;
  /** Whether the pattern matches `toolName` or its alias. */
  matches(toolName: string): boolean;
  /** Whether the pattern matches `text` itself: a field that is not a tool name has no alias. */
  matchesText(text: string): boolean;
}

/** The matcher (`undefined` for one that matches every tool), or why the pattern is refused. */
export type CompiledMatcher = Result<ToolMatcher | undefined>;

/** `""` and `"*"` match every tool (spec §4.1): the same as no matcher at all. */
export const matchesEveryTool = (matcher: string): boolean => matcher === '' || matcher === '*';

// Answers per tool name are cached: a host has a few dozen tools, and re2js costs ~0.3 µs a test
// where a cache hit costs a map lookup. Tool names come from the model, so the cache is bounded
// in entries and in key length; past the bound a name is simply tested again.
const CACHE_ENTRIES = 256;
const CACHE_KEY_CHARS = 256;

/** Syntax RE2 refuses because it needs backtracking: named in the error, with the reason. */
const BACKTRACKING = /\(\?<?[=!]|\\[1-9]|\\k</;

const syntaxError = (source: string, error: unknown): string => {
  const reason = describeThrown(error).replace(/^error parsing regexp: /, '');
  const backtracking = BACKTRACKING.test(source)
    ? '; lookaround and backreferences need backtracking, which RE2 syntax does not have'
    : '';
  return `invalid regular expression ${JSON.stringify(source)} (RE2 syntax): ${reason}${backtracking}`;
};

/**
 * re2js (260 KB of code), loaded when the first matcher is compiled, at load time: a configuration
 * without matchers never pays for it. Synchronously, so loading hooks stays synchronous; from its
 * CommonJS build, which `require` loads on every Node this package supports.
 */
let re2: typeof RE2JS | undefined;
export const loadRE2 = (): typeof RE2JS =>
  (re2 ??= (createRequire(import.meta.url)('re2js') as typeof Re2js).RE2JS);

/**
 * Compiles a matcher once, at load time. RE2 (re2js) accepts what cosh-core's Rust `regex` crate
 * accepts, less a few Unicode-class details, and matches in time linear in the tool name, so no
 * pattern can stall the engine; syntax that would need backtracking is an error, never a
 * silent literal match.
 */
export const compileMatcher = (source: string): CompiledMatcher => {
  if (matchesEveryTool(source)) return ok(undefined);
  let re: RE2JS;
  try {
    re = loadRE2().compile(source);
  } catch (error) {
    return err(syntaxError(source, error));
  }
  const cache = new Map<string, boolean>();
  const test = (toolName: string): boolean => {
    if (re.test(toolName)) return true;
    const alias = TOOL_NAME_ALIASES.get(toolName);
    return alias !== undefined && re.test(alias);
  };
  return ok({
    source,
    matchesText: (text: string) => re.test(text),
    matches: (toolName: string) => {
      const known = cache.get(toolName);
      if (known !== undefined) return known;
      const result = test(toolName);
      if (cache.size < CACHE_ENTRIES && toolName.length <= CACHE_KEY_CHARS) cache.set(toolName, result);
      return result;
    },
  });
};

/** RegExp flags RE2 has an inline form for; `g`, `y`, `d` and `u` do not change a boolean test. */
const INLINE_FLAGS: Readonly<Record<string, string>> = { i: 'i', m: 'm', s: 's' };

/**
 * A matcher from a JavaScript RegExp given to `defineHooks`: its source, with the `i`, `m` and
 * `s` flags written inline, compiled as RE2. The RegExp itself never runs (a JS pattern can
 * backtrack for seconds); what RE2 cannot express is refused like any invalid matcher.
 */
export const compileRegExpMatcher = (regexp: RegExp): CompiledMatcher => {
  if (regexp.flags.includes('v'))
    return err(`invalid regular expression ${String(regexp)}: flag v has no RE2 form`);
  const inline = [...regexp.flags].map((flag) => INLINE_FLAGS[flag] ?? '').join('');
  return compileMatcher(inline === '' ? regexp.source : `(?${inline})${regexp.source}`);
};
