import { isLeft } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { isDialect, type Dialect } from '../registry/dialect.js';
import { EVENT_NAMES, MATCHED_EVENTS, isEventName, type EventName } from '../events/names.js';
import { parseJson } from '../events/untrusted.js';
import { err, ok } from '../result.js';
import type { DecodedExtension, DecodedManifest } from './decoded-manifest.js';
import { isV1Document } from './manifest-v1-codecs.js';
import { decodeV1Manifest } from './manifest-v1.js';
import { shortTimeout } from './timeout-unit.js';
import { commandHookOf } from '../registry/define.js';
import type { ToolMatcher } from '../registry/matcher.js';
import {
  ENV_NAME,
  isRecord,
  Manifest,
  ManifestCommandHook,
  ManifestGroup,
  ManifestGroups,
  MANIFEST_GROUP_KEYS,
  MANIFEST_HOOK_KEYS,
  unknownManifestKey,
} from './codecs.js';
import type { HookOrigin } from '../registry/hook.js';
import { isUnnamed, noHooks } from './config-file.js';
import { jsonLocations, lineAndColumn, problemLocator } from './locate.js';
import {
  failModeConflict,
  ignoredMatcher,
  issuesOf,
  unnamedManifestHook,
  type ConfigProblem,
  type Issue,
  type Segment,
} from './problems.js';
import { commandOfDialect, substitute, substituteCommand, type ExtensionVariables } from './substitute.js';

export { substitute, substituteCommand, type ExtensionVariables } from './substitute.js';

export type { DecodedExtension, DecodedManifest } from './decoded-manifest.js';

/** Node reports where JSON broke as "at position N" or "(line L column C)", depending on version. */
const jsonSyntaxProblem = (text: string, file: string, message: string): ConfigProblem => {
  const byLine = /\(line (\d+) column (\d+)\)/.exec(message);
  const byPosition = /at position (\d+)/.exec(message);
  const where = byLine
    ? { line: Number(byLine[1]), column: Number(byLine[2]) }
    : byPosition
      ? lineAndColumn(text, Number(byPosition[1]))
      : undefined;
  return where === undefined
    ? { file, message: `invalid JSON: ${message}` }
    : { file, line: where.line, message: `invalid JSON (column ${where.column}): ${message}` };
};

/** Collects issues and hooks while walking a manifest, so that every problem is reported at once. */
class ManifestWalk {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  readonly hooks = noHooks();

  constructor(
    private readonly source: string,
    private readonly variables: ExtensionVariables,
    /** The manifest's top-level `dialect`: the default of its hooks. */
    private readonly dialect: Dialect | undefined,
    /** The manifest's top-level `fail_closed`: the default of its hooks (docs/extensions.md). */
    private readonly failClosed: boolean | undefined,
    /** Where a path of the manifest is: its file and line. */
    private readonly origin: (at: readonly Segment[]) => HookOrigin,
  ) {}

  /** Keys of `raw` that are not in `known`: ignored, each with a warning. */
  unknownKeys(
    raw: Readonly<Record<string, unknown>>,
    known: readonly string[],
    at: readonly Segment[],
  ): void {
    for (const key of Object.keys(raw)) {
      if (!known.includes(key))
        this.warnings.push({ path: [...at, key], message: unknownManifestKey(key, known) });
    }
  }

  check<A>(codec: t.Type<A, unknown, unknown>, value: unknown, at: readonly Segment[]): A | undefined {
    const result = codec.decode(value);
    if (!isLeft(result)) return result.right;
    this.errors.push(...issuesOf(result.left, at, 'json'));
    return undefined;
  }

  event(event: EventName, groups: unknown): void {
    const at = ['hooks', event];
    // Elements are checked one by one below, so the array codec only reports a non-array.
    if (!Array.isArray(groups)) this.check(ManifestGroups, groups, at);
    else groups.forEach((group: unknown, index) => this.group(event, group, [...at, index]));
  }

  group(event: EventName, raw: unknown, at: readonly Segment[]): void {
    const group = this.check(ManifestGroup, raw, at);
    if (!isRecord(raw)) return;
    this.unknownKeys(raw, MANIFEST_GROUP_KEYS, at);
    if (raw.hooks === undefined) {
      this.warnings.push({ path: at, message: 'group has no "hooks" array; nothing to run' });
      return;
    }
    if (group?.matcher !== undefined && !MATCHED_EVENTS.includes(event)) {
      this.warnings.push(ignoredMatcher(event, [...at, 'matcher']));
    }
    if (!Array.isArray(raw.hooks)) return;
    raw.hooks.forEach((entry: unknown, index) =>
      this.entry(event, entry, group?.matcher, [...at, 'hooks', index]),
    );
  }

  /**
   * An `env` entry whose name cannot be a variable is dropped with a warning, as cosh-core does:
   * refusing the whole extension for it would turn its guards off.
   */
  withValidEnvNames(raw: Readonly<Record<string, unknown>>, at: readonly Segment[]): Record<string, unknown> {
    const env = raw.env;
    if (!isRecord(env)) return raw;
    const invalid = Object.keys(env).filter((name) => !ENV_NAME.test(name));
    if (invalid.length === 0) return raw;
    for (const name of invalid) {
      this.warnings.push({
        path: [...at, 'env', name],
        message: `invalid environment variable name ${JSON.stringify(name)} (expected [A-Za-z_][A-Za-z0-9_]*); entry dropped`,
      });
    }
    return { ...raw, env: Object.fromEntries(Object.entries(env).filter(([name]) => ENV_NAME.test(name))) };
  }

  entry(event: EventName, raw: unknown, matcher: ToolMatcher | undefined, at: readonly Segment[]): void {
    if (!isRecord(raw)) return; // already reported by the group codec
    if (raw.type !== 'command') {
      if (raw.type !== undefined && typeof raw.type !== 'string') {
        this.check(ManifestCommandHook, raw, at);
        return;
      }
      const got = raw.type === undefined ? 'no "type"' : `"type": ${JSON.stringify(raw.type)}`;
      this.warnings.push({
        path: at,
        message: `skipped: only "type": "command" hooks run (this one has ${got})`,
      });
      return;
    }
    const hook = this.check(ManifestCommandHook, this.withValidEnvNames(raw, at), at);
    this.unknownKeys(raw, MANIFEST_HOOK_KEYS, at);
    this.warnings.push(...shortTimeout(raw.timeout, at, 'json'));
    const conflicts = failModeConflict(raw, at);
    this.errors.push(...conflicts);
    const failClosed =
      hook === undefined || (hook.fail_closed === undefined && hook.fail_open === undefined)
        ? this.failClosed
        : hook.fail_closed;
    if (isUnnamed(raw.name)) {
      const closed = raw.fail_closed === true || raw.fail_open === false || (failClosed ?? false);
      this.warnings.push(unnamedManifestHook(at, closed));
      return;
    }
    if (hook === undefined || conflicts.length > 0) return;
    const env = Object.fromEntries(
      Object.entries(hook.env ?? {}).map(([name, value]) => [name, substitute(value, this.variables)]),
    );
    this.hooks[event].push(
      commandHookOf(
        {
          ...hook,
          ...(failClosed !== undefined && { fail_closed: failClosed }),
          origin: this.origin(at),
          name: hook.name ?? '',
          command: commandOfDialect(
            hook.dialect ?? this.dialect,
            substituteCommand(hook.command, this.variables),
          ),
          env,
          matcher,
          dialect: hook.dialect ?? this.dialect,
          extensionPath: this.variables.extensionPath,
          workspacePath: this.variables.workspacePath,
        },
        this.source,
      ),
    );
  }
}

/**
 * Validates the text of a `cosh-extension.json` (spec §3) and resolves its hooks, substituting
 * variables. Pure: `file` only names the source in problems. A manifest with a `schemaVersion`
 * key is cosh-core's strict one, read by `manifest-v1.ts`. In a legacy manifest (without the key)
 * unknown keys are ignored; a wrong type
 * on a known key, a bad timeout, a bad regex or a command hook without a command is an error, and
 * any error means the caller must not load the extension. Events this engine does not know,
 * hooks of other types and unnamed hooks are warnings: the rest of the extension still loads.
 */
export const decodeManifestText = (
  text: string,
  file: string,
  variables: ExtensionVariables,
): DecodedManifest => {
  const parsed = parseJson(text);
  if (!parsed.ok) return { ...err([jsonSyntaxProblem(text, file, parsed.error)]), warnings: [] };
  const document = parsed.value;
  const locate = problemLocator(file, () => jsonLocations(text));

  const name = isRecord(document) && typeof document.name === 'string' ? document.name : '';
  const dialect = isRecord(document) && isDialect(document.dialect) ? document.dialect : undefined;
  const failClosed =
    isRecord(document) && typeof document.fail_closed === 'boolean' ? document.fail_closed : undefined;
  const origin = (at: readonly Segment[]): HookOrigin => {
    const { line, path } = locate({ path: at, message: '' });
    return { file, ...(line !== undefined && { line }), ...(path !== undefined && { path }) };
  };
  if (isV1Document(document)) {
    if (document.schemaVersion !== 1)
      return {
        ...err([
          locate({
            path: ['schemaVersion'],
            message:
              'schemaVersion must be the integer 1 (the strict manifest of cosh-core); without the key the manifest is read as a legacy one',
          }),
        ]),
        warnings: [],
      };
    return decodeV1Manifest(document, variables, locate, origin);
  }
  const walk = new ManifestWalk(`extension:${name}`, variables, dialect, failClosed, origin);
  const manifest = walk.check(Manifest, document, []);
  if (isRecord(document) && isRecord(document.hooks)) {
    for (const [event, groups] of Object.entries(document.hooks)) {
      if (isEventName(event)) walk.event(event, groups);
      else {
        walk.warnings.push({
          path: ['hooks', event],
          message: `unknown event; its hooks are skipped (expected one of ${EVENT_NAMES.join(', ')})`,
        });
      }
    }
  }
  const warnings = walk.warnings.map(locate);
  if (manifest === undefined || walk.errors.length > 0) {
    return { ...err(walk.errors.map(locate)), warnings };
  }
  const extension: DecodedExtension = {
    name: manifest.name,
    ...(manifest.version !== undefined && { version: manifest.version }),
    hooks: walk.hooks,
  };
  return { ...ok(extension), warnings };
};
