import { isLeft } from 'fp-ts/lib/Either.js';
import { parse, TomlError } from 'smol-toml';
import { byEvent, EVENT_NAMES, MATCHED_EVENTS, isEventName, type EventName } from '../events/names.js';
import { commandOfDialect } from './substitute.js';
import { commandHookOf, matchesEveryTool, ruleHookOf, ruleHookProblems } from '../registry/define.js';
import type { CommandHook, ConfiguredHook } from '../registry/hook.js';
import { ANY_EVENT_KEY, ConfigFile, isRecord, RULE_KEYS, type ConfigHook } from './codecs.js';
import { problemLocator, tomlLocations } from './locate.js';
import { shortTimeout } from './timeout-unit.js';
import type { HooksSettings } from './project-settings.js';
import {
  failModeConflict,
  formatPath,
  ignoredMatcher,
  issuesOf,
  skippedUnnamedHook,
  type ConfigProblem,
  type Issue,
  type Segment,
} from './problems.js';

/** Hooks of the config file per event, in file order; all enabled until state is applied. */
export type HooksByEvent = Readonly<Record<EventName, readonly CommandHook[]>>;

/** Hooks of a config file per event: commands and rule hooks (docs/configuration.md, Policy). */
export type ConfiguredByEvent = Readonly<Record<EventName, readonly ConfiguredHook[]>>;

export interface ConfigFileResult {
  /** `[hooks] enabled`; absent = true. */
  readonly enabled: boolean;
  /** `[hooks] stop_loop_limit`, when the file sets it. */
  readonly stopLoopLimit?: number;
  readonly hooks: ConfiguredByEvent;
  /**
   * What layering needs (docs/configuration.md, layers): whether `enabled` was written, the events
   * the file defines (an empty list counts), the managed-mode keys, and for each hook the index of
   * its table in the file.
   */
  readonly layering?: {
    readonly enabledSet: boolean;
    readonly definedEvents: readonly EventName[];
    readonly managedOnly?: boolean;
    readonly projectHooks?: boolean;
    /** `[hooks] project_env`: the env names this (user or system) layer lets a project hook set. */
    readonly projectEnv?: readonly string[];
    readonly tableIndex: Readonly<Record<EventName, readonly number[]>>;
    /** The settings `[hooks]` writes: a project layer's are held to trust (project-settings.ts). */
    readonly settings: HooksSettings;
  };
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

export const noHooks = (): Record<EventName, CommandHook[]> => byEvent((): CommandHook[] => []);

/** A missing, empty or blank `name`: the hook is skipped, with a warning (the seed's rule 5). */
export const isUnnamed = (name: unknown): boolean =>
  name === undefined || (typeof name === 'string' && name.trim() === '');

const syntaxProblem = (error: TomlError, file: string): ConfigProblem => {
  const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  return { file, line: error.line, message: `invalid TOML (column ${error.column}): ${reason}` };
};

/** The events a `[[hooks.any]]` table names, as far as they can be read before decoding. */
const listedEvents = (events: unknown): EventName[] =>
  events === '*' ? [...EVENT_NAMES] : Array.isArray(events) ? events.filter(isEventName) : [];

/**
 * Every hook table of the document with its events and path: `[hooks]` ones, `[[hooks.any]]`,
 * then `[[imported_hooks]]`.
 */
const hookTablesOf = (
  document: Record<string, unknown>,
): {
  readonly events: readonly EventName[];
  readonly table: Record<string, unknown>;
  readonly at: Segment[];
}[] => {
  const found: { events: EventName[]; table: Record<string, unknown>; at: Segment[] }[] = [];
  const section = document.hooks;
  if (isRecord(section)) {
    for (const [key, tables] of Object.entries(section)) {
      if (!Array.isArray(tables)) continue;
      if (isEventName(key))
        tables.forEach((table: unknown, index) => {
          if (isRecord(table)) found.push({ events: [key], table, at: ['hooks', key, index] });
        });
      else if (key === ANY_EVENT_KEY)
        tables.forEach((table: unknown, index) => {
          if (isRecord(table))
            found.push({ events: listedEvents(table.events), table, at: ['hooks', key, index] });
        });
    }
  }
  const imported = document.imported_hooks;
  if (Array.isArray(imported)) {
    imported.forEach((table: unknown, index) => {
      if (isRecord(table) && isEventName(table.event))
        found.push({ events: [table.event], table, at: ['imported_hooks', index] });
    });
  }
  return found;
};

/**
 * Warnings that do not depend on the file being valid, so they are reported together with its
 * errors: matchers on events that have no matched field (ignored; for a table on several events,
 * only when none of them has one), timeouts under 100 ms.
 */
const warningIssues = (document: Record<string, unknown>): Issue[] => {
  const section = isRecord(document.hooks) ? document.hooks : {};
  return hookTablesOf(document).flatMap(({ events, table, at }) => {
    const matcher = table.matcher;
    const first = events[0];
    return [
      ...(isUnnamed(table.name)
        ? [skippedUnnamedHook([...at, 'name'], table.name, failsClosed(table, section.fail_closed))]
        : []),
      ...(typeof matcher === 'string' &&
      !matchesEveryTool(matcher) &&
      first !== undefined &&
      !events.some((event) => MATCHED_EVENTS.includes(event))
        ? [ignoredMatcher(first, [...at, 'matcher'])]
        : []),
      ...shortTimeout(table.timeout, at, 'toml'),
    ];
  });
};

/** A table's fail_closed as the hook gets it: its own `fail_closed` or `fail_open`, else the file's default. */
const failsClosed = (table: Record<string, unknown>, fileDefault: unknown): boolean => {
  if (typeof table.fail_closed === 'boolean') return table.fail_closed;
  if (typeof table.fail_open === 'boolean') return !table.fail_open;
  return fileDefault === true;
};

/** Why a nameless table is not run: kept in the chain, disabled, so `list` shows it in its place. */
const SKIPPED_UNNAMED = "hook has no name (the seed's rule 5: a definition without a name is skipped)";

/**
 * Errors the codec does not see: hook tables that set `fail_closed` and `fail_open` to opposite
 * meanings. A hook without a name is not an error: it is skipped, loudly (a warning with its
 * file:line, a mark in `list`, an audit record), and the rest of the file runs
 * (docs/configuration.md).
 */
const tableErrors = (document: Record<string, unknown>): Issue[] =>
  hookTablesOf(document).flatMap(({ events, table, at }) => [
    ...failModeConflict(table, at),
    ...kindProblems(events, table, at),
  ]);

/** Keys a rule hook has no use for: it runs no process and always decides. */
const COMMAND_ONLY_KEYS = ['persistent', 'env', 'dialect', 'observe', 'redact'] as const;

/**
 * A hook table has `command` or rules (`deny`/`ask`/`allow`), not both (the codec requires one);
 * a rule table has none of a process's keys, and sits on tool events only (docs/configuration.md,
 * Policy).
 */
const kindProblems = (
  events: readonly EventName[],
  table: Record<string, unknown>,
  at: Segment[],
): Issue[] => {
  const rules = RULE_KEYS.filter((key) => table[key] !== undefined);
  if (rules.length === 0) return [];
  if (table.command !== undefined)
    return [
      {
        path: [...at, 'command'],
        message: `a hook table has command or rules (${rules.join(', ')}), not both`,
      },
    ];
  return [
    ...COMMAND_ONLY_KEYS.filter(
      (key) => table[key] !== undefined && key !== 'dialect' && key !== 'observe',
    ).map((key): Issue => ({
      path: [...at, key],
      message: `a rule hook runs no process: ${key} has no use`,
    })),
    ...[...new Set(events.flatMap((event) => ruleHookProblems(event, table)))].map((message): Issue => ({
      path: [
        ...at,
        message.startsWith('rule hooks')
          ? RULE_KEYS.find((key) => rules.includes(key))!
          : message.split(':')[0]!,
      ],
      message,
    })),
  ];
};

/**
 * Validates the text of a config file (spec §2) and resolves its hooks. Pure: `file` only names
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
  const conflicts = tableErrors(document);
  if (isLeft(decoded) || conflicts.length > 0) {
    const issues = isLeft(decoded) ? issuesOf(decoded.left, [], 'toml') : [];
    return { ...empty, errors: [...issues, ...conflicts].map(locate), warnings };
  }
  const section = decoded.right.hooks ?? {};
  const hooks = byEvent((): ConfiguredHook[] => []);
  const tableIndex = byEvent((): number[] => []);
  const ruleErrors: ConfigProblem[] = [];
  const add = (event: EventName, table: ConfigHook, at: Segment[]) => {
    const { line } = locate({ path: at, message: '' });
    // `[hooks] fail_closed` is the file's default: a hook's own fail_closed or fail_open wins.
    const failClosed =
      table.fail_closed === undefined && table.fail_open === undefined
        ? section.fail_closed
        : table.fail_closed;
    const fields = {
      ...table,
      ...(failClosed !== undefined && { fail_closed: failClosed }),
      name: isUnnamed(table.name) ? '' : (table.name ?? ''),
      origin: { file, ...(line !== undefined && { line }), path: formatPath(at) },
    };
    if (table.command === undefined) {
      const { system_message: systemMessage, ...rest } = fields;
      const rule = ruleHookOf({ ...rest, ...(systemMessage !== undefined && { systemMessage }) }, 'config');
      if ('problems' in rule)
        ruleErrors.push(
          ...rule.problems.map((message) => locate({ path: [...at, message.split(':')[0]!], message })),
        );
      // A rule hook without a name is never run: it has no place in the chain to be named by.
      else if (!isUnnamed(table.name)) hooks[event].push(rule.hook);
      return;
    }
    const hook = commandHookOf(
      { ...fields, command: commandOfDialect(table.dialect, table.command) },
      'config',
    );
    hooks[event].push(isUnnamed(table.name) ? { ...hook, enabled: false, skipped: SKIPPED_UNNAMED } : hook);
  };
  for (const event of EVENT_NAMES)
    (section[event] ?? []).forEach((table, index) => {
      tableIndex[event].push(index);
      add(event, table, ['hooks', event, index]);
    });
  // `[[hooks.any]]` tables run after each event's own tables, in file order; imported ones last.
  (section[ANY_EVENT_KEY] ?? []).forEach(({ events, ...table }, index) => {
    for (const event of events) add(event, table, ['hooks', ANY_EVENT_KEY, index]);
  });
  (decoded.right.imported_hooks ?? []).forEach(({ event, ...table }, index) =>
    add(event, table, ['imported_hooks', index]),
  );
  if (ruleErrors.length > 0) return { ...empty, errors: ruleErrors, warnings };
  const layering = {
    enabledSet: section.enabled !== undefined,
    definedEvents: EVENT_NAMES.filter((event) => section[event] !== undefined),
    ...(section.managed_only !== undefined && { managedOnly: section.managed_only }),
    ...(section.project_hooks !== undefined && { projectHooks: section.project_hooks }),
    ...(section.project_env !== undefined && { projectEnv: section.project_env }),
    tableIndex,
    settings: {
      ...(section.enabled !== undefined && { enabled: section.enabled }),
      ...(section.fail_closed !== undefined && { fail_closed: section.fail_closed }),
      ...(section.stop_loop_limit !== undefined && { stop_loop_limit: section.stop_loop_limit }),
    },
  };
  return {
    enabled: section.enabled ?? true,
    ...(section.stop_loop_limit !== undefined && { stopLoopLimit: section.stop_loop_limit }),
    hooks,
    errors: [],
    warnings,
    layering,
  };
};
