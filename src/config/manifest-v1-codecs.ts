import * as t from 'io-ts';
import { named } from '../events/codecs.js';
import { ABoolean, AString, CommandText, Env, hint, isRecord, Matcher, object } from './codecs.js';
import { parseVersion } from './semver.js';

/*
 * The codecs of a cosh-core `schemaVersion: 1` manifest (cosh-core `extension/manifest/v1.rs`,
 * serde `deny_unknown_fields`): every object is strict, so a key it does not know is an error,
 * where a legacy manifest ignores it with a warning. Each codec is named after what it expects,
 * and each check says what it wants (docs/extensions.md, "schemaVersion 1 manifests").
 */

/** The events a schemaVersion 1 manifest may hook: cosh-core's eight, exact case. */
export const V1_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'Stop',
  'BeforeModel',
  'AfterModel',
] as const;
export type V1Event = (typeof V1_EVENTS)[number];

/** The bounds of a hook's `timeout` in a schemaVersion 1 manifest, in seconds (cosh-core: 1..=300). */
export const V1_TIMEOUT_MIN_S = 1;
export const V1_TIMEOUT_MAX_S = 300;

/** The most UTF-8 bytes of a description (cosh-core: 1024) and of an identity (64). */
const MAX_DESCRIPTION_BYTES = 1024;
const MAX_ID_BYTES = 64;

const failWith = <A>(value: unknown, context: t.Context, message: string): t.Validation<A> =>
  t.failures([{ value, context, message }]);

/** A string codec that refuses what `problem` names (a sentence), or accepts. */
const checkedString = (name: string, problem: (text: string) => string | undefined) =>
  new t.Type<string, string, unknown>(
    name,
    (value): value is string => typeof value === 'string' && problem(value) === undefined,
    (value, context) => {
      if (typeof value !== 'string') return t.failure(value, context);
      const found = problem(value);
      return found === undefined ? t.success(value) : failWith(value, context, found);
    },
    t.identity,
  );

/** serde's `Option`: `null` is the same as an absent key. */
const orNull = <A, O>(codec: t.Type<A, O, unknown>) =>
  new t.Type<A | undefined, O | undefined, unknown>(
    codec.name,
    (value): value is A | undefined => value === undefined || value === null || codec.is(value),
    (value, context) =>
      value === null || value === undefined ? t.success(undefined) : codec.validate(value, context),
    (value) => (value === undefined ? undefined : codec.encode(value)),
  );

/**
 * A canonical identity (cosh-core `validate_dotted_id`): 1..64 bytes of lowercase ASCII letters,
 * digits, `.`, `_` and `-`, starting and ending with a letter or digit.
 */
const dottedIdProblem =
  (what: string) =>
  (text: string): string | undefined => {
    if (text === '') return `expected a non-empty ${what}`;
    if (Buffer.byteLength(text, 'utf8') > MAX_ID_BYTES) return `${what} longer than ${MAX_ID_BYTES} bytes`;
    if (/[A-Z]/.test(text)) return `${what} ${JSON.stringify(text)} must be lowercase ASCII`;
    return /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/.test(text)
      ? undefined
      : `invalid ${what} ${JSON.stringify(text)} (expected lowercase letters, digits, ".", "_" or "-", starting and ending with a letter or digit)`;
  };

export const PackageName = checkedString('an extension name', dottedIdProblem('extension name'));
export const LocalId = (what: string) => checkedString(`a ${what}`, dottedIdProblem(what));

const SemVerText = checkedString('a SemVer version', (text) =>
  parseVersion(text) === undefined
    ? `expected a SemVer version (like "1.2.3"), got ${JSON.stringify(text)}`
    : undefined,
);

const Description = checkedString('a string', (text) =>
  Buffer.byteLength(text, 'utf8') > MAX_DESCRIPTION_BYTES
    ? `description longer than ${MAX_DESCRIPTION_BYTES} UTF-8 bytes`
    : undefined,
);

/**
 * A path inside the extension folder, relative (cosh-core `validate_relative_package_path`): not
 * empty, not absolute, no `\` or NUL, and no `.` or `..` step.
 */
export const relativePathProblem = (path: string): string | undefined => {
  const steps = path.split('/').filter((step, index) => step !== '' && !(step === '.' && index > 0));
  return path === '' ||
    /[\\\0]/.test(path) ||
    path.startsWith('/') ||
    steps.some((step) => step === '..' || step === '.')
    ? `expected a path inside the extension folder (relative, without "." or ".." steps), got ${JSON.stringify(path)}`
    : undefined;
};

const RelativePath = checkedString('a relative path', relativePathProblem);

const MARKER = '${extensionPath}';
const SUBSTITUTED = ['${workspacePath}', '${/}'];

/**
 * The `${…}` variables of a command or an MCP argument (cosh-core
 * `validate_extension_path_references`): `${extensionPath}`, which ends the value or is followed
 * by `/` and a path inside the extension folder, and in hook commands also `${workspacePath}` and
 * `${/}`. Any other `${…}` is an error: cosh-core substitutes nothing else, and a shell would.
 */
const variablesProblem = (value: string, workspace: boolean): string | undefined => {
  let rest = value;
  for (let index = rest.indexOf('${'); index >= 0; index = rest.indexOf('${')) {
    const at = rest.slice(index);
    const allowed = workspace ? SUBSTITUTED.find((name) => at.startsWith(name)) : undefined;
    if (allowed !== undefined) {
      rest = at.slice(allowed.length);
      continue;
    }
    if (!at.startsWith(MARKER)) {
      const shown = /^\$\{[^}]{0,40}\}?/.exec(at)?.[0] ?? '${';
      return workspace
        ? `only \${extensionPath}, \${workspacePath} and \${/} are substituted in a schemaVersion 1 command (got ${shown}; write $NAME for a shell variable)`
        : `only \${extensionPath} is substituted here (got ${shown})`;
    }
    const suffix = at.slice(MARKER.length);
    if (suffix !== '' && !suffix.startsWith('/'))
      return '${extensionPath} must be followed by "/" or end the command';
    const end = suffix.search(/[\s'";|&<>]/);
    const relative = (end < 0 ? suffix : suffix.slice(0, end)).replace(/^\//, '');
    if (relative !== '') {
      const problem = relativePathProblem(relative);
      if (problem !== undefined) return `\${extensionPath}/${relative}: ${problem}`;
    }
    rest = suffix.slice(end < 0 ? suffix.length : end);
  }
  return undefined;
};

/** A hook's command (cosh-core `validate_hook_command`): one non-empty line, and only its variables. */
const V1Command = new t.Type<string, string, unknown>(
  'a non-empty string',
  (value): value is string => CommandText.is(value),
  (value, context) => {
    if (typeof value === 'string' && /[\n\r]/.test(value))
      return failWith(value, context, 'a schemaVersion 1 command must be one line');
    const text = CommandText.validate(value, context);
    if (text._tag === 'Left') return text;
    const problem = variablesProblem(text.right, true);
    return problem === undefined ? text : failWith(value, context, problem);
  },
  t.identity,
);

/** An MCP server's `command`: one executable word. */
const McpCommand = checkedString('a string', (text) =>
  text === '' || /[\s\0]/.test(text)
    ? 'an MCP command must be one non-empty executable word'
    : variablesProblem(text, false),
);

const McpArgument = checkedString('a string', (text) => variablesProblem(text, false));

/**
 * Seconds 1..300 (cosh-core `extension_hook_timeout_invalid`: "timeout must be between 1 and 300
 * seconds"), decoded to the milliseconds every other source uses.
 */
export const TimeoutSeconds = new t.Type<number, number, unknown>(
  `an integer number of seconds ${V1_TIMEOUT_MIN_S}..${V1_TIMEOUT_MAX_S}`,
  (value): value is number => typeof value === 'number',
  (value, context) =>
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= V1_TIMEOUT_MIN_S &&
    value <= V1_TIMEOUT_MAX_S
      ? t.success(value * 1000)
      : t.failure(value, context),
  (ms) => ms / 1000,
);

/** A strict object: every key not in `required` or `optional` is an error naming the allowed ones. */
const strict = <R extends t.Props = Record<never, t.Mixed>, O extends t.Props = Record<never, t.Mixed>>(
  name: string,
  shape: { readonly required?: R; readonly optional?: O; readonly hints?: Readonly<Record<string, string>> },
) => {
  const keys = [...Object.keys(shape.required ?? {}), ...Object.keys(shape.optional ?? {})];
  return object<R, O>(name, {
    ...(shape.required !== undefined && { required: shape.required }),
    ...(shape.optional !== undefined && { optional: shape.optional }),
    unknownKey: (key) =>
      `unknown key (a schemaVersion 1 manifest is strict: expected ${keys.join(', ')})${
        shape.hints !== undefined && Object.hasOwn(shape.hints, key)
          ? `; ${shape.hints[key]}`
          : hint(key, keys)
      }`,
  });
};

const CommandType = named(
  t.literal('command'),
  '"command" (the only hook type of a schemaVersion 1 manifest)',
);

export const V1Hook = strict('an object', {
  required: { type: CommandType, name: LocalId('hook name'), command: V1Command },
  optional: {
    description: orNull(AString),
    timeout: orNull(TimeoutSeconds),
    fail_open: ABoolean,
    env: Env,
  },
  hints: {
    fail_closed: 'a PreToolUse hook fails closed unless it sets "fail_open": true',
    observe: 'observer hooks are a cosh-hooks key: declare them in a legacy manifest or config.toml',
    redact: 'redact is a cosh-hooks key: declare it in a legacy manifest or config.toml',
    persistent: 'persistent hooks are a cosh-hooks key: declare them in a legacy manifest or config.toml',
    dialect: 'dialect is a cosh-hooks key: declare it in a legacy manifest or config.toml',
  },
});
export type V1Hook = t.TypeOf<typeof V1Hook>;

const NonEmptyHooks = new t.Type<V1Hook[], unknown, unknown>(
  'a non-empty array of hook objects',
  (value): value is V1Hook[] => Array.isArray(value) && value.length > 0,
  (value, context) => {
    if (Array.isArray(value) && value.length === 0)
      return failWith(value, context, 'a hook group cannot be empty (cosh-core refuses it)');
    return t.array(V1Hook, 'an array of hook objects').validate(value, context);
  },
  t.identity,
);

export const V1Group = strict('an object', {
  required: { hooks: NonEmptyHooks },
  optional: { matcher: orNull(Matcher), sequential: ABoolean },
});
export type V1Group = t.TypeOf<typeof V1Group>;

const groups = () => named(t.array(V1Group), 'an array of hook groups');

export const V1Hooks = strict('an object keyed by event name', {
  optional: {
    PreToolUse: groups(),
    PostToolUse: groups(),
    PostToolUseFailure: groups(),
    UserPromptSubmit: groups(),
    SessionStart: groups(),
    Stop: groups(),
    BeforeModel: groups(),
    AfterModel: groups(),
  },
});

const StringMap = named(t.record(t.string, t.string), 'an object of string values');

const McpServer = strict('an object', {
  required: { transport: AString, command: McpCommand },
  optional: { args: named(t.array(McpArgument), 'an array of strings'), env: StringMap, required: ABoolean },
});

const ContextFile = strict('an object', {
  required: { id: LocalId('context id'), path: RelativePath },
  optional: { required: ABoolean },
});

/** cosh-core `validate_setting_key`: camelCase ASCII, starting with a lowercase letter, 1..64 bytes. */
const SettingKey = checkedString('a setting key', (text) =>
  /^[a-z][A-Za-z0-9]{0,63}$/.test(text)
    ? undefined
    : `invalid setting key ${JSON.stringify(text)} (expected camelCase ASCII letters and digits, starting with a lowercase letter)`,
);

export const V1Setting = strict('an object', {
  required: {
    key: SettingKey,
    type: named(t.keyof({ string: null, boolean: null, integer: null }), '"string", "boolean" or "integer"'),
    description: Description,
  },
  optional: { required: ABoolean, sensitive: ABoolean, default: t.unknown },
});
export type V1Setting = t.TypeOf<typeof V1Setting>;

/** The whole manifest. `schemaVersion` is checked before this codec runs (manifest.ts). */
export const ManifestV1 = strict('an object', {
  required: {
    schemaVersion: named(t.literal(1), 'the integer 1'),
    name: PackageName,
    version: SemVerText,
    compatibility: strict('an object', { required: { cosh: AString } }),
  },
  optional: {
    description: orNull(Description),
    skills: named(t.array(RelativePath), 'an array of relative paths'),
    hooks: V1Hooks,
    mcpServers: named(t.record(t.string, McpServer), 'an object of MCP servers'),
    contextFiles: named(t.array(ContextFile), 'an array of context files'),
    agents: named(t.array(RelativePath), 'an array of relative paths'),
    settings: named(t.array(V1Setting), 'an array of settings'),
  },
});
export type ManifestV1 = t.TypeOf<typeof ManifestV1>;

/** Whether a parsed document is a schemaVersion 1 manifest, by cosh-core's rule: it has the key. */
export const isV1Document = (document: unknown): document is Record<string, unknown> =>
  isRecord(document) && Object.hasOwn(document, 'schemaVersion');
