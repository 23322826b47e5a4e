import { closeSync, constants, lstatSync, mkdirSync, openSync, realpathSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { projectConfigPath } from '../config/layers.js';
import { starterFiles } from '../config/starter.js';
import { describeThrown } from '../events/untrusted.js';
import { packageFileUrl } from '../version.js';
import { printableLine } from './format.js';

export interface InitFlags {
  /** `--workspace [dir]`: the project config of that folder (true = the current one). */
  readonly workspace?: string | true;
  readonly home?: string;
  /** `--config FILE`: write this file instead. */
  readonly config?: string;
}

/** Where `init` writes: `--config`, else the project config with `--workspace`, else the user's. */
export const initTarget = (flags: InitFlags, cwd: string): string => {
  if (flags.config !== undefined) return resolve(cwd, flags.config);
  if (flags.workspace !== undefined)
    return projectConfigPath(resolve(cwd, flags.workspace === true ? '.' : flags.workspace));
  return join(resolve(cwd, flags.home ?? homedir()), '.copilot-shell', 'config.toml');
};

/** What is at `path` (never following a link there), in words; undefined when nothing is. */
const kindOf = (path: string): string | undefined => {
  try {
    const stats = lstatSync(path);
    return stats.isSymbolicLink()
      ? 'a symbolic link'
      : stats.isFIFO()
        ? 'a FIFO'
        : stats.isDirectory()
          ? 'a folder'
          : stats.isFile()
            ? 'a file'
            : 'a special file';
  } catch {
    return undefined;
  }
};

/** What is already at `target`, in words, when something is. */
const existing = (target: string): string | undefined => {
  const kind = kindOf(target);
  if (kind === undefined) return undefined;
  return kind === 'a file'
    ? 'already exists: init never overwrites a config; edit it, or move it away and run init again'
    : `is ${kind}: init writes a new regular file only; remove it or give another path with --config`;
};

/** Creates `target` with `text`, or says why not: never over anything, never through a link. */
const createNew = (target: string, text: string): string | undefined => {
  const there = existing(target);
  if (there !== undefined) return there;
  let fd: number;
  try {
    fd = openSync(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    return existing(target) ?? `cannot create: ${describeThrown(error)}`;
  }
  try {
    writeSync(fd, text);
    return undefined;
  } catch (error) {
    return `cannot write: ${describeThrown(error)}`;
  } finally {
    closeSync(fd);
  }
};

/**
 * The project's `.copilot-shell` folder, made if missing, or why init refuses it: it must be a
 * real folder right inside the workspace, never a link (even to a folder of the workspace, even
 * one made while init runs), so that the starter never lands in a folder the loader would not
 * read as this project's, such as the user's own `~/.copilot-shell`.
 */
const projectFolder = (workspace: string, folder: string): string | undefined => {
  const refusal = (kind: string) =>
    kind === 'a symbolic link'
      ? 'is a symbolic link: init --workspace writes only into a real folder inside the workspace; remove the link'
      : `is ${kind}, not a folder: remove it, or give another path with --config`;
  try {
    mkdirSync(workspace, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `cannot create the workspace folder: ${describeThrown(error)}`;
  }
  const before = kindOf(folder);
  if (before !== undefined && before !== 'a folder') return refusal(before);
  if (before === undefined) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      const now = kindOf(folder);
      if (now !== 'a folder')
        return now === undefined ? `cannot create: ${describeThrown(error)}` : refusal(now);
    }
  }
  // Checked again after the mkdir: a link swapped in meanwhile, or a workspace path through one.
  const after = kindOf(folder);
  if (after !== 'a folder') return refusal(after ?? 'gone');
  try {
    if (realpathSync(folder) !== join(realpathSync(workspace), '.copilot-shell'))
      return `is ${realpathSync(folder)}, outside the workspace: init --workspace writes only inside it`;
  } catch (error) {
    return `cannot check: ${describeThrown(error)}`;
  }
  return undefined;
};

/**
 * `init`: writes the commented starter config (src/config/starter.ts) where the loader reads it,
 * and with `--workspace` the scripts its project hooks run, never over anything: each file is
 * created with O_EXCL and O_NOFOLLOW, so an existing file, a link (even one made after the check)
 * or a FIFO is refused, not followed or overwritten. Nothing is written when any target is taken.
 */
export const initCommand = (flags: InitFlags): number => {
  const target = initTarget(flags, process.cwd());
  const folder = dirname(target);
  const schema = packageFileUrl('config.schema.json');
  const starter = starterFiles({
    ...(schema !== undefined && { schemaUrl: schema.href }),
    // A project's observer logs in the user's folder: trust pins every file of the project's.
    logFile: join(
      flags.workspace !== undefined && flags.config === undefined
        ? join(resolve(process.cwd(), flags.home ?? homedir()), '.copilot-shell')
        : folder,
      'hook-events.jsonl',
    ),
    ...(flags.workspace !== undefined && flags.config === undefined && { project: true }),
  });
  const files = [
    { path: target, text: starter.config },
    ...starter.scripts.map((script) => ({ path: join(folder, script.name), text: script.text })),
  ];
  const fail = (path: string, message: string): number => {
    process.stderr.write(`cosh-hooks init: ${printableLine(`${path}: ${message}`)}\n`);
    return 1;
  };
  const project = flags.workspace !== undefined && flags.config === undefined;
  if (project) {
    const refused = projectFolder(dirname(folder), folder);
    if (refused !== undefined) return fail(folder, refused);
  }
  for (const file of files) {
    const there = existing(file.path);
    if (there !== undefined) return fail(file.path, there);
  }
  try {
    if (!project) mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    return fail(folder, `cannot create the folder: ${describeThrown(error)}`);
  }
  for (const file of files) {
    const problem = createNew(file.path, file.text);
    if (problem !== undefined) return fail(file.path, problem);
    process.stdout.write(`wrote ${printableLine(file.path)}\n`);
  }
  process.stdout.write(
    `next: edit it, then \`cosh-hooks validate\`${starter.scripts.length > 0 ? ', `cosh-hooks trust`' : ''} and \`cosh-hooks fire PreToolUse --tool shell --input '{"tool_input":{"command":"rm -rf /"}}'\`\n`,
  );
  return 0;
};
