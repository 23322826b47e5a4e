import { isLeft } from 'fp-ts/lib/Either.js';
import { resolve } from 'node:path';
import type { ForeignDialect } from '../registry/dialect.js';
import { byEvent } from '../events/names.js';
import { commandHookOf } from '../registry/define.js';
import type { CommandHook } from '../registry/hook.js';
import { Matcher } from './codecs.js';
import type { HooksByEvent } from './config-file.js';
import { decodeForeignText } from './foreign.js';
import { pluginRootOf } from './foreign-toml.js';
import { readText } from './files.js';
import { commandOfDialect, substituteCommand } from './substitute.js';
import type { ConfigProblem } from './problems.js';

/** Another agent's hook settings to load, as given to `loadHooks` (`--claude-settings FILE`, …). */
export interface ForeignSettings {
  readonly dialect: ForeignDialect;
  readonly file: string;
}

export interface LoadedForeign {
  readonly hooks: HooksByEvent;
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

/**
 * Claude Code's `${CLAUDE_PLUGIN_ROOT}` is cosh's `${extensionPath}`: plugin and extension commands
 * get their folder substituted the same way (spec §3: as data, never as shell code), and the
 * variable is also in the environment.
 */
const commandOf = (
  dialect: ForeignDialect,
  command: string,
  root: string | undefined,
  workspace: string,
): string => {
  const given = commandOfDialect(dialect, command);
  if (root === undefined) return given;
  const text = dialect === 'claude' ? given.replaceAll('${CLAUDE_PLUGIN_ROOT}', '${extensionPath}') : given;
  // As in a cosh manifest: the folders are data, never shell code (a plugin folder or a workspace
  // named `$(…)` must not run), so they stand in the command as expansions of COSH_EXTENSION_PATH
  // and COSH_WORKSPACE_PATH, which every such hook gets.
  return substituteCommand(text, { extensionPath: root, workspacePath: workspace });
};

/**
 * Reads the named settings files of other agents (docs/compat.md): each file's hooks, in file
 * order, with their dialect; a plugin's or extension's `hooks/hooks.json` gets its folder as
 * `${CLAUDE_PLUGIN_ROOT}` / `${extensionPath}`. A file that cannot be read, or a hook with a wrong
 * field, is an error (the file was named on purpose); unknown events are warnings.
 */
export const loadForeignSettings = (files: readonly ForeignSettings[], workspace: string): LoadedForeign => {
  const hooks = byEvent((): CommandHook[] => []);
  const errors: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  for (const { dialect, file: given } of files) {
    const file = resolve(given);
    const read = readText(file);
    if (!read.ok) {
      errors.push({ file, message: read.error.message });
      continue;
    }
    const decoded = decodeForeignText(read.value, file, dialect);
    errors.push(...decoded.errors);
    warnings.push(...decoded.warnings);
    const root = pluginRootOf(file);
    for (const hook of decoded.hooks) {
      const matcher = Matcher.decode(hook.matcher ?? '');
      if (isLeft(matcher)) {
        errors.push({ file, message: `${hook.name}: invalid matcher ${JSON.stringify(hook.matcher)}` });
        continue;
      }
      hooks[hook.event].push(
        commandHookOf(
          {
            name: hook.name,
            command: commandOf(dialect, hook.command, root, workspace),
            timeout: hook.timeout,
            matcher: matcher.right,
            dialect,
            ...(hook.failClosed === true && { fail_closed: true }),
            ...(hook.description !== undefined && { description: hook.description }),
            ...(root !== undefined && { extensionPath: root }),
            origin: { file },
          },
          `${dialect}:${file}`,
        ),
      );
    }
  }
  return { hooks, errors, warnings };
};
