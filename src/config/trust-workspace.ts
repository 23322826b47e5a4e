import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import { mergeLayers, projectConfigPath, systemLayerOf, type LayerSource } from './layers.js';
import type { LoadOptions } from './load.js';
import type { ConfigProblem } from './problems.js';
import { readTrustStore, withWorkspace, writeTrustStore } from './trust-store.js';
import { fingerprintHook, trustedRecord, type HookFingerprint } from './trust.js';
import { settingsDigest, type HooksSettings } from './project-settings.js';

/** One project hook as `cosh-hooks trust` shows it. */
export interface TrustCandidate extends HookFingerprint {
  readonly file: string;
  readonly line?: number;
}

/** What trusting a workspace would record, or why it cannot. */
export interface TrustPlan {
  /** Real path of the workspace: the key of its entry in the store. */
  readonly workspace: string;
  readonly configFile: string;
  readonly storeFile: string;
  /** The project layer as it was found (`read`, `missing`, `ignored` with the reason). */
  readonly project: LayerSource | undefined;
  readonly hooks: readonly TrustCandidate[];
  /** The project's `[hooks]` settings, recorded by their digest; empty when it writes none. */
  readonly settings: HooksSettings;
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

const realOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

const placesOf = (options: LoadOptions) => {
  const home = options.home ?? homedir();
  const stateDir = resolve(options.stateDir ?? join(home, '.copilot-shell', 'states'));
  const workspace = resolve(options.workspace ?? process.cwd());
  return {
    workspace,
    storeFile: resolve(options.trustStorePath ?? join(stateDir, 'trust.json')),
    userFile: resolve(options.configPath ?? join(home, '.copilot-shell', 'config.toml')),
  };
};

/**
 * Reads the project layer of a workspace and digests each of its hooks and the scripts they run,
 * without running anything and without writing: what `trust` shows before it records. The system
 * and user layers are read too: managed mode decides whether project hooks can run at all, and
 * their `project_env` which `env` names a project hook may set.
 */
export const planTrust = (options: LoadOptions = {}): TrustPlan => {
  const { workspace, storeFile, userFile } = placesOf(options);
  const configFile = projectConfigPath(workspace);
  const system = systemLayerOf(options.systemConfigPath);
  const project = { layer: 'project', file: configFile, explicit: false } as const;
  const merged = mergeLayers({
    ...(system !== undefined && { system }),
    user: { layer: 'user', file: userFile, explicit: options.configPath !== undefined },
    project,
    workspace,
    trustStore: storeFile,
  });
  return {
    workspace: realOr(workspace),
    configFile,
    storeFile,
    project: merged.layers.find((layer) => layer.layer === 'project'),
    hooks: merged.projectHooks.map(({ event, hook, file, line }) => ({
      ...fingerprintHook(event, hook, workspace, { allowedEnv: merged.projectEnv }),
      file,
      ...(line !== undefined && { line }),
    })),
    settings: merged.projectSettings,
    errors: merged.errors,
    warnings: merged.warnings,
  };
};

/** Whether trust can record a hook: its form is accepted and every script can be verified. */
export const canTrust = (hook: HookFingerprint): boolean =>
  hook.refused === undefined && hook.scripts.every((script) => script.unverifiable === undefined);

/**
 * Records the plan's hooks as trusted (those `canTrust` accepts) and the digest of its settings, replacing what the store held
 * for the workspace. Returns the hooks recorded. Throws when the store cannot be written.
 */
export const recordTrust = (plan: TrustPlan, now: Date = new Date()): readonly TrustCandidate[] => {
  const recorded = plan.hooks.filter(canTrust);
  const { store } = readTrustStore(plan.storeFile);
  writeTrustStore(
    plan.storeFile,
    withWorkspace(store, plan.workspace, {
      trusted_at: now.toISOString(),
      config: plan.configFile,
      settings: settingsDigest(plan.settings),
      hooks: recorded.map(trustedRecord).map((record) => ({ ...record, scripts: [...record.scripts] })),
    }),
  );
  return recorded;
};

/** Removes the workspace's entry from the store; false when there was none. Throws when it cannot write. */
export const revokeTrust = (
  options: LoadOptions = {},
): { readonly workspace: string; readonly removed: boolean } => {
  const places = placesOf(options);
  const workspace = realOr(places.workspace);
  const { store } = readTrustStore(places.storeFile);
  const removed = Object.hasOwn(store.workspaces, workspace);
  if (removed) writeTrustStore(places.storeFile, withWorkspace(store, workspace, undefined));
  return { workspace, removed };
};
