import { isLeft } from 'fp-ts/lib/Either.js';
import { parse, TomlError } from 'smol-toml';
import { byEvent, EVENT_NAMES, TOOL_EVENTS, isEventName, type EventName } from '../events/names.js';
import { commandOfDialect } from './substitute.js';
import { commandHookOf, matchesEveryTool } from '../registry/define.js';
import type { CommandHook } from '../registry/hook.js';
import { ConfigFile, isRecord, type ConfigHook } from './codecs.js';
import { problemLocator, tomlLocations } from './locate.js';
import {
  failModeConflict,
  ignoredMatcher,
  issuesOf,
  unnamedHook,
  type ConfigProblem,
  type Issue,
  type Segment,
} from './problems.js';

/** Hooks of the config file per event, in file order; all enabled until state is applied. */
export type HooksByEvent = Readonly<Record<EventName, readonly CommandHook[]>>;

export interface ConfigFileResult {
  /** `[hooks] enabled`; absent = true. */
  readonly enabled: boolean;
  readonly hooks: HooksByEvent;
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

export const noHooks = (): Record<EventName, CommandHook[]> => byEvent((): CommandHook[] => []);

/** A missing, empty or blank `name`: such hooks are skipped with a warning (SPEC §2). */
export const isUnnamed = (name: unknown): boolean =>
  name === undefined || (typeof name === 'string' && name.trim() === '');

const syntaxProblem = (error: TomlError, file: string): ConfigProblem => {
  const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  return { file, line: error.line, message: `invalid TOML (column ${error.column}): ${reason}` };
};

/**
 * Warnings that do not depend on the file being valid, so they are reported together with its
 * errors: unnamed hooks (skipped) and matchers on events that have no tool name (ignored).
 */
/** Every hook table of the document with its event and path: `[hooks]` ones, then `[[imported_hooks]]`. */
const hookTablesOf = (
  document: Record<string, unknown>,
): { readonly event: EventName; readonly table: Record<string, unknown>; readonly at: Segment[] }[] => {
  const found: { event: EventName; table: Record<string, unknown>; at: Segment[] }[] = [];
  const section = document.hooks;
  if (isRecord(section)) {
    for (const [event, tables] of Object.entries(section)) {
      if (!isEventName(event) || !Array.isArray(tables)) continue;
      tables.forEach((table: unknown, index) => {
        if (isRecord(table)) found.push({ event, table, at: ['hooks', event, index] });
      });
    }
  }
  const imported = document.imported_hooks;
  if (Array.isArray(imported)) {
    imported.forEach((table: unknown, index) => {
      if (isRecord(table) && isEventName(table.event))
        found.push({ event: table.event, table, at: ['imported_hooks', index] });
    });
  }
  return found;
};

const warningIssues = (document: Record<string, unknown>): Issue[] =>
  hookTablesOf(document).flatMap(({ event, table, at }) => {
    const issues: Issue[] = [];
    if (isUnnamed(table.name)) issues.push(unnamedHook(at));
    const matcher = table.matcher;
    if (typeof matcher === 'string' && !matchesEveryTool(matcher) && !TOOL_EVENTS.includes(event)) {
      issues.push(ignoredMatcher(event, [...at, 'matcher']));
    }
    return issues;
  });

/** Hook tables that set `fail_closed` and `fail_open` to opposite meanings: errors. */
const failModeConflicts = (document: Record<string, unknown>): Issue[] =>
  hookTablesOf(document).flatMap(({ table, at }) => failModeConflict(table, at));

/**
 * Validates the text of a config file (SPEC §2) and resolves its hooks. Pure: `file` only names
 * the source in problems. Every problem is reported, each with the line found by re-scanning the
 * text; a file with any error yields no hooks.
 */
export const decodeConfigText = (text: string, file: string): ConfigFileResult => {
  const empty = { enabled: true, hooks: noHooks(), errors: [], warnings: [] };
  let document: Record<string, unknown>;
  try {
    document = parse(text);
  } catch (error) {
    if (error instanceof TomlError) return { ...empty, errors: [syntaxProblem(error, file)] };
    return { ...empty, errors: [{ file, message: `invalid TOML: ${(error as Error).message}` }] };
  }
  const locate = problemLocator(file, () => tomlLocations(text));
  const warnings = warningIssues(document).map(locate);
  const decoded = ConfigFile.decode(document);
  const conflicts = failModeConflicts(document);
  if (isLeft(decoded) || conflicts.length > 0) {
    const issues = isLeft(decoded) ? issuesOf(decoded.left, [], 'toml') : [];
    return { ...empty, errors: [...issues, ...conflicts].map(locate), warnings };
  }
  const section = decoded.right.hooks ?? {};
  const hooks = noHooks();
  const add = (event: EventName, table: ConfigHook) => {
    if (!isUnnamed(table.name))
      hooks[event].push(
        commandHookOf(
          { ...table, name: table.name ?? '', command: commandOfDialect(table.dialect, table.command) },
          'config',
        ),
      );
  };
  for (const event of EVENT_NAMES) for (const table of section[event] ?? []) add(event, table);
  // Imported tables run after the `[hooks]` ones of their event, in file order.
  for (const { event, ...table } of decoded.right.imported_hooks ?? []) add(event, table);
  return { enabled: section.enabled ?? true, hooks, errors: [], warnings };
};
