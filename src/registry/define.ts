import { homedir } from 'node:os';
import type { Dialect } from './dialect.js';
import { TOOL_EVENTS, type EventName } from '../events/names.js';
import { compileRules, type RuleLists } from './permission-rules.js';
import { registryOf } from './chain.js';
import { compileMatcher, compileRegExpMatcher, type ToolMatcher } from './matcher.js';
import { unspawnableArgument, unspawnableEnvValue } from './spawnable.js';
import {
  DEFAULT_TIMEOUT_MS,
  type CommandHook,
  type Hook,
  type HookBase,
  type HookFunction,
  type HookOrigin,
  type Registry,
  type RuleHook,
} from './hook.js';

/** How a library user declares an in-process or command hook. */
export type HookDefinition = {
  readonly name: string;
  readonly timeout?: number;
  readonly matcher?: string | RegExp;
  readonly fail_closed?: boolean;
  /** Default false: `true` gives the hook a copy of the event with its secrets redacted (docs/protocol.md). */
  readonly redact?: boolean;
  readonly description?: string;
  readonly enabled?: boolean;
  /** `claude` or `gemini`: the hook is written for that agent and runs unchanged (docs/compat.md). */
  readonly dialect?: Dialect;
  /** An observer: runs after the decision is out, with it, and changes nothing (docs/audit.md). Default false. */
  readonly observe?: boolean;
} & (
  | { readonly run: HookFunction }
  | {
      readonly command: string;
      readonly env?: Readonly<Record<string, string>>;
      /** One long-running process answers every event (spec §8). Default false. */
      readonly persistent?: boolean;
    }
  | RuleDefinition
);

/**
 * A rule hook (docs/configuration.md, Policy): Claude Code permission rules, decided in process on
 * tool events; deny, then ask, then allow.
 */
export interface RuleDefinition extends RuleLists {
  /** The answer's reason; absent = one naming the rule that matched. */
  readonly reason?: string;
  readonly systemMessage?: string;
}

/** Hook definitions per event name, in chain order: the argument of `defineHooks`. */
export type HookDefinitions = Partial<Record<EventName, readonly HookDefinition[]>>;

/** A hook's timeout bounds in milliseconds (spec §2), for every source: config, manifest, code. */
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 600_000;

const isTimeoutMs = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= MIN_TIMEOUT_MS && value <= MAX_TIMEOUT_MS;

/** A value as an error message shows it: strings quoted, so `"5000"` is not mistaken for 5000. */
const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/**
 * Thrown by `defineHooks` for definitions the config loader would reject too: `problems` lists
 * every one (event, position, hook, field), and the message is those lines.
 */
export class HookDefinitionError extends Error {
  override readonly name = 'HookDefinitionError';
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(list.join('\n'));
    this.problems = list;
  }
}

export { matchesEveryTool } from './matcher.js';

/** The declared fields every hook source shares (config table, manifest entry, code), matcher compiled. */
interface HookFields {
  readonly name: string;
  readonly timeout?: number | undefined;
  readonly matcher?: ToolMatcher | undefined;
  readonly fail_closed?: boolean | undefined;
  /** `fail_open` as written in cosh-core configs: the opposite of `fail_closed`. */
  readonly fail_open?: boolean | undefined;
  readonly redact?: boolean | undefined;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly dialect?: Dialect | undefined;
  readonly observe?: boolean | undefined;
}

/**
 * Defaults are filled here, once for every source: timeout 5000 ms, not fail_closed, enabled, and
 * not redacted: a hook judges the event as the host sent it (docs/protocol.md).
 */
const hookBaseOf = (fields: HookFields, source: string): HookBase => ({
  name: fields.name,
  source,
  timeoutMs: fields.timeout ?? DEFAULT_TIMEOUT_MS,
  failClosed: fields.fail_closed ?? (fields.fail_open === undefined ? false : !fields.fail_open),
  redact: fields.redact ?? false,
  enabled: fields.enabled ?? true,
  ...(fields.matcher !== undefined && { matcher: fields.matcher }),
  ...(fields.description !== undefined && { description: fields.description }),
  ...(fields.dialect !== undefined && fields.dialect !== 'cosh' && { dialect: fields.dialect }),
  ...(fields.observe === true && { observe: true }),
});

/** A resolved command hook from its declared fields (used by config, extensions and `defineHooks`). */
export const commandHookOf = (
  fields: HookFields & {
    readonly command: string;
    readonly env?: Readonly<Record<string, string>> | undefined;
    readonly persistent?: boolean | undefined;
    readonly extensionPath?: string | undefined;
    readonly workspacePath?: string | undefined;
    readonly origin?: HookOrigin | undefined;
  },
  source: string,
): CommandHook => ({
  kind: 'command',
  ...hookBaseOf(fields, source),
  command: fields.command,
  env: fields.env ?? {},
  persistent: fields.persistent ?? false,
  ...(fields.extensionPath !== undefined && { extensionPath: fields.extensionPath }),
  ...(fields.workspacePath !== undefined && { workspacePath: fields.workspacePath }),
  ...(fields.origin !== undefined && { origin: fields.origin }),
});

/** Why a rule hook cannot be on `event`, or carry `dialect` / `observe`; undefined when it can. */
export const ruleHookProblems = (
  event: EventName,
  fields: { readonly dialect?: unknown; readonly observe?: unknown },
): string[] => [
  ...(TOOL_EVENTS.includes(event)
    ? []
    : [`rule hooks judge tool calls: they run on ${TOOL_EVENTS.join(', ')}, not ${event}`]),
  ...(fields.dialect !== undefined && fields.dialect !== 'cosh'
    ? ['dialect: a rule hook has no dialect']
    : []),
  ...(fields.observe === true ? ['observe: a rule hook decides; it cannot be an observer'] : []),
];

/** A resolved rule hook from its declared fields, its rules compiled; or the problems of its rules. */
export const ruleHookOf = (
  fields: HookFields &
    RuleDefinition & {
      readonly origin?: HookOrigin | undefined;
      readonly systemMessage?: string | undefined;
    },
  source: string,
  home: string = homedir(),
): { readonly hook: RuleHook } | { readonly problems: readonly string[] } => {
  const rules = compileRules(fields, home);
  if (!rules.ok) return { problems: rules.error };
  return {
    hook: {
      kind: 'rule',
      ...hookBaseOf(fields, source),
      rules: rules.value,
      ...(fields.reason !== undefined && { reason: fields.reason }),
      ...(fields.systemMessage !== undefined && { systemMessage: fields.systemMessage }),
      ...(fields.origin !== undefined && { origin: fields.origin }),
    },
  };
};

/** The definition's matcher compiled as RE2 (spec §4.1); a pattern RE2 refuses is a problem naming the hook. */
const toMatcher = (
  definition: HookDefinition,
  where: string,
  problems: string[],
): ToolMatcher | undefined => {
  const { matcher } = definition;
  if (matcher === undefined) return undefined;
  const compiled = typeof matcher === 'string' ? compileMatcher(matcher) : compileRegExpMatcher(matcher);
  if (compiled.ok) return compiled.value;
  problems.push(`${where} (hook "${definition.name}"): matcher: ${compiled.error}`);
  return undefined;
};

/** The hook of one definition; what is wrong with it goes to `problems`. */
const toHook = (
  event: EventName,
  definition: HookDefinition,
  source: string,
  where: string,
  problems: string[],
): Hook => {
  // The timer would take 2^31 as 1 ms, NaN as 0 and a negative as "now": rejected as the config is.
  if (definition.timeout !== undefined && !isTimeoutMs(definition.timeout)) {
    problems.push(
      `${where} (hook "${definition.name}"): timeout: expected an integer ${MIN_TIMEOUT_MS}..${MAX_TIMEOUT_MS} (milliseconds), got ${shown(definition.timeout)}`,
    );
  }
  if ('command' in definition) {
    // As the config loader does: a command or variable no process can be given would never start.
    const unspawnable: [string, string | undefined][] = [
      ['command', unspawnableArgument(definition.command)],
      ...Object.entries(definition.env ?? {}).map(([name, value]): [string, string | undefined] => [
        `env.${name}`,
        unspawnableEnvValue(name, value),
      ]),
    ];
    for (const [field, problem] of unspawnable)
      if (problem !== undefined) problems.push(`${where} (hook "${definition.name}"): ${field}: ${problem}`);
  }
  const fields = { ...definition, matcher: toMatcher(definition, where, problems) };
  if ('run' in definition) return { kind: 'function', ...hookBaseOf(fields, source), run: definition.run };
  if ('command' in definition) return commandHookOf({ ...fields, command: definition.command }, source);
  const rule = ruleHookOf(fields, source);
  const ruleProblems = [...ruleHookProblems(event, definition), ...('problems' in rule ? rule.problems : [])];
  for (const problem of ruleProblems) problems.push(`${where} (hook "${definition.name}"): ${problem}`);
  return 'hook' in rule
    ? rule.hook
    : { kind: 'function', ...hookBaseOf(fields, source), run: () => undefined, enabled: false };
};

/**
 * Builds a registry from plain definitions, for hosts that register hooks in code. Function hooks
 * get the source `inline`. A matcher is RE2 syntax (spec §4.1): a string, or a RegExp whose
 * source and `i`/`m`/`s` flags are compiled as RE2 (the RegExp itself never runs). One that RE2
 * refuses (invalid, or needing backtracking) throws here, at definition time, never later in the
 * stream; so does a timeout that is not an integer 1..600000. One `HookDefinitionError` lists
 * every such problem, each naming the event, position, hook and field.
 */
export const defineHooks = (definitions: HookDefinitions, source = 'inline'): Registry => {
  const problems: string[] = [];
  const registry = registryOf((name) =>
    (definitions[name] ?? []).map((definition, i) =>
      toHook(name, definition, source, `${name}[${i}]`, problems),
    ),
  );
  if (problems.length > 0) throw new HookDefinitionError(problems);
  return registry;
};
