import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { withDialectEnv } from '../dialects/env.js';
import { registryOf } from '../registry/chain.js';
import type { CommandHook, ConfiguredHook, Registry } from '../registry/hook.js';
import { loadExtensions, type ExtensionFolder, type ExtensionScope } from './extensions.js';
import { loadForeignSettings, type ForeignSettings } from './foreign-load.js';
import { checkRegistry } from './checks.js';
import {
  mergeLayers,
  systemLayerOf,
  projectConfigPath,
  type LayerSource,
  type UntrustedHook,
} from './layers.js';
import type { ConfigProblem } from './problems.js';
import { readDisabled } from './state.js';

/** Where `loadHooks` looks; every field has a default under the home folder. */
export interface LoadOptions {
  /** Home folder; default `os.homedir()` (so `HOME` relocates everything below). */
  readonly home?: string;
  /**
   * The user layer's config file, explicit: missing = error. Default
   * `<home>/.copilot-shell/config.toml` (missing = no hooks).
   */
  readonly configPath?: string;
  /**
   * The system layer's config file; default `/etc/copilot-shell/config.toml` (missing = none). A
   * file named here must exist. `null` or `false`: no system layer.
   */
  readonly systemConfigPath?: string | null | false | undefined;
  /** Read the project layer `<workspace>/.copilot-shell/config.toml` (default true). */
  readonly projectConfig?: boolean;
  /** The trust store of project hooks; default `<stateDir>/trust.json`. */
  readonly trustStorePath?: string;
  /** User extension folders; default `[<home>/.copilot-shell/extensions]`. Replaces the default. */
  readonly extensionsDirs?: readonly string[];
  /**
   * System extension folder; default `/usr/share/anolisa/extensions` (missing = none, silently).
   * `null` or `false`: read no system extensions at all. A folder given here that does not exist
   * is a warning.
   */
  readonly systemExtensionsDir?: string | null | false | undefined;
  /** Folder of `extensions.json` and `hooks.json`; default `<home>/.copilot-shell/states`. */
  readonly stateDir?: string;
  /** `${workspacePath}`; default `process.cwd()`. */
  readonly workspace?: string;
  /**
   * Hook settings of Claude Code or Gemini CLI to load as well (`settings.json`, or a plugin's or
   * extension's `hooks/hooks.json`), after the config file's hooks (docs/compat.md).
   */
  readonly foreignSettings?: readonly ForeignSettings[];
  /**
   * The environment hooks will inherit, for the load-time checks of their commands (`PATH`,
   * docs/configuration.md); default `process.env`.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What `loadHooks` read: the config file and each extension found. */
export interface LoadedSources {
  /** The user layer's config file that was read; absent when the default file does not exist. */
  readonly configFile?: string;
  /** Each config layer looked for, in order (system, user, project), and what became of it. */
  readonly layers?: readonly LayerSource[];
  /** Set by the system config: only system hooks and system extensions run. */
  readonly managedOnly?: boolean;
  readonly extensions: readonly {
    readonly name: string;
    readonly version?: string;
    readonly path: string;
    readonly scope: ExtensionScope;
    readonly enabled: boolean;
  }[];
}

/** The result of `loadHooks`: the registry and warnings, or every error of an invalid config file. */
export type LoadResult =
  | {
      ok: true;
      registry: Registry;
      warnings: ConfigProblem[];
      sources: LoadedSources;
      /** `[hooks] stop_loop_limit` of the config file, for the engine's options (docs/configuration.md). */
      stopLoopLimit?: number;
      /** Project hooks that will not run because they are not trusted, as data (for stderr and an audit). */
      untrusted: readonly UntrustedHook[];
      /** Every file and folder the result depends on: what a watcher follows (docs/configuration.md). */
      followed: Followed;
      /**
       * Set by `watchHooks` on a reload: each hook that decided before and that the change removed
       * or weakened, with its file:line (also among `warnings`).
       */
      weakened?: readonly ConfigProblem[];
      /**
       * Set by `watchHooks` on a reload: each trusted project hook the change untrusted, kept at its
       * last version (its scripts still checked before each start), with its file:line.
       */
      kept?: readonly ConfigProblem[];
    }
  | { ok: false; errors: ConfigProblem[]; warnings: ConfigProblem[]; followed: Followed };

/** What a load read: files (configs, state files, trust store, project scripts) and extension folders. */
export interface Followed {
  readonly files: readonly string[];
  readonly folders: readonly string[];
}

/** Where system-wide extensions are looked for by default. */
export const DEFAULT_SYSTEM_EXTENSIONS_DIR = '/usr/share/anolisa/extensions';

/**
 * Loads every hook the user configured (spec §2–§4): the config file, then extensions, with the
 * disabled state applied. Synchronous, for start-up. Never throws for a configuration problem:
 * an invalid config file gives `ok: false` with every error; everything else that is wrong (a
 * broken manifest, a malformed state file, an unnamed hook) is a warning and the rest loads.
 *
 * Disabled hooks stay in the registry with `enabled: false` so that listings can show them;
 * `chainFor` skips them. With `[hooks] enabled = false` every config hook is disabled and
 * extensions are not read at all.
 */
export const loadHooks = (options: LoadOptions = {}): LoadResult => {
  const home = options.home ?? homedir();
  const base = join(home, '.copilot-shell');
  const configFile = resolve(options.configPath ?? join(base, 'config.toml'));
  const stateDir = resolve(options.stateDir ?? join(base, 'states'));
  const workspace = resolve(options.workspace ?? process.cwd());

  const system = systemLayerOf(options.systemConfigPath);
  const config = mergeLayers({
    ...(system !== undefined && { system }),
    user: { layer: 'user', file: configFile, explicit: options.configPath !== undefined },
    ...(options.projectConfig !== false && {
      project: { layer: 'project', file: projectConfigPath(workspace), explicit: false },
    }),
    workspace,
    trustStore: resolve(options.trustStorePath ?? join(stateDir, 'trust.json')),
  });
  const managed = config.managedOnly;
  // Managed-only mode: what the user brings (other agents' settings, state files that turn hooks
  // off, user extensions) does not apply; only the system layer and system extensions run.
  const foreign = loadForeignSettings(managed ? [] : (options.foreignSettings ?? []), workspace);
  const warnings: ConfigProblem[] = [...config.warnings, ...config.ignoredSettings, ...foreign.warnings];
  if (managed && (options.foreignSettings ?? []).length > 0)
    warnings.push(
      ...(options.foreignSettings ?? []).map(({ file }) => ({
        file,
        message: 'not loaded: the system config sets managed-only mode',
      })),
    );
  const files: string[] = [...config.files, ...(options.foreignSettings ?? []).map(({ file }) => file)];

  const hooksState = join(stateDir, 'hooks.json');
  const disabledHooks = managed ? { names: new Set<string>(), warnings: [] } : readDisabled(hooksState);
  if (!managed) files.push(hooksState);
  warnings.push(...disabledHooks.warnings);
  const hookOn = (loaded: CommandHook, extensionOn = true): CommandHook => {
    const hook = withDialectEnv(loaded, workspace);
    const enabled = hook.enabled && config.enabled && extensionOn && !disabledHooks.names.has(hook.name);
    // Every loaded hook gets the workspace as COSH_WORKSPACE_PATH (spec §3), config hooks included.
    const placed = hook.workspacePath === undefined ? { ...hook, workspacePath: workspace } : hook;
    return enabled === placed.enabled ? placed : { ...placed, enabled };
  };

  // A rule hook runs no process: no environment, no workspace variable; turned off the same way.
  const ruleOn = (hook: Extract<ConfiguredHook, { kind: 'rule' }>): ConfiguredHook => {
    const enabled = hook.enabled && config.enabled && !disabledHooks.names.has(hook.name);
    return enabled === hook.enabled ? hook : { ...hook, enabled };
  };

  const folders: ExtensionFolder[] = [
    ...(managed ? [] : (options.extensionsDirs ?? [join(base, 'extensions')])).map((dir) => ({
      dir,
      scope: 'user' as const,
      explicit: options.extensionsDirs !== undefined,
    })),
    ...(options.systemExtensionsDir === null || options.systemExtensionsDir === false
      ? []
      : [
          {
            dir: options.systemExtensionsDir ?? DEFAULT_SYSTEM_EXTENSIONS_DIR,
            scope: 'system' as const,
            explicit: options.systemExtensionsDir !== undefined,
          },
        ]),
  ];
  // spec §2: `enabled = false` switches extension hooks off too, so they are not even read.
  const extensions = config.enabled ? loadExtensions(folders, workspace) : { extensions: [], warnings: [] };
  warnings.push(...extensions.warnings);
  const extensionsState = join(stateDir, 'extensions.json');
  const disabledExtensions =
    config.enabled && !managed ? readDisabled(extensionsState) : { names: new Set<string>(), warnings: [] };
  if (config.enabled && !managed) files.push(extensionsState);
  warnings.push(...disabledExtensions.warnings);
  const followed: Followed = {
    files: [...new Set(files)],
    folders: config.enabled ? folders.map(({ dir }) => resolve(dir)) : [],
  };
  // An invalid config file still lets extensions and state files be read first, so that one run
  // (`cosh-hooks validate`) reports every problem there is.
  if (config.errors.length > 0 || foreign.errors.length > 0)
    return { ok: false, errors: [...config.errors, ...foreign.errors], warnings, followed };

  const loaded = extensions.extensions.map((extension) => ({
    extension,
    enabled: !disabledExtensions.names.has(extension.name),
  }));
  const registry = registryOf((event) => [
    ...config.hooks[event].map((hook) => (hook.kind === 'rule' ? ruleOn(hook) : hookOn(hook))),
    ...foreign.hooks[event].map((hook) => hookOn(hook)),
    ...loaded.flatMap(({ extension, enabled }) =>
      extension.hooks[event].map((hook) => hookOn(hook, enabled)),
    ),
  ]);
  warnings.push(...checkRegistry(registry, { env: options.env ?? process.env, workspace }));
  return {
    ok: true,
    registry,
    warnings,
    ...(config.stopLoopLimit !== undefined && { stopLoopLimit: config.stopLoopLimit }),
    untrusted: config.untrusted,
    followed,
    sources: {
      ...(config.layers.some((layer) => layer.layer === 'user' && layer.state === 'read') && { configFile }),
      layers: config.layers,
      ...(managed && { managedOnly: true }),
      extensions: loaded.map(({ extension, enabled }) => ({
        name: extension.name,
        ...(extension.version !== undefined && { version: extension.version }),
        path: extension.path,
        scope: extension.scope,
        enabled,
      })),
    },
  };
};
