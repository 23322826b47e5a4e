import type { Dialect } from '../dialects/dialect.js';
import type { EventName } from '../events/names.js';
import { registryOf } from './chain.js';
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
  /** `claude` or `gemini`: the hook is written for that agent and runs unchanged (docs/compat.md). */
  readonly dialect?: Dialect;
} & (
  | { readonly run: HookFunction }
  | { readonly command: string; readonly env?: Readonly<Record<string, string>> }
);

export type HookDefinitions = Partial<Record<EventName, readonly HookDefinition[]>>;

/** `""` and `"*"` match every tool (SPEC §4.1): the same as no matcher at all. */
export const matchesEveryTool = (matcher: string): boolean => matcher === '' || matcher === '*';

/** The declared fields every hook source shares (config table, manifest entry, code), matcher compiled. */
interface HookFields {
  readonly name: string;
  readonly timeout?: number | undefined;
  readonly matcher?: RegExp | undefined;
  readonly fail_closed?: boolean | undefined;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly dialect?: Dialect | undefined;
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
  ...(fields.dialect !== undefined && fields.dialect !== 'cosh' && { dialect: fields.dialect }),
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

const toMatcher = (matcher: string | RegExp | undefined): RegExp | undefined => {
  if (matcher === undefined || (typeof matcher === 'string' && matchesEveryTool(matcher))) return undefined;
  return typeof matcher === 'string' ? new RegExp(matcher) : matcher;
};

const toHook = (definition: HookDefinition, source: string): Hook => {
  const fields = { ...definition, matcher: toMatcher(definition.matcher) };
  return 'run' in definition
    ? { kind: 'function', ...hookBaseOf(fields, source), run: definition.run }
    : commandHookOf({ ...fields, command: definition.command }, source);
};

/**
 * Builds a registry from plain definitions, for hosts that register hooks in code. Function hooks
 * get the source `inline`. A string matcher that is not a valid regular expression throws here, at
 * definition time, never later in the stream.
 */
export const defineHooks = (definitions: HookDefinitions, source = 'inline'): Registry =>
  registryOf((name) => (definitions[name] ?? []).map((definition) => toHook(definition, source)));
