import type { OutputLine } from '../output/lines.js';
import type { HookReport } from '../protocol/aggregate.js';
import { redactText } from '../protocol/redact/index.js';
import { EVENT_NAMES } from '../events/names.js';
import type { Hook, Registry } from '../registry/hook.js';
import { formatProblemLines } from './format.js';

/**
 * `run`'s warning for a hook without `dialect` that answered in another agent's words (docs/compat.md):
 * once per hook, the first time, naming where it is configured and what its words were read as.
 */

/** Where a hook is configured: `file:line` when known, else its source. */
const whereOf = (report: HookReport, hook: Hook | undefined): string => {
  const origin = hook?.kind === 'command' ? hook.origin : undefined;
  if (origin === undefined) return report.source;
  return origin.line === undefined ? origin.file : `${origin.file}:${origin.line}`;
};

/** The warning's text for one report that carries `foreign`. Pure. */
export const foreignWarningText = (event: string, report: HookReport, hook: Hook | undefined): string => {
  const read = report.decision ?? 'no opinion';
  return redactText(
    `${whereOf(report, hook)}: hook "${report.name}" (${event}, no dialect) answered in another agent's words, ` +
      `read as ${read}: ${report.foreign ?? ''}`,
  );
};

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
