import { createHash } from 'node:crypto';
import { DEFAULT_STOP_LOOP_LIMIT } from '../protocol/stop-loop.js';

/**
 * The `[hooks]` settings of the project layer (docs/configuration.md, layers): what an untrusted
 * or a trusted project's settings may change. Pure.
 *
 * - Untrusted (the workspace not trusted, or its settings changed since `trust` recorded them):
 *   none takes effect, each is reported.
 * - Trusted: a setting may tighten the user's guards, never loosen them. `stop_loop_limit` only
 *   raises the limit (a lower one lets a blocked Stop through sooner, overriding the user's Stop
 *   guards); `enabled` and `fail_closed` only ever apply to the project's own hooks (`enabled =
 *   true` cannot switch on what the user switched off).
 */

/** The settings a `[hooks]` section writes (absent keys are not written). */
export interface HooksSettings {
  readonly enabled?: boolean;
  readonly fail_closed?: boolean;
  readonly stop_loop_limit?: number;
}

/** The keys of `HooksSettings`, in the order they are reported. */
const SETTING_KEYS = ['enabled', 'fail_closed', 'stop_loop_limit'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** `sha256:<hex>` of the written settings as canonical JSON: what `trust` records for a workspace. */
export const settingsDigest = (settings: HooksSettings): string => {
  const written = SETTING_KEYS.flatMap((key) => (settings[key] === undefined ? [] : [[key, settings[key]]]));
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(Object.fromEntries(written)))
    .digest('hex')}`;
};

/** The Stop-loop limit of the layers below the project, and whose it is (for the message). */
export interface BaseLimit {
  readonly limit?: number;
  /** `the user's`, `the system's`; absent = the default. */
  readonly owner?: string;
}

export interface ProjectSettingsVerdict {
  /** The project's `enabled` when it takes effect (it switches off the project's own hooks only). */
  readonly enabled?: boolean;
  /** The Stop-loop limit after the project: the base one, or the project's when it raises it. */
  readonly stopLoopLimit?: number;
  /** Settings that do not take effect, each with why. */
  readonly ignored: readonly { readonly key: SettingKey; readonly message: string }[];
}

/**
 * What the project's settings change. `trusted` is the digest `trust` recorded for the workspace's
 * settings (undefined: the workspace is not trusted, or was trusted before settings were recorded).
 */
export const projectSettingsVerdict = (
  settings: HooksSettings,
  trusted: { readonly workspace: boolean; readonly settings?: string },
  base: BaseLimit,
): ProjectSettingsVerdict => {
  const written = SETTING_KEYS.filter((key) => settings[key] !== undefined);
  const unchanged = base.limit === undefined ? {} : { stopLoopLimit: base.limit };
  if (written.length === 0) return { ...unchanged, ignored: [] };
  if (!trusted.workspace || trusted.settings !== settingsDigest(settings)) {
    const why = trusted.workspace
      ? 'changed since the project was trusted (run cosh-hooks trust)'
      : 'project not trusted (run cosh-hooks trust)';
    return {
      ...unchanged,
      ignored: written.map((key) => ({ key, message: `project setting ignored: ${why}` })),
    };
  }
  const limit = settings.stop_loop_limit;
  const floor = base.limit ?? DEFAULT_STOP_LOOP_LIMIT;
  if (limit !== undefined && limit < floor)
    return {
      ...unchanged,
      ...(settings.enabled !== undefined && { enabled: settings.enabled }),
      ignored: [
        {
          key: 'stop_loop_limit',
          message: `project setting ignored: ${limit} is lower than ${floor} (${base.owner ?? 'the default'}), which would let the user's Stop guards be overridden sooner; a project may only raise it`,
        },
      ],
    };
  return {
    ...(limit === undefined ? unchanged : { stopLoopLimit: limit }),
    ...(settings.enabled !== undefined && { enabled: settings.enabled }),
    ignored: [],
  };
};
