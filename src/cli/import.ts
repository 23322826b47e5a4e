import { resolve } from 'node:path';
import { decodeForeignText, foreignHooksToToml, formatProblem } from '../config/index.js';
import { readText } from '../config/files.js';
import type { ForeignDialect } from '../registry/dialect.js';
import { formatProblemLines, printableLine } from './format.js';
import { useColor } from './style.js';

/**
 * `import claude|gemini FILE`: another agent's hook settings as a config.toml `[hooks]` section on
 * stdout, ready to append to `~/.copilot-shell/config.toml` (docs/compat.md). Warnings (events
 * with no cosh counterpart, skipped hook types, refused hooks) and errors go to stderr. Status 0; 1
 * when a hook had a wrong field or was refused (the others are still printed) or the file cannot be read.
 */
export const importCommand = (dialect: ForeignDialect, given: string): number => {
  const file = resolve(given);
  const read = readText(file);
  if (!read.ok) {
    process.stderr.write(`cosh-hooks: ${printableLine(`${file}: ${read.error.message}`)}\n`);
    return 1;
  }
  const decoded = decodeForeignText(read.value, file, dialect);
  const lines = formatProblemLines(
    decoded.errors.map(formatProblem),
    decoded.warnings.map(formatProblem),
    useColor(process.stderr.isTTY, process.env),
  );
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
  process.stdout.write(foreignHooksToToml(decoded.hooks, { file, dialect }));
  // A refused hook (a condition that cannot be honoured) is missing from the output: not a success.
  return decoded.errors.length > 0 || (decoded.refused ?? 0) > 0 ? 1 : 0;
};
