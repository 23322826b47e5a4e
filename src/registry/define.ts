import type { EventName } from '../events/names.js';
import { registryOf } from './chain.js';
import { compileMatcher, compileRegExpMatcher, type ToolMatcher } from './matcher.js';
import {
  DEFAULT_TIMEOUT_MS,
  type CommandHook,
  type Hook,
  type HookBase,
  type HookFunction,
  type Registry,
} from './hook.js';

/** How a library user declares an in-process or command hook. */
export type HookDefinition = {
  readonly name: string;
  readonly timeout?: number;
  readonly matcher?: string | RegExp;
  readonly fail_closed?: boolean;
  readonly description?: string;
  readonly enabled?: boolean;
} & (
  | { readonly run: HookFunction }
  | { readonly command: string; readonly env?: Readonly<Record<string, string>> }
);

export type HookDefinitions = Partial<Record<EventName, readonly HookDefinition[]>>;

export { matchesEveryTool } from './matcher.js';

/** The declared fields every hook source shares (config table, manifest entry, code), matcher compiled. */
interface HookFields {
  readonly name: string;
  readonly timeout?: number | undefined;
  readonly matcher?: ToolMatcher | undefined;
  readonly fail_closed?: boolean | undefined;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
}

/** Defaults are filled here, once for every source: timeout 5000 ms, not fail_closed, enabled. */
const hookBaseOf = (fields: HookFields, source: string): HookBase => ({
  name: fields.name,
  source,
  timeoutMs: fields.timeout ?? DEFAULT_TIMEOUT_MS,
  failClosed: fields.fail_closed ?? false,
  enabled: fields.enabled ?? true,
  ...(fields.matcher !== undefined && { matcher: fields.matcher }),
  ...(fields.description !== undefined && { description: fields.description }),
});

/** A resolved command hook from its declared fields (used by config, extensions and `defineHooks`). */
export const commandHookOf = (
  fields: HookFields & {
    readonly command: string;
    readonly env?: Readonly<Record<string, string>> | undefined;
    readonly extensionPath?: string | undefined;
  },
  source: string,
): CommandHook => ({
  kind: 'command',
  ...hookBaseOf(fields, source),
  command: fields.command,
  env: fields.env ?? {},
  ...(fields.extensionPath !== undefined && { extensionPath: fields.extensionPath }),
});

/** The definition's matcher compiled as RE2 (SPEC §4.1); a pattern RE2 refuses throws, naming the hook. */
const toMatcher = (definition: HookDefinition, where: string): ToolMatcher | undefined => {
  const { matcher } = definition;
  if (matcher === undefined) return undefined;
  const compiled = typeof matcher === 'string' ? compileMatcher(matcher) : compileRegExpMatcher(matcher);
  if (compiled.ok) return compiled.matcher;
  throw new TypeError(`${where} (hook "${definition.name}"): matcher: ${compiled.message}`);
};

const toHook = (definition: HookDefinition, source: string, where: string): Hook => {
  const fields = { ...definition, matcher: toMatcher(definition, where) };
  return 'run' in definition
    ? { kind: 'function', ...hookBaseOf(fields, source), run: definition.run }
    : commandHookOf({ ...fields, command: definition.command }, source);
};

/**
 * Builds a registry from plain definitions, for hosts that register hooks in code. Function hooks
 * get the source `inline`. A matcher is RE2 syntax (SPEC §4.1): a string, or a RegExp whose
 * source and `i`/`m`/`s` flags are compiled as RE2 (the RegExp itself never runs). One that RE2
 * refuses (invalid, or needing backtracking) throws a TypeError here, at definition time, never
 * later in the stream.
 */
export const defineHooks = (definitions: HookDefinitions, source = 'inline'): Registry =>
  registryOf((name) =>
    (definitions[name] ?? []).map((definition, i) => toHook(definition, source, `${name}[${i}]`)),
  );
