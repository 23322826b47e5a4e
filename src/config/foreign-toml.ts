import { basename, dirname } from 'node:path';
import { stringify } from 'smol-toml';
import { EVENT_NAMES } from '../events/names.js';
import type { ForeignDialect } from '../registry/dialect.js';
import type { ForeignHook } from './foreign.js';

/**
 * The plugin (Claude Code) or extension (Gemini CLI) folder a `hooks/hooks.json` belongs to, or
 * undefined for a settings file. Path arithmetic only.
 */
export const pluginRootOf = (file: string): string | undefined =>
  basename(file) === 'hooks.json' && basename(dirname(file)) === 'hooks' ? dirname(dirname(file)) : undefined;

/**
 * The variables a plugin's or extension's commands use, as environment variables of the imported
 * hooks: the shell expands them at run time, so a folder name is never pasted into a command.
 */
export const pluginEnv = (dialect: ForeignDialect, root: string): Record<string, string> =>
  dialect === 'claude' ? { CLAUDE_PLUGIN_ROOT: root } : { extensionPath: root };

/**
 * A comment line that stays one line and holds only characters TOML allows in comments: JSON
 * escapes every control character but DEL.
 */
const comment = (text: string): string =>
  `# ${JSON.stringify(text)
    .slice(1, -1)
    .replace(/\u007f/g, '?')}`;

/**
 * What the TOML serializer and JSON leave raw and a terminal acts on or reorders (spec §6): C1
 * controls (U+009B is a one-character CSI), the line and paragraph separators, the bidi controls.
 */
const UNSAFE = /[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * The output with those characters as `\u` and four hex digits: inside a TOML basic string (the serializer writes
 * no other kind) that is an escape of the same character, so the config reads back the same; in
 * a comment it is text.
 */
const terminalSafe = (toml: string): string =>
  toml.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * Imported hooks as `[[imported_hooks]]` tables of `config.toml` (docs/configuration.md), every
 * string written by a TOML serializer (quotes, backslashes, newlines and `"""` in a command stay
 * exactly that text). Gemini's `${/}` is the path separator, written as `/`.
 *
 * The text is made to be appended (`>> config.toml`) to any valid config, whatever its style: it
 * starts with a newline (the config's last line may have none), holds only comments and top-level
 * `[[imported_hooks]]` headers (an array of tables extends however often it is appended, and no
 * style of writing `[hooks]` — inline arrays, dotted keys, an inline table — can close it), and is
 * only comments when there is nothing to import.
 */
export const foreignHooksToToml = (
  hooks: readonly ForeignHook[],
  source: { readonly file: string; readonly dialect: ForeignDialect },
): string => {
  const root = pluginRootOf(source.file);
  const env = root === undefined ? undefined : pluginEnv(source.dialect, root);
  const tables = EVENT_NAMES.flatMap((event) =>
    hooks
      .filter((hook) => hook.event === event)
      .map((hook) => ({
        event,
        name: hook.name,
        command: source.dialect === 'gemini' ? hook.command.replaceAll('${/}', '/') : hook.command,
        timeout: hook.timeout,
        ...(hook.matcher !== undefined && { matcher: hook.matcher }),
        dialect: hook.dialect,
        ...(hook.failClosed === true && { fail_closed: true }),
        ...(hook.description !== undefined && { description: hook.description }),
        ...(env !== undefined && { env }),
      })),
  );
  const agent = source.dialect === 'claude' ? 'Claude Code' : 'Gemini CLI';
  const header = [
    comment(`Imported from ${agent} hooks in ${source.file} by cosh-hooks import ${source.dialect}.`),
    tables.length === 0
      ? '# It has no hooks cosh-hooks can run: nothing to import.'
      : '# Each hook keeps its dialect: it runs unchanged and decides what its author meant (docs/compat.md).',
  ].join('\n');
  if (tables.length === 0) return terminalSafe(`\n${header}\n`);
  return terminalSafe(`\n${header}\n${stringify({ imported_hooks: tables })}\n`);
};
