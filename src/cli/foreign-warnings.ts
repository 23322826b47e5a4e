import type { OutputLine } from '../output/lines.js';
import type { HookReport } from '../protocol/aggregate.js';
import { EVENT_NAMES } from '../events/names.js';
import type { Hook, Registry } from '../registry/hook.js';
import { formatProblemLines } from './format.js';
import { foreignWarningText } from './foreign-text.js';

/**
 * `run`'s warning for a hook without `dialect` that answered in another agent's words (docs/compat.md):
 * once per hook, the first time, naming where it is configured and what its words were read as.
 */

const findHook = (registry: Registry, report: HookReport): Hook | undefined => {
  for (const event of EVENT_NAMES) {
    const found = registry[event].find((hook) => hook.name === report.name && hook.source === report.source);
    if (found !== undefined) return found;
  }
  return undefined;
};

/**
 * A watcher of `run`'s output lines that writes the warning for each hook (by source and name)
 * the first time one of its reports carries `foreign`. `registry` is the configuration running
 * now (it changes under `--watch`).
 */
export const foreignWarnings = (
  registry: () => Registry,
  write: (text: string) => void,
  color: boolean,
): ((line: OutputLine) => void) => {
  const told = new Set<string>();
  return (line) => {
    if (line.type !== 'hook_decision') return;
    for (const report of line.hooks) {
      if (report.foreign === undefined) continue;
      const key = JSON.stringify([report.source, report.name]);
      if (told.has(key)) continue;
      told.add(key);
      const text = foreignWarningText(line.hook_event_name, report, findHook(registry(), report));
      write(`${formatProblemLines([], [text], color).join('\n')}\n`);
    }
  };
};
