import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { EventName } from '../events/names.js';
import type { CommandHook } from '../registry/hook.js';
import { digestFile, MAX_SCRIPT_BYTES } from '../exec/script-digest.js';
import { scriptWords } from './script-words.js';

/**
 * Trust of project-layer hooks (docs/configuration.md, trust): what is digested, and whether a
 * hook matches what was trusted. Pure apart from reading the script files.
 */

/** Largest script file digested; a larger one cannot be verified, so its hook cannot be trusted. */
export { MAX_SCRIPT_BYTES };

/** One file a hook runs, as it was found: its resolved path and the digest of its content. */
export interface ScriptDigest {
  /** As written in the command. */
  readonly word: string;
  /** Real path (symbolic links resolved); the written path, resolved, when the file is missing. */
  readonly path: string;
  /** `sha256:<hex>` of the content; `missing` when there is no such file. */
  readonly sha256: string;
  /** Why the file cannot be verified (not a regular file, too large, unreadable): never trusted. */
  readonly unverifiable?: string;
  /** True when the real path is outside the workspace (it is digested all the same). */
  readonly outside?: boolean;
}

/** What trusting one project hook covers. */
export interface HookFingerprint {
  readonly event: EventName;
  readonly name: string;
  readonly command: string;
  /** `sha256:<hex>` of the hook's definition: every field that changes what runs or how. */
  readonly definition: string;
  readonly scripts: readonly ScriptDigest[];
  /** Why some word of the command could not be known without running the shell. */
  readonly undetermined?: string;
}

const sha256 = (data: string | Uint8Array): string =>
  `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** The hook's definition as one canonical JSON text: keys in a fixed order, `env` sorted. */
export const definitionText = (event: EventName, hook: CommandHook): string =>
  JSON.stringify([
    event,
    hook.name,
    hook.command,
    hook.matcher?.source ?? null,
    hook.timeoutMs,
    hook.failClosed,
    hook.persistent,
    hook.redact !== false,
    hook.dialect ?? 'cosh',
    Object.entries(hook.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    hook.description ?? null,
  ]);

const realOrResolved = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** Whether `path` is `root` or inside it (both real paths). */
export const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * What trusting a project hook covers: its definition and each file its command runs. A script
 * must be named by an absolute path, or from `$COSH_WORKSPACE_PATH` (the engine sets it to the
 * workspace for every hook): a relative one is never trusted, since hooks run in the event's cwd. A script behind a symbolic link is
 * digested at its real path, so retargeting the link or changing the target both show.
 */
export const fingerprintHook = (event: EventName, hook: CommandHook, workspace: string): HookFingerprint => {
  const realWorkspace = realOrResolved(workspace);
  const words = scriptWords(hook.command, workspace);
  const scripts = words.paths.map((word): ScriptDigest => {
    const written = resolve(workspace, word);
    const path = realOrResolved(written);
    // A hook runs in the event's cwd, which the agent may change: a relative path could name
    // another file at run time than the one digested here.
    const digest = isAbsolute(word)
      ? digestFile(path)
      : {
          sha256: 'relative',
          unverifiable: `a relative path runs from the event's cwd; write "$COSH_WORKSPACE_PATH/${word}"`,
        };
    return {
      word,
      path,
      ...digest,
      ...(!isInside(realWorkspace, path) && { outside: true }),
    };
  });
  return {
    event,
    name: hook.name,
    command: hook.command,
    definition: sha256(definitionText(event, hook)),
    scripts,
    ...(words.undetermined !== undefined && { undetermined: words.undetermined }),
  };
};

/** What the trust store holds for one hook. */
export interface TrustedHook {
  readonly event: string;
  readonly name: string;
  readonly command: string;
  readonly definition: string;
  readonly scripts: readonly { readonly path: string; readonly sha256: string }[];
}

/** Whether a hook may run, and if not, why (a sentence for stderr, `list` and `validate`). */
export type TrustVerdict = { readonly trusted: true } | { readonly trusted: false; readonly reason: string };

const sameScripts = (found: readonly ScriptDigest[], trusted: TrustedHook['scripts']): boolean =>
  found.length === trusted.length &&
  found.every((script, i) => script.path === trusted[i]?.path && script.sha256 === trusted[i]?.sha256);

/**
 * Compares a hook as found now with what was trusted in its workspace. A hook is trusted only when
 * a record has the same definition digest and the same scripts, each at the same real path with the
 * same content digest; a script that cannot be verified is never trusted.
 */
export const trustVerdict = (
  found: HookFingerprint,
  trusted: readonly TrustedHook[] | undefined,
): TrustVerdict => {
  const unverifiable = found.scripts.find((script) => script.unverifiable !== undefined);
  if (unverifiable !== undefined)
    return {
      trusted: false,
      reason: `script ${unverifiable.path} cannot be verified: ${unverifiable.unverifiable}`,
    };
  if (trusted === undefined || trusted.length === 0)
    return { trusted: false, reason: 'project not trusted (run cosh-hooks trust)' };
  const sameDefinition = trusted.filter((record) => record.definition === found.definition);
  if (sameDefinition.length === 0) {
    const named = trusted.some((record) => record.event === found.event && record.name === found.name);
    return {
      trusted: false,
      reason: named
        ? 'definition changed since it was trusted (run cosh-hooks trust)'
        : 'not trusted (run cosh-hooks trust)',
    };
  }
  if (sameDefinition.some((record) => sameScripts(found.scripts, record.scripts))) return { trusted: true };
  const record = sameDefinition[0]!;
  const changed =
    found.scripts.find(
      (script, i) => script.path !== record.scripts[i]?.path || script.sha256 !== record.scripts[i]?.sha256,
    ) ?? found.scripts[0];
  return {
    trusted: false,
    reason:
      changed === undefined
        ? 'scripts changed since it was trusted (run cosh-hooks trust)'
        : `script ${changed.path} changed since it was trusted (run cosh-hooks trust)`,
  };
};

/** The record `cosh-hooks trust` stores for a hook. */
export const trustedRecord = (found: HookFingerprint): TrustedHook => ({
  event: found.event,
  name: found.name,
  command: found.command,
  definition: found.definition,
  scripts: found.scripts.map(({ path, sha256: digest }) => ({ path, sha256: digest })),
});
