import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { byEvent, EVENT_NAMES, isEventName, type EventName } from '../events/names.js';
import { named } from '../events/codecs.js';
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../registry/define.js';
import { compileMatcher, type ToolMatcher } from '../registry/matcher.js';
import { unspawnableArgument, unspawnableEnvValue } from '../registry/spawnable.js';
import { DIALECTS } from '../registry/dialect.js';
import { MAX_STOP_LOOP_LIMIT } from '../protocol/stop-loop.js';

/*
 * The codecs below are the single source of the config-file, manifest and state-file types. Each
 * codec is named after what it expects ("an integer 1..600000"), because problems read
 * "expected <codec name>, got <value>".
 */

// ----- JSON Schema notes: what `configSchema()` (schema.ts) reads off the codecs

/** A JSON Schema fragment. */
export type JsonSchema = { readonly [key: string]: unknown };

/** How a codec is written as JSON Schema: its own fragment, the codec it renames, or its keys. */
export type SchemaNote =
  | { readonly kind: 'schema'; readonly schema: JsonSchema }
  | { readonly kind: 'renames'; readonly codec: t.Mixed }
  | {
      readonly kind: 'object';
      readonly required: t.Props;
      readonly optional: t.Props;
      readonly closed: boolean;
      /** Keys of which at least one must be present. */
      readonly oneOf?: readonly string[];
    };

const SCHEMA_NOTES = new WeakMap<t.Mixed, SchemaNote>();

/** The note `configSchema()` writes a codec from; `undefined` for io-ts's own structural codecs. */
export const schemaNoteOf = (codec: t.Mixed): SchemaNote | undefined => SCHEMA_NOTES.get(codec);

/** A custom codec with the JSON Schema of what it accepts, written beside its check. */
const withSchema = <C extends t.Mixed>(codec: C, schema: JsonSchema): C => {
  SCHEMA_NOTES.set(codec, { kind: 'schema', schema });
  return codec;
};

/** Same validation, clearer name in problems. */
const renamed = <A, O>(codec: t.Type<A, O, unknown>, name: string): t.Type<A, O, unknown> => {
  const result = named(codec, name);
  SCHEMA_NOTES.set(result, { kind: 'renames', codec });
  return result;
};

/** A TOML table or JSON object; smol-toml parses date-times into `Date`, which is not a table. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** A custom check's failure carrying its own sentence. */
const failWith = <A>(value: unknown, context: t.Context, message: string): t.Validation<A> =>
  t.failures([{ value, context, message }]);

export const AString = renamed(t.string, 'a string');
export const ABoolean = renamed(t.boolean, 'true or false');
export const AnObject = withSchema(named(t.UnknownRecord, 'an object'), { type: 'object' });

const NON_EMPTY_TEXT = { type: 'string', pattern: '\\S' } as const;

export const NonEmptyString = new t.Type<string, string, unknown>(
  'a non-empty string',
  (value): value is string => typeof value === 'string' && value.trim() !== '',
  (value, context) =>
    typeof value === 'string' && value.trim() !== '' ? t.success(value) : t.failure(value, context),
  t.identity,
);

withSchema(NonEmptyString, NON_EMPTY_TEXT);

/** A hook's command: non-empty, and text a process can be given (no NUL, under 128 KiB). */
export const CommandText = new t.Type<string, string, unknown>(
  'a non-empty string',
  (value): value is string => NonEmptyString.is(value) && unspawnableArgument(value) === undefined,
  (value, context) => {
    if (!NonEmptyString.is(value)) return t.failure(value, context);
    const problem = unspawnableArgument(value);
    return problem === undefined ? t.success(value) : failWith(value, context, problem);
  },
  t.identity,
);

withSchema(CommandText, {
  ...NON_EMPTY_TEXT,
  description: "run by /bin/sh -c in the event's cwd, the event as JSON on stdin",
});

export { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS };

/** Milliseconds (spec §2). `5000.0` in TOML is the number 5000 and is accepted as an integer. */
export const TimeoutMs = new t.Type<number, number, unknown>(
  `an integer ${MIN_TIMEOUT_MS}..${MAX_TIMEOUT_MS}`,
  (value): value is number =>
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_TIMEOUT_MS &&
    value <= MAX_TIMEOUT_MS,
  (value, context) =>
    typeof value === 'number' && Number.isInteger(value) && value >= MIN_TIMEOUT_MS && value <= MAX_TIMEOUT_MS
      ? t.success(value)
      : t.failure(value, context),
  t.identity,
);

withSchema(TimeoutMs, {
  type: 'integer',
  minimum: MIN_TIMEOUT_MS,
  maximum: MAX_TIMEOUT_MS,
  description: 'milliseconds; then the process group is killed',
});

/**
 * A tool-name matcher (spec §4.1), compiled once here: absent, `""` and `"*"` mean every tool and
 * decode to `undefined`; anything else must be a valid RE2 pattern (linear-time matching), because
 * a silent literal match would let a security hook miss the tools it was meant to guard.
 */
export const Matcher = new t.Type<ToolMatcher | undefined, string, unknown>(
  'a regular expression',
  (value): value is ToolMatcher | undefined =>
    value === undefined || (typeof value === 'object' && value !== null && 'matches' in value),
  (value, context) => {
    if (typeof value !== 'string') return t.failure(value, context);
    const compiled = compileMatcher(value);
    return compiled.ok ? t.success(compiled.value) : failWith(value, context, compiled.error);
  },
  (matcher) => matcher?.source ?? '',
);

withSchema(Matcher, {
  type: 'string',
  description: 'an RE2 pattern of tool names (tool events only); "" or "*" = every tool',
});

/** Whose hook protocol a hook speaks (docs/compat.md). */
export const DialectName = renamed(
  t.keyof({ cosh: null, claude: null, gemini: null }),
  DIALECTS.map((dialect) => JSON.stringify(dialect)).join(', '),
);

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Extra environment variables for a hook. A custom codec rather than `t.record`, which silently
 * drops keys that fail the key codec: a misspelt variable name must be reported, not lost.
 */
export const Env = new t.Type<Readonly<Record<string, string>>, Readonly<Record<string, string>>, unknown>(
  'a table of string values',
  (value): value is Record<string, string> =>
    isRecord(value) &&
    Object.entries(value).every(
      ([name, text]) =>
        ENV_NAME.test(name) && typeof text === 'string' && unspawnableEnvValue(name, text) === undefined,
    ),
  (value, context) => {
    if (!isRecord(value)) return t.failure(value, context);
    const errors: t.ValidationError[] = [];
    for (const [name, text] of Object.entries(value)) {
      const at = t.appendContext(context, name, AString, text);
      if (!ENV_NAME.test(name)) {
        errors.push({
          value: text,
          context: at,
          message: `invalid environment variable name ${JSON.stringify(name)} (expected [A-Za-z_][A-Za-z0-9_]*)`,
        });
      } else if (typeof text !== 'string') {
        errors.push({ value: text, context: at });
      } else {
        const problem = unspawnableEnvValue(name, text);
        if (problem !== undefined) errors.push({ value: text, context: at, message: problem });
      }
    }
    // fromEntries defines own properties, so even a `__proto__` variable stays an ordinary entry.
    return errors.length > 0
      ? t.failures(errors)
      : t.success(Object.fromEntries(Object.entries(value)) as Record<string, string>);
  },
  t.identity,
);

withSchema(Env, {
  type: 'object',
  propertyNames: { pattern: ENV_NAME.source },
  additionalProperties: { type: 'string' },
});

type ObjectOf<R extends t.Props, O extends t.Props> = t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>>;

interface ObjectShape<R extends t.Props, O extends t.Props> {
  readonly required?: R;
  readonly optional?: O;
  /** The problem for a key that is neither required nor optional; absent = such keys are ignored. */
  readonly unknownKey?: (key: string) => string;
  /** Optional keys of which at least one must be present: missing, the problem names the first. */
  readonly oneOf?: { readonly keys: readonly string[]; readonly message: string };
}

/**
 * An object codec that reports every problem of every key, in the document's key order, then the
 * missing required keys. Unlike `t.exact` it can reject unknown keys (config hook tables) instead of
 * stripping them; without `unknownKey` it ignores them (third-party manifests carry extra fields).
 * Optional keys that decode to `undefined` (an empty matcher) are left out of the result.
 */
export const object = <
  R extends t.Props = Record<never, t.Mixed>,
  O extends t.Props = Record<never, t.Mixed>,
>(
  name: string,
  shape: ObjectShape<R, O>,
): t.Type<ObjectOf<R, O>, unknown, unknown> => {
  const required: t.Props = shape.required ?? {};
  const optional: t.Props = shape.optional ?? {};
  const codecOf = (key: string): t.Mixed | undefined =>
    Object.hasOwn(required, key) ? required[key] : Object.hasOwn(optional, key) ? optional[key] : undefined;
  const codec = new t.Type<ObjectOf<R, O>, unknown, unknown>(
    name,
    (value): value is ObjectOf<R, O> =>
      isRecord(value) &&
      Object.entries(required).every(([key, codec]) => codec.is(value[key])) &&
      Object.entries(optional).every(([key, codec]) => value[key] === undefined || codec.is(value[key])),
    (value, context) => {
      if (!isRecord(value)) return t.failure(value, context);
      const errors: t.ValidationError[] = [];
      const decoded: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) {
        const codec = codecOf(key);
        if (codec === undefined) {
          if (shape.unknownKey !== undefined) {
            errors.push({
              value: field,
              context: t.appendContext(context, key, t.unknown, field),
              message: shape.unknownKey(key),
            });
          }
          continue;
        }
        const result = codec.validate(field, t.appendContext(context, key, codec, field));
        if (isLeft(result)) errors.push(...result.left);
        else if (result.right !== undefined) decoded[key] = result.right;
      }
      for (const [key, codec] of Object.entries(required)) {
        if (!Object.hasOwn(value, key))
          errors.push({ value: undefined, context: t.appendContext(context, key, codec, undefined) });
      }
      const oneOf = shape.oneOf;
      if (oneOf !== undefined && !oneOf.keys.some((key) => Object.hasOwn(value, key))) {
        const first = oneOf.keys[0]!;
        errors.push({
          value: undefined,
          context: t.appendContext(context, first, codecOf(first) ?? t.unknown, undefined),
          message: oneOf.message,
        });
      }
      return errors.length > 0 ? t.failures(errors) : t.success(decoded as ObjectOf<R, O>);
    },
    t.identity,
  );
  SCHEMA_NOTES.set(codec, {
    kind: 'object',
    required,
    optional,
    closed: shape.unknownKey !== undefined,
    ...(shape.oneOf !== undefined && { oneOf: shape.oneOf.keys }),
  });
  return codec;
};

/** The closest known key, ignoring case, `_` and `-`: turns `failClosed` into a hint for `fail_closed`. */
export const hint = (key: string, known: readonly string[]): string => {
  const squash = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
  const match = known.find((candidate) => squash(candidate) === squash(key));
  return match === undefined ? '' : `; did you mean ${match}?`;
};

// ----- config.toml (spec §2)

export const CONFIG_HOOK_KEYS = [
  'name',
  'command',
  'timeout',
  'matcher',
  'fail_closed',
  'persistent',
  'env',
  'description',
  'redact',
  'observe',
  'fail_open',
  'sequential',
  'dialect',
  'deny',
  'ask',
  'allow',
  'reason',
  'system_message',
] as const;

/** A rule hook's list: Claude Code permission rules (docs/configuration.md, Policy), checked when compiled. */
export const RuleList = withSchema(renamed(t.array(NonEmptyString), 'an array of permission rules'), {
  type: 'array',
  items: { ...NON_EMPTY_TEXT, description: 'Tool or Tool(specifier), e.g. "Bash(rm -rf:*)"' },
});

/** The keys of a rule hook, instead of `command` (docs/configuration.md, Policy). */
export const RULE_KEYS = ['deny', 'ask', 'allow'] as const;

/**
 * The optional keys of a hook table: one list for `[[hooks.<Event>]]` and `[[imported_hooks]]`.
 * A table has `command` or rules (`deny`/`ask`/`allow`): checked apart (config-file.ts), with
 * what belongs to each kind.
 */
const HOOK_TABLE_OPTIONAL = {
  command: CommandText,
  deny: RuleList,
  ask: RuleList,
  allow: RuleList,
  reason: AString,
  system_message: AString,
  name: AString,
  timeout: TimeoutMs,
  matcher: Matcher,
  fail_closed: ABoolean,
  persistent: ABoolean,
  env: Env,
  description: AString,
  redact: ABoolean,
  observe: ABoolean,
  // cosh-core's keys, accepted so its configs load unchanged: `fail_open` is the opposite of
  // `fail_closed`; `sequential` has no effect (hooks always run one after another here).
  fail_open: ABoolean,
  sequential: ABoolean,
  dialect: DialectName,
};

/** A hook table has `command` or rules: at least one (config-file.ts refuses both). */
const COMMAND_OR_RULES = {
  keys: ['command', 'deny', 'ask', 'allow'],
  message: 'missing required key (expected a non-empty string, or deny/ask/allow rules)',
};

/** One `[[hooks.<Event>]]` table. `name` is checked apart (config-file.ts), so that a blank one is caught too. */
export const ConfigHook = object('a hook table', {
  optional: HOOK_TABLE_OPTIONAL,
  oneOf: COMMAND_OR_RULES,
  unknownKey: (key) => `unknown key (expected ${CONFIG_HOOK_KEYS.join(', ')})${hint(key, CONFIG_HOOK_KEYS)}`,
});
export type ConfigHook = t.TypeOf<typeof ConfigHook>;

const hookTables = (event: EventName) =>
  renamed(t.array(ConfigHook), `an array of hook tables (write [[hooks.${event}]])`);

/** `events` of a `[[hooks.any]]` table: `"*"` (every event) or a non-empty list of event names. */
export const EventList = withSchema(
  new t.Type<readonly EventName[], unknown, unknown>(
    `"*" or an array of event names (${EVENT_NAMES.join(', ')})`,
    (value): value is readonly EventName[] =>
      Array.isArray(value) && value.length > 0 && value.every((name) => isEventName(name)),
    (value, context) => {
      if (value === '*') return t.success(EVENT_NAMES);
      if (!Array.isArray(value)) return t.failure(value, context);
      if (value.length === 0)
        return failWith(value, context, 'an empty list: name at least one event, or write "*" for all');
      const errors: t.ValidationError[] = [];
      const seen = new Set<string>();
      value.forEach((name: unknown, index) => {
        const at = t.appendContext(context, String(index), t.string, name);
        if (typeof name !== 'string' || !isEventName(name))
          errors.push({
            value: name,
            context: at,
            message: `unknown event name (expected one of ${EVENT_NAMES.join(', ')})${typeof name === 'string' ? hint(name, EVENT_NAMES) : ''}`,
          });
        else if (seen.has(name))
          errors.push({ value: name, context: at, message: `${name} is listed twice` });
        else seen.add(name);
      });
      return errors.length > 0 ? t.failures(errors) : t.success(value as EventName[]);
    },
    t.identity,
  ),
  {
    description: 'the events this hook runs on: "*" for every event, or a list of names',
    oneOf: [{ const: '*' }, { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true }],
  },
);

export const ANY_EVENT_HOOK_KEYS = ['events', ...CONFIG_HOOK_KEYS] as const;

/**
 * One `[[hooks.any]]` table: a hook table with `events`, for a hook (an observer, typically) on
 * several or all events. It runs after each listed event's own `[[hooks.<Event>]]` tables.
 */
export const AnyEventHook = object('a hook table', {
  required: { events: EventList },
  optional: HOOK_TABLE_OPTIONAL,
  oneOf: COMMAND_OR_RULES,
  unknownKey: (key) =>
    `unknown key (expected ${ANY_EVENT_HOOK_KEYS.join(', ')})${hint(key, ANY_EVENT_HOOK_KEYS)}`,
});
export type AnyEventHook = t.TypeOf<typeof AnyEventHook>;

/** `stop_loop_limit`: blocked Stop decisions in a row before the next block is let through (docs/configuration.md). */
export const StopLoopLimit = withSchema(
  new t.Type<number, number, unknown>(
    `an integer 1..${MAX_STOP_LOOP_LIMIT}`,
    (value): value is number =>
      typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_STOP_LOOP_LIMIT,
    (value, context) =>
      typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_STOP_LOOP_LIMIT
        ? t.success(value)
        : t.failure(value, context),
    t.identity,
  ),
  { type: 'integer', minimum: 1, maximum: MAX_STOP_LOOP_LIMIT },
);

/**
 * `project_env`: the `env` names a trusted project hook may set (docs/configuration.md, trust);
 * user and system config only. An allow-list: any other name a project sets untrusts its hook.
 */
export const ProjectEnv = withSchema(
  new t.Type<readonly string[], unknown, unknown>(
    'an array of environment variable names',
    (value): value is readonly string[] =>
      Array.isArray(value) && value.every((name) => typeof name === 'string' && ENV_NAME.test(name)),
    (value, context) => {
      if (!Array.isArray(value)) return t.failure(value, context);
      const errors: t.ValidationError[] = [];
      value.forEach((name: unknown, index) => {
        if (typeof name !== 'string' || !ENV_NAME.test(name))
          errors.push({
            value: name,
            context: t.appendContext(context, String(index), t.string, name),
            message: `invalid environment variable name ${JSON.stringify(name)} (expected [A-Za-z_][A-Za-z0-9_]*)`,
          });
      });
      return errors.length > 0 ? t.failures(errors) : t.success(value as readonly string[]);
    },
    t.identity,
  ),
  { type: 'array', items: { type: 'string', pattern: ENV_NAME.source } },
);

/** Keys of `[hooks]` that only the system config may set (docs/configuration.md, managed mode). */
export const MANAGED_KEYS = ['managed_only', 'project_hooks'] as const;

/**
 * Keys of `[hooks]` that are settings, not event names: `fail_closed` is the file's default,
 * `stop_loop_limit` the Stop-loop guard's cap, and the managed-mode keys.
 */
export const HOOKS_SETTINGS = [
  'enabled',
  'fail_closed',
  'stop_loop_limit',
  'project_env',
  ...MANAGED_KEYS,
] as const;

/** The key of `[[hooks.any]]` tables, beside the settings and the event names. */
export const ANY_EVENT_KEY = 'any';

/**
 * `[hooks]`: `enabled`, the file-wide `fail_closed` default, `stop_loop_limit`, the managed-mode
 * keys, and one array of hook tables per event name; any other key is an error.
 */
export const HooksSection = object('a table', {
  optional: {
    enabled: ABoolean,
    fail_closed: ABoolean,
    stop_loop_limit: StopLoopLimit,
    project_env: ProjectEnv,
    managed_only: ABoolean,
    project_hooks: ABoolean,
    ...byEvent(hookTables),
    [ANY_EVENT_KEY]: renamed(t.array(AnyEventHook), 'an array of hook tables (write [[hooks.any]])'),
  },
  unknownKey: (key) =>
    `unknown event name (expected ${HOOKS_SETTINGS.join(', ')}, ${ANY_EVENT_KEY} or one of ${EVENT_NAMES.join(', ')})${hint(key, [...HOOKS_SETTINGS, ANY_EVENT_KEY, ...EVENT_NAMES])}`,
});
export type HooksSection = t.TypeOf<typeof HooksSection>;

/** The event an `[[imported_hooks]]` table runs on: one of the eight names, exact case. */
export const EventNameText = renamed(t.keyof(byEvent(() => null)), `one of ${EVENT_NAMES.join(', ')}`);

export const IMPORTED_HOOK_KEYS = ['event', ...CONFIG_HOOK_KEYS] as const;

/**
 * One `[[imported_hooks]]` table, as `cosh-hooks import` prints it: a hook table with its `event`.
 * A top-level array of tables, so the printed text can be appended to any valid config
 * (docs/configuration.md).
 */
export const ImportedHook = object('a hook table', {
  required: { event: EventNameText },
  optional: HOOK_TABLE_OPTIONAL,
  oneOf: COMMAND_OR_RULES,
  unknownKey: (key) =>
    `unknown key (expected ${IMPORTED_HOOK_KEYS.join(', ')})${hint(key, IMPORTED_HOOK_KEYS)}`,
});
export type ImportedHook = t.TypeOf<typeof ImportedHook>;

/**
 * The whole file: `[hooks]`, and `[[imported_hooks]]` tables appended by `cosh-hooks import`;
 * other top-level tables belong to the rest of the shell's configuration.
 */
export const ConfigFile = object('a TOML document', {
  optional: {
    hooks: HooksSection,
    imported_hooks: renamed(t.array(ImportedHook), 'an array of hook tables (write [[imported_hooks]])'),
  },
});
export type ConfigFile = t.TypeOf<typeof ConfigFile>;

// ----- cosh-extension.json (spec §3). Only keys this module uses are known; others are ignored.

/** Keys a manifest hook entry may have; others are ignored with a warning (a misspelt `fail_closed` must not pass quietly). */
export const MANIFEST_HOOK_KEYS = [
  'type',
  'name',
  'command',
  'description',
  'timeout',
  'env',
  'fail_closed',
  'fail_open',
  'redact',
  'persistent',
  'dialect',
  'observe',
] as const;

/** Keys a manifest hook group may have; others are ignored with a warning. */
export const MANIFEST_GROUP_KEYS = ['matcher', 'sequential', 'hooks'] as const;

/** The warning for a key a manifest does not know: ignored, with the closest known key as a hint. */
export const unknownManifestKey = (key: string, known: readonly string[]): string =>
  `unknown key ignored (expected ${known.join(', ')})${hint(key, known)}`;

/** A hook entry of `"type": "command"`; entries of other types are skipped before this codec runs. */
export const ManifestCommandHook = object('an object', {
  required: { command: CommandText },
  optional: {
    type: t.literal('command'),
    name: AString,
    description: AString,
    timeout: TimeoutMs,
    env: Env,
    fail_closed: ABoolean,
    fail_open: ABoolean,
    redact: ABoolean,
    persistent: ABoolean,
    observe: ABoolean,
    dialect: DialectName,
  },
});
export type ManifestCommandHook = t.TypeOf<typeof ManifestCommandHook>;

/** `{ matcher, sequential, hooks: [...] }`; entries are checked one by one, by their `type`. */
export const ManifestGroup = object('an object', {
  optional: {
    matcher: Matcher,
    sequential: ABoolean,
    hooks: named(t.array(AnObject), 'an array of hook objects'),
  },
});
export type ManifestGroup = t.TypeOf<typeof ManifestGroup>;

export const ManifestGroups = named(t.array(ManifestGroup), 'an array of hook groups');

/** `hooks` is read event by event, so an event this engine does not know is a warning, not an error. */
export const Manifest = object('an object', {
  required: { name: NonEmptyString },
  optional: {
    version: AString,
    hooks: named(t.UnknownRecord, 'an object keyed by event name'),
    dialect: DialectName,
    fail_closed: ABoolean,
  },
});
export type Manifest = t.TypeOf<typeof Manifest>;

// ----- states/extensions.json and states/hooks.json

export const StateFile = object('an object', {
  optional: { disabled: named(t.array(AString), 'an array of names') },
});
export type StateFile = t.TypeOf<typeof StateFile>;
