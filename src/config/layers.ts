import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EVENT_NAMES, byEvent, type EventName } from '../events/names.js';
import type { ConfiguredHook } from '../registry/hook.js';
import { MANAGED_KEYS } from './codecs.js';
import { decodeConfigText, noHooks, type ConfigFileResult } from './config-file.js';
import { readText } from './files.js';
import { lineOf, tomlLocations } from './locate.js';
import { formatPath, type ConfigProblem } from './problems.js';
import {
  projectSettingsVerdict,
  type BaseLimit,
  type HooksSettings,
  type ProjectSettingsVerdict,
} from './project-settings.js';
import { readTrustStore, trustedIn, trustedSettingsIn } from './trust-store.js';
import { fingerprintHook, isInside, trustVerdict } from './trust.js';

/**
 * Config layers (docs/configuration.md, layers): system, user and project `config.toml`, read
 * once each and merged as cosh-core merges them, with the project layer held to trust and the
 * system layer able to set managed mode.
 */

/** Where a config hook came from. */
export type Layer = 'system' | 'user' | 'project';

/** The `source` of each layer's hooks: the user layer keeps `config`, as before layers existed. */
export const LAYER_SOURCE: Readonly<Record<Layer, string>> = {
  system: 'config:system',
  user: 'config',
  project: 'config:project',
};

/** The system layer's default path, as cosh-core reads it. */
export const DEFAULT_SYSTEM_CONFIG = '/etc/copilot-shell/config.toml';

/** The project layer's path inside a workspace. */
export const projectConfigPath = (workspace: string): string =>
  join(workspace, '.copilot-shell', 'config.toml');

/** One layer to read: its file, and whether it was named explicitly (then it must exist). */
export interface LayerFile {
  readonly layer: Layer;
  readonly file: string;
  readonly explicit: boolean;
}

/**
 * The system layer as options name it: `/etc/copilot-shell/config.toml` by default, another file,
 * or none at all (`false` or `null`, for tests and hosts that want no system layer).
 */
export const systemLayerOf = (systemConfigPath: string | null | false | undefined): LayerFile | undefined => {
  const file = systemConfigPath === undefined ? DEFAULT_SYSTEM_CONFIG : systemConfigPath;
  return file === null || file === false
    ? undefined
    : { layer: 'system', file: resolve(file), explicit: systemConfigPath !== undefined };
};

/** What one layer gave. */
export interface LayerSource {
  readonly layer: Layer;
  readonly file: string;
  /**
   * `read`: its hooks count; `missing`: no such file; `ignored`: not read, `reason` says why
   * (managed-only mode, project hooks off, a link out of the workspace).
   */
  readonly state: 'read' | 'missing' | 'ignored';
  readonly reason?: string;
}

/** A project hook that will not run because it is not trusted: data for stderr and the audit. */
export interface UntrustedHook {
  readonly type: 'untrusted_hook';
  readonly event: EventName;
  readonly name: string;
  readonly file: string;
  readonly line?: number;
  readonly workspace: string;
  readonly reason: string;
}

/** A hook of the project layer with its place in the file. */
export interface ProjectHook {
  readonly event: EventName;
  readonly hook: ConfiguredHook;
  readonly file: string;
  readonly line?: number;
}

export interface MergedLayers {
  /** `[hooks] enabled` after merging; false switches every hook off and extensions are not read. */
  readonly enabled: boolean;
  /** Set by the system layer: only system hooks and system extensions run. */
  readonly managedOnly: boolean;
  readonly hooks: Readonly<Record<EventName, readonly ConfiguredHook[]>>;
  /**
   * `[hooks] stop_loop_limit`: the smallest the system and user layers set; a trusted project may
   * only raise it, since a lower limit lets a blocked Stop through sooner (docs/configuration.md).
   */
  readonly stopLoopLimit?: number;
  readonly layers: readonly LayerSource[];
  readonly untrusted: readonly UntrustedHook[];
  /** Every project hook read, trusted or not, with where it is written: what `cosh-hooks trust` shows. */
  readonly projectHooks: readonly ProjectHook[];
  /** The `env` names a project hook may set: `project_env` of the system and user layers read. */
  readonly projectEnv: ReadonlySet<string>;
  /** The project layer's `[hooks]` settings as written (what `cosh-hooks trust` records). */
  readonly projectSettings: HooksSettings;
  /** Project settings that take no effect, each with its file:line and why: warnings for every command. */
  readonly ignoredSettings: readonly ConfigProblem[];
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
  /** Every file this read or looked for (to follow for reload). */
  readonly files: readonly string[];
}

interface ReadLayer {
  readonly layer: Layer;
  readonly file: string;
  readonly text?: string;
  readonly decoded: ConfigFileResult;
}

const emptyResult = (): ConfigFileResult => ({ enabled: true, hooks: noHooks(), errors: [], warnings: [] });

const readLayer = (
  { layer, file, explicit }: LayerFile,
  from: string = file,
): ReadLayer | { missing: true } => {
  const read = readText(from);
  if (read.ok) return { layer, file, text: read.value, decoded: decodeConfigText(read.value, file) };
  if (read.error.missing && !explicit) return { missing: true };
  return { layer, file, decoded: { ...emptyResult(), errors: [{ file, message: read.error.message }] } };
};

const realOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The line of a path in a layer's text, located only when asked (a problem or an untrusted hook). */
const locator = (text: string | undefined) => {
  let locations: ReturnType<typeof tomlLocations> | undefined;
  return (path: readonly (string | number)[]): number | undefined => {
    if (text === undefined) return undefined;
    locations ??= tomlLocations(text);
    return lineOf(locations, path);
  };
};

/** `project_env` written in a project layer: an error, since a project cannot allow its own names. */
const projectEnvError = (read: ReadLayer): ConfigProblem[] => {
  if (read.decoded.layering?.projectEnv === undefined) return [];
  const line = locator(read.text)(['hooks', 'project_env']);
  return [
    {
      file: read.file,
      ...(line !== undefined && { line }),
      path: formatPath(['hooks', 'project_env']),
      message: 'only the user or system config may set this: a project cannot allow its own env names',
    },
  ];
};

/** Managed-mode keys written outside the system layer: errors, since they would change nothing. */
const managedKeyErrors = (read: ReadLayer, systemFile: string): ConfigProblem[] => {
  const layering = read.decoded.layering;
  if (layering === undefined) return [];
  const at = locator(read.text);
  const written = MANAGED_KEYS.filter((key) =>
    key === 'managed_only' ? layering.managedOnly !== undefined : layering.projectHooks !== undefined,
  );
  return written.map((key) => {
    const line = at(['hooks', key]);
    return {
      file: read.file,
      ...(line !== undefined && { line }),
      path: formatPath(['hooks', key]),
      message: `only the system config (${systemFile}) may set this`,
    };
  });
};

export interface MergeOptions {
  readonly system?: LayerFile;
  readonly user?: LayerFile;
  readonly project?: LayerFile;
  readonly workspace: string;
  /** The trust store file (`<state dir>/trust.json`). */
  readonly trustStore: string;
}

/**
 * Reads the layers and merges them:
 * - `enabled`: the last of system, user that writes it wins (absent everywhere = true); a trusted
 *   project's `enabled = false` switches off the project's own hooks only.
 * - the project's `[hooks]` settings take effect only when trusted, and then only to tighten
 *   (project-settings.ts); each one ignored is a warning with its file:line.
 * - hooks, per event: a user list replaces the system list of the same event, as in cosh-core
 *   (with a warning naming both files); project hooks are appended after them and never replace
 *   them (cosh-core lets a project replace them; here a project cannot remove a guard without
 *   running anything and so without being trusted).
 * - managed mode, from the system layer only: `managed_only = true` reads no user or project
 *   layer; `project_hooks = false` reads no project layer.
 * - project hooks run only when trusted; untrusted ones stay listed with `untrusted` set and
 *   `enabled: false`.
 */
export const mergeLayers = (options: MergeOptions): MergedLayers => {
  const errors: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  const layers: LayerSource[] = [];
  const files: string[] = [];
  const systemFile = options.system?.file ?? DEFAULT_SYSTEM_CONFIG;

  const take = (spec: LayerFile | undefined, from?: string): ReadLayer | undefined => {
    if (spec === undefined) return undefined;
    files.push(spec.file);
    const read = readLayer(spec, from);
    if ('missing' in read) {
      layers.push({ layer: spec.layer, file: spec.file, state: 'missing' });
      return undefined;
    }
    layers.push({ layer: spec.layer, file: spec.file, state: 'read' });
    errors.push(...read.decoded.errors);
    warnings.push(...read.decoded.warnings);
    return read;
  };
  const ignore = (spec: LayerFile | undefined, reason: string) => {
    if (spec !== undefined) layers.push({ layer: spec.layer, file: spec.file, state: 'ignored', reason });
  };

  const system = take(options.system);
  const managedOnly = system?.decoded.layering?.managedOnly === true;
  const projectHooksOn = system?.decoded.layering?.projectHooks !== false;

  let user: ReadLayer | undefined;
  if (managedOnly) ignore(options.user, 'managed-only mode (system config)');
  else {
    user = take(options.user);
    if (user !== undefined) errors.push(...managedKeyErrors(user, systemFile));
  }

  let project: ReadLayer | undefined;
  if (options.project !== undefined) {
    const realWorkspace = realOr(options.workspace);
    const realFile = realOr(options.project.file);
    if (managedOnly) ignore(options.project, 'managed-only mode (system config)');
    else if (!projectHooksOn) ignore(options.project, 'project_hooks = false (system config)');
    else if (
      !isInside(realWorkspace, realFile) ||
      !isInside(realWorkspace, realOr(dirname(options.project.file)))
    ) {
      files.push(options.project.file);
      ignore(options.project, `a link out of the workspace (to ${realFile})`);
      warnings.push({
        file: options.project.file,
        message: `links out of the workspace (to ${realFile}); the project layer is not read`,
      });
    } else {
      // The file whose place was just checked is the one read: a link swapped in between is not followed.
      project = take(options.project, realFile);
      if (project !== undefined)
        errors.push(...managedKeyErrors(project, systemFile), ...projectEnvError(project));
    }
  }

  let enabled = true;
  for (const read of [system, user])
    if (read?.decoded.layering?.enabledSet === true) enabled = read.decoded.enabled;

  const hooks = byEvent((): ConfiguredHook[] => []);
  const placed = (read: ReadLayer, event: EventName) =>
    read.decoded.hooks[event].map((hook) => ({ ...hook, source: LAYER_SOURCE[read.layer] }));
  for (const event of EVENT_NAMES) {
    const fromSystem = system === undefined ? [] : placed(system, event);
    const replaces = user?.decoded.layering?.definedEvents.includes(event) === true;
    if (replaces && fromSystem.length > 0 && user !== undefined) {
      const line = locator(user.text)(['hooks', event]);
      warnings.push({
        file: user.file,
        ...(line !== undefined && { line }),
        path: formatPath(['hooks', event]),
        message: `replaces the ${fromSystem.length} ${event} hook(s) of ${system?.file ?? systemFile}, as cosh-core merges layers`,
      });
    }
    hooks[event].push(
      ...(replaces && user !== undefined
        ? placed(user, event)
        : [...fromSystem, ...(user === undefined ? [] : placed(user, event))]),
    );
  }

  // The Stop-loop limit of the layers below the project: the smallest they set (the strictest).
  const below = [
    ...(system?.decoded.stopLoopLimit === undefined
      ? []
      : [{ limit: system.decoded.stopLoopLimit, owner: "the system's" }]),
    ...(user?.decoded.stopLoopLimit === undefined
      ? []
      : [{ limit: user.decoded.stopLoopLimit, owner: "the user's" }]),
  ].sort((a, b) => a.limit - b.limit);
  const base: BaseLimit = below[0] ?? {};
  let settings: ProjectSettingsVerdict = {
    ...(base.limit !== undefined && { stopLoopLimit: base.limit }),
    ignored: [],
  };
  const ignoredSettings: ConfigProblem[] = [];
  const untrusted: UntrustedHook[] = [];
  const projectHooks: ProjectHook[] = [];
  const projectEnv = new Set([
    ...(system?.decoded.layering?.projectEnv ?? []),
    ...(user?.decoded.layering?.projectEnv ?? []),
  ]);
  if (project !== undefined && project.decoded.errors.length === 0) {
    const store = readTrustStore(options.trustStore);
    files.push(options.trustStore);
    warnings.push(...store.warnings);
    const realWorkspace = realOr(options.workspace);
    const trusted = trustedIn(store.store, realWorkspace);
    const at = locator(project.text);
    settings = projectSettingsVerdict(
      project.decoded.layering?.settings ?? {},
      trustedSettingsIn(store.store, realWorkspace),
      base,
    );
    for (const { key, message } of settings.ignored) {
      const line = at(['hooks', key]);
      ignoredSettings.push({
        file: project.file,
        ...(line !== undefined && { line }),
        path: formatPath(['hooks', key]),
        message,
      });
    }
    // An untrusted project's `enabled` changes nothing; a trusted one's switches off its own hooks only.
    const projectOn = settings.enabled ?? true;
    for (const event of EVENT_NAMES) {
      placed(project, event).forEach((hook, i) => {
        // A skipped hook (no name) never runs: nothing to trust, it stays listed as skipped.
        if (hook.kind === 'command' && hook.skipped !== undefined) {
          hooks[event].push(hook);
          return;
        }
        const found = fingerprintHook(event, hook, options.workspace, { allowedEnv: projectEnv });
        // The hook folder is digested again before each start (src/exec/trusted-scripts.ts), not followed.
        for (const script of found.scripts) if (!script.path.endsWith('/')) files.push(script.path);
        const index = project.decoded.layering?.tableIndex[event][i] ?? i;
        const line = hook.origin?.line ?? at(['hooks', event, index]);
        projectHooks.push({ event, hook, file: project.file, ...(line !== undefined && { line }) });
        const verdict = trustVerdict(found, trusted);
        if (verdict.trusted) {
          // The digests trust recorded, checked again before each start (src/exec/trusted-scripts.ts).
          const trustedScripts = found.scripts.map(({ path, sha256 }) => ({ path, sha256 }));
          const pinned = trustedScripts.length > 0 ? { ...hook, trustedScripts } : hook;
          hooks[event].push(projectOn ? pinned : { ...pinned, enabled: false });
          return;
        }
        // A warning too, so every command names it: `run` on stderr, `validate` as a problem.
        warnings.push({
          file: project.file,
          ...(line !== undefined && { line }),
          path: hook.origin?.path ?? formatPath(['hooks', event, index]),
          message: `project hook ${JSON.stringify(hook.name)} does not run: ${verdict.reason}`,
        });
        untrusted.push({
          type: 'untrusted_hook',
          event,
          name: hook.name,
          file: project.file,
          ...(line !== undefined && { line }),
          workspace: realWorkspace,
          reason: verdict.reason,
        });
        hooks[event].push({ ...hook, enabled: false, untrusted: verdict.reason });
      });
    }
  }

  return {
    enabled,
    managedOnly,
    hooks,
    ...(settings.stopLoopLimit !== undefined && { stopLoopLimit: settings.stopLoopLimit }),
    layers,
    untrusted,
    projectHooks,
    projectEnv,
    projectSettings: project?.decoded.layering?.settings ?? {},
    ignoredSettings,
    errors,
    warnings,
    files,
  };
};
