import { createHash } from 'node:crypto';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { EventName } from '../events/names.js';
import type { CommandHook } from '../registry/hook.js';
import { digestFile, isScriptFile, MAX_SCRIPT_BYTES } from '../exec/script-digest.js';
import { envNameRefusal } from './trust-env.js';
import { commandForm, interpreterOf, ownShebangRefusal, scriptRefusal, shebangOf } from './trust-grammar.js';

/**
 * Trust of project-layer hooks (docs/configuration.md, trust): which command forms are accepted
 * (src/config/trust-grammar.ts), what is digested, and whether a hook matches what was trusted.
 * Pure apart from reading the script files and looking interpreters up on PATH.
 */

/** Largest script file digested; a larger one cannot be verified, so its hook cannot be trusted. */
export { MAX_SCRIPT_BYTES };

/** One file a hook runs, as its command names it, and the digest of its content. */
export interface ScriptDigest {
  /**
   * The path as the command names it (workspace variables replaced, never normalized nor
   * resolved): what the executor opens again before each start, following the links there then.
   */
  readonly path: string;
  /** `sha256:<hex>` of the content; `missing` when there is no such file. */
  readonly sha256: string;
  /** Why the file cannot be verified (not a regular file, too large, unreadable): never trusted. */
  readonly unverifiable?: string;
  /** Its real path, when links make it differ from `path` (shown by `trust`). */
  readonly real?: string;
}

/** What trusting one project hook covers. */
export interface HookFingerprint {
  readonly event: EventName;
  readonly name: string;
  readonly command: string;
  /** `sha256:<hex>` of the hook's definition: every key of the hook (`definitionText`). */
  readonly definition: string;
  readonly scripts: readonly ScriptDigest[];
  /** The interpreter that runs the script, as found now (its path), when there is one. */
  readonly interpreter?: string;
  /** Why trust refuses the hook whatever the store says: a form it cannot pin (trust-grammar.ts). */
  readonly refused?: string;
}

const sha256 = (data: string | Uint8Array): string =>
  `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** Fields the engine sets on a hook, not its definition: left out of the definition digest. */
const ENGINE_FIELDS: ReadonlySet<string> = new Set([
  'source',
  'origin',
  'enabled',
  'untrusted',
  'trustedScripts',
  'workspacePath',
  'extensionPath',
]);

/** A value as canonical JSON data: object keys sorted, `undefined` and functions left out. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
};

/**
 * The hook's definition as one canonical JSON text: the event and every key of the decoded hook
 * (sorted, nested ones too) except those the engine sets, so that a key added to hooks later is
 * covered without a change here. The matcher is its pattern.
 */
export const definitionText = (event: EventName, hook: CommandHook): string => {
  const fields = Object.entries(hook)
    .filter(([key]) => !ENGINE_FIELDS.has(key))
    .map(([key, value]) => [key, key === 'matcher' ? (hook.matcher?.source ?? null) : value]);
  return JSON.stringify(canonical({ event, hook: Object.fromEntries(fields) }));
};

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

/** `/bin/sh`'s search path when `PATH` is unset (dash's default). */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const isExecutableFile = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Where the hook's workspace is, as written and as a real path. */
interface Place {
  readonly workspace: string;
  readonly real: string;
}
/** The real path of `path`, or, when it is missing, of its nearest existing folder with the rest appended. */
const realOf = (path: string): string => {
  let head = path;
  let tail = '';
  for (;;) {
    try {
      return tail === '' ? realpathSync(head) : join(realpathSync(head), tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      tail = tail === '' ? basename(head) : join(basename(head), tail);
      head = parent;
    }
  }
};
const within = (place: Place, path: string): boolean => isInside(place.real, realOf(path));

/**
 * The file an interpreter named by `program` (a bare name or a path) is, or why trust refuses it:
 * a bare name is looked up on `searchPath` as sh would, and every folder before it is found must
 * be absolute and outside the workspace (a file the project adds there later would run instead);
 * the interpreter itself must be a program outside the workspace, not a script (a version
 * manager's shim reads the project's files to choose what runs).
 */
const interpreterFile = (program: string, place: Place, searchPath: string): string | { refused: string } => {
  let path = program;
  if (!program.includes('/')) {
    let found: string | undefined;
    for (const folder of searchPath.split(':')) {
      if (folder === '' || !isAbsolute(folder))
        return {
          refused: `PATH holds the relative folder ${JSON.stringify(folder)} before ${program} is found: it is the event's cwd`,
        };
      if (within(place, folder))
        return { refused: `PATH holds ${folder}, inside the workspace, before ${program} is found` };
      if (isExecutableFile(join(folder, program))) {
        found = join(folder, program);
        break;
      }
    }
    if (found === undefined) return { refused: `${program} is not found on PATH` };
    path = found;
  }
  const real = realOrResolved(path);
  if (within(place, path)) return { refused: `the interpreter ${path} is inside the workspace` };
  // A launcher linked under an interpreter's name (mise, volta) chooses what runs from the project.
  if (interpreterOf(basename(real)) === undefined)
    return {
      refused: `the interpreter ${path} is ${real}, which is not an interpreter trust accepts (a launcher?)`,
    };
  const script = isScriptFile(real);
  if (script === undefined) return { refused: `the interpreter ${path} is not a readable file` };
  if (script)
    return {
      refused: `the interpreter ${path} is itself a script (a version manager's shim?): it may choose what runs from the project's files; name the program it runs (/usr/bin/python3)`,
    };
  return path;
};

/** Options of `fingerprintHook`: what a hook finds its interpreter with. */
export interface FingerprintOptions {
  /** `PATH` as the hook will get it (the hook's `env` may not set it); default the engine's. */
  readonly searchPath?: string;
}

/**
 * What trusting a project hook covers: its definition and the one script its command runs, named
 * as the command names it, or why trust refuses the hook (src/config/trust-grammar.ts): a command
 * it cannot pin, an `env` name that loads code, a script outside the workspace (a program there may
 * run what it finds in the workspace), an interpreter inside it, a `#!` line it does not accept.
 */
export const fingerprintHook = (
  event: EventName,
  hook: CommandHook,
  workspace: string,
  options: FingerprintOptions = {},
): HookFingerprint => {
  const base = {
    event,
    name: hook.name,
    command: hook.command,
    definition: sha256(definitionText(event, hook)),
  };
  const place: Place = { workspace, real: realOrResolved(workspace) };
  const searchPath = options.searchPath ?? process.env['PATH'] ?? DEFAULT_PATH;
  const refuse = (reason: string, scripts: readonly ScriptDigest[] = []): HookFingerprint => ({
    ...base,
    scripts,
    refused: reason,
  });
  const envRefusal = Object.keys(hook.env)
    .map(envNameRefusal)
    .find((reason) => reason !== undefined);
  if (envRefusal !== undefined) return refuse(envRefusal);
  const form = commandForm(hook.command, workspace, hook.dialect);
  if (form.kind === 'refused') return refuse(form.reason);
  if (form.kind === 'builtin') return { ...base, scripts: [] };
  const real = realOf(form.script);
  const { head, ...digest } = digestFile(form.script);
  const script: ScriptDigest = { path: form.script, ...digest, ...(real !== form.script && { real }) };
  if (!within(place, form.script))
    return refuse(
      `${form.script} is outside the workspace${real !== form.script ? ` (it is ${real})` : ''}: a program there may run what it finds in the workspace, which trust cannot pin; configure such a hook in your user config`,
      [script],
    );
  if (form.kind === 'interpreted' && head !== undefined) {
    const shebang = ownShebangRefusal(head, form.script, form.interpreter);
    if (shebang !== undefined) return refuse(shebang, [script]);
  }
  let programs: readonly string[];
  if (form.kind === 'interpreted') programs = [form.interpreter];
  else if (head === undefined) return { ...base, scripts: [script] };
  else {
    const shebang = shebangOf(head, form.script);
    if ('refused' in shebang) return refuse(shebang.refused, [script]);
    programs = shebang.programs;
  }
  let interpreter = '';
  for (const program of programs) {
    const file = interpreterFile(program, place, searchPath);
    if (typeof file !== 'string') return refuse(file.refused, [script]);
    interpreter = file;
  }
  const unpinned = scriptRefusal(programs.at(-1) ?? '', form.script);
  if (unpinned !== undefined) return refuse(unpinned, [script]);
  return { ...base, scripts: [script], interpreter };
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
 * trust accepts its form and a record has the same definition digest and the same scripts, each
 * named by the same path with the same content digest; a script that cannot be verified is never
 * trusted. A record of a path that is not named the same way (an older store keyed by real paths)
 * matches nothing.
 */
export const trustVerdict = (
  found: HookFingerprint,
  trusted: readonly TrustedHook[] | undefined,
): TrustVerdict => {
  if (found.refused !== undefined)
    return { trusted: false, reason: `trust refuses its command: ${found.refused}` };
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
