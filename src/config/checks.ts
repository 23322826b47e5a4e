import { CLAUDE_TOOL_TO_COSH } from '../dialects/tools.js';
import { EVENT_NAMES, TOOL_EVENTS, type EventName } from '../events/names.js';
import type { Hook, HookOrigin, Registry } from '../registry/hook.js';
import { compileMatcher, TOOL_NAME_ALIASES } from '../registry/matcher.js';
import { commandProblems } from './command-check.js';
import type { ConfigProblem } from './problems.js';

/**
 * Checks of a loaded registry that no codec can make (docs/configuration.md, "Checks at load"):
 * a command whose program or script cannot be found, a matcher that can never match a tool the
 * host has, a dialect on an event its agent does not have, the same hook loaded twice. Each
 * problem names the hook and where it was written. None of them stops a run: they are warnings
 * that `validate` counts, `list` shows next to the hook and `run` prints at start. Reads the file
 * system (stat, access), never runs anything.
 */

export interface CheckOptions {
  /** The host's environment the hooks will inherit (`PATH`, `HOME`, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The workspace: relative paths are looked for there, and it is `COSH_WORKSPACE_PATH`. */
  readonly workspace: string;
}

/** Tool names cosh hosts use, as docs/compat.md and docs/protocol.md write them. */
export const COSH_TOOL_NAMES: readonly string[] = [
  ...new Set([...Object.values(CLAUDE_TOOL_TO_COSH).flat(), ...TOOL_NAME_ALIASES.keys()]),
];

/** Engine variables whose value is only known per event: a command using them is not checked. */
const PER_EVENT = new Set([
  'COSH_HOOK_EVENT',
  'COSH_SESSION_ID',
  'COSH_HOOK_PERSISTENT',
  'GEMINI_SESSION_ID',
  'GEMINI_CWD',
]);

/** A variable's value as the hook will see it, when certain before the run (docs/execution.md). */
const lookupFor =
  (hook: Hook & { kind: 'command' }, options: CheckOptions) =>
  (name: string): string | undefined => {
    switch (name) {
      case 'COSH_EXTENSION_PATH':
        return hook.extensionPath;
      case 'COSH_WORKSPACE_PATH':
        return hook.workspacePath ?? options.workspace;
      case 'COSH_HOOK_NAME':
        return hook.name;
      case 'COSH_RUNTIME':
        return 'cosh-hooks';
      default:
        if (PER_EVENT.has(name) || name.startsWith('COSH_HOOKS_')) return undefined;
        if (Object.hasOwn(hook.env, name)) return hook.env[name];
        return Object.hasOwn(options.env, name) ? options.env[name] : undefined;
    }
  };

const whereOf = (hook: Hook): HookOrigin =>
  hook.kind !== 'function' && hook.origin !== undefined ? hook.origin : { file: hook.source };

const problemAt = (event: EventName, hook: Hook, message: string): ConfigProblem => {
  const origin = whereOf(hook);
  return {
    file: origin.file,
    ...(origin.line !== undefined && { line: origin.line }),
    ...(origin.path !== undefined && { path: origin.path }),
    message,
    hook: { event, name: hook.name, source: hook.source },
  };
};

/** What a hook that cannot start does to each event: the consequence, so the problem reads as one. */
const consequence = (hook: Hook): string =>
  hook.failClosed
    ? 'it fails with `spawn` on every event, and being fail_closed it blocks each one it can block'
    : 'it fails with `spawn` on every event, and each one passes as if the hook had no opinion (set fail_closed = true to block instead)';

const commandChecks = (event: EventName, hook: Hook, options: CheckOptions): ConfigProblem[] => {
  if (hook.kind !== 'command') return [];
  const context = { lookup: lookupFor(hook, options), cwd: hook.workspacePath ?? options.workspace };
  return commandProblems(hook.command, context).map((problem) =>
    problemAt(event, hook, `command cannot start: ${problem}; ${consequence(hook)}`),
  );
};

const pattern = (names: readonly string[]): string => `^(${names.join('|')})$`;

/** Whether `name` stands in `source` as a word of its own (`Bash(git *)`, not `mcp__x__Read` or `ReadFile`). */
const namedIn = (source: string, name: string): boolean =>
  new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(source);

/** `matcher` compiled ignoring case, when it compiles so. */
const folded = (source: string) => {
  const compiled = compileMatcher(`(?i)${source}`);
  return compiled.ok ? compiled.value : undefined;
};

/**
 * A matcher that matches none of the host's tool names but is written for Claude Code's (`Bash`,
 * `^Read$`, `Edit|Write`, `bash`, `Bash(git *)`), or matches one only in another letter case
 * (`^Shell$`): it can never select a call. A matcher that matches no known name and none of these
 * (an MCP tool, a host's own tool) is left alone: the check cannot know the host's other tools.
 */
const matcherChecks = (event: EventName, hook: Hook): ConfigProblem[] => {
  const matcher = hook.matcher;
  if (matcher === undefined || !TOOL_EVENTS.includes(event)) return [];
  if (COSH_TOOL_NAMES.some((name) => matcher.matches(name))) return [];
  const quoted = JSON.stringify(matcher.source);
  const anyCase = folded(matcher.source);
  const claudeNames = Object.keys(CLAUDE_TOOL_TO_COSH);
  // `Write|Edit` also matches TodoWrite and MultiEdit (matchers are unanchored): the names written
  // in the pattern are the ones meant.
  const matched = claudeNames.filter((name) => matcher.matches(name));
  const written = claudeNames.filter((name) => namedIn(matcher.source, name));
  const claude =
    written.length > 0
      ? written
      : matched.length > 0
        ? matched
        : claudeNames.filter(
            (name) =>
              anyCase?.matches(name) === true && namedIn(matcher.source.toLowerCase(), name.toLowerCase()),
          );
  if (claude.length > 0) {
    const cosh = [...new Set(claude.flatMap((name) => CLAUDE_TOOL_TO_COSH[name] ?? []))];
    const one = claude.length === 1;
    return [
      problemAt(
        event,
        hook,
        `matcher ${quoted} can never match: it is written for Claude Code's ${claude.join(', ')}, ${one ? 'a tool' : 'tools'} cosh calls ${cosh.join(', ')} (write matcher = ${JSON.stringify(pattern(cosh))})`,
      ),
    ];
  }
  const cased = anyCase === undefined ? [] : COSH_TOOL_NAMES.filter((name) => anyCase.matches(name));
  if (cased.length > 0) {
    return [
      problemAt(
        event,
        hook,
        `matcher ${quoted} can never match: tool names are case-sensitive, and cosh's are lowercase (did you mean ${JSON.stringify(pattern(cased))}?)`,
      ),
    ];
  }
  return [];
};

/** Events Claude Code does not have: a `claude` hook there receives an event it was not written for. */
const NOT_CLAUDE: ReadonlySet<EventName> = new Set(['BeforeModel', 'AfterModel']);

const dialectChecks = (event: EventName, hook: Hook): ConfigProblem[] =>
  hook.dialect === 'claude' && NOT_CLAUDE.has(event)
    ? [
        problemAt(
          event,
          hook,
          `dialect "claude" cannot work on ${event}: Claude Code has no such event, so no Claude Code hook was written for it (use dialect "gemini" or "cosh", or move the hook)`,
        ),
      ]
    : [];

/** Settings of another agent loaded next to the config (`--claude-settings FILE`): `claude:/path`. */
const isImported = (source: string): boolean => source.startsWith('claude:') || source.startsWith('gemini:');

const located = (hook: Hook): string => {
  const origin = whereOf(hook);
  const at = origin.line === undefined ? origin.file : `${origin.file}:${origin.line}`;
  return origin.path === undefined ? at : `${at} (${origin.path})`;
};

/**
 * The same hook twice in one chain: the same name and command (copied from one source into
 * another), the same command and matcher twice in one file, or the same name from the config file
 * and an imported settings file (a file both imported with `cosh-hooks import` and loaded with
 * `--claude-settings`). Each copy runs, so a guard runs twice and a logger logs twice. Two hooks of
 * different names and sources that happen to run the same command (`cat > /dev/null`) are not
 * reported: nothing says they are one hook.
 */
const duplicateChecks = (event: EventName, chain: readonly Hook[]): ConfigProblem[] => {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, Hook>();
  const byName = new Map<string, Hook>();
  const twice = (hook: Hook, first: Hook, why: string) =>
    problemAt(
      event,
      hook,
      `the same hook is loaded twice: "${first.name}" (${first.source}, ${located(first)}) ${why}; both run on every ${event}`,
    );
  for (const hook of chain) {
    if (!hook.enabled) continue;
    if (hook.kind === 'command') {
      const sameFile = `file\u0000${whereOf(hook).file}\u0000${hook.dialect ?? 'cosh'}\u0000${hook.matcher?.source ?? ''}\u0000${hook.command}`;
      const sameName = `name\u0000${hook.name}\u0000${hook.command}`;
      const first = seen.get(sameName) ?? seen.get(sameFile);
      if (first !== undefined) {
        problems.push(
          twice(
            hook,
            first,
            first.name === hook.name ? 'has the same name and command' : 'has the same command and matcher',
          ),
        );
        continue;
      }
      seen.set(sameName, hook);
      seen.set(sameFile, hook);
    }
    const first = byName.get(hook.name);
    if (first === undefined) byName.set(hook.name, hook);
    else if (first.source !== hook.source && (isImported(first.source) || isImported(hook.source)))
      problems.push(
        twice(hook, first, 'has the same name, from imported settings (loaded next to their import?)'),
      );
  }
  return problems;
};

/**
 * Every problem of the enabled hooks of `registry` (docs/configuration.md, "Checks at load"), in
 * event order, then chain order. Disabled hooks do not run and are not checked.
 */
export const checkRegistry = (registry: Registry, options: CheckOptions): ConfigProblem[] =>
  EVENT_NAMES.flatMap((event) => {
    const chain = registry[event];
    return [
      ...chain
        .filter((hook) => hook.enabled)
        .flatMap((hook) => [
          ...commandChecks(event, hook, options),
          ...matcherChecks(event, hook),
          ...dialectChecks(event, hook),
        ]),
      ...duplicateChecks(event, chain),
    ];
  });
