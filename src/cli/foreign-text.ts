import type { HookReport } from '../protocol/aggregate.js';
import { redactText } from '../protocol/redact/index.js';
import type { Hook } from '../registry/hook.js';

/**
 * The words of the warning for a hook without `dialect` that answered in another agent's words
 * (docs/compat.md): `run` prints it once per hook, `doctor` with its dry run. Pure.
 */

/** Where a hook is configured: `file:line` when known, else its source. */
const whereOf = (report: HookReport, hook: Hook | undefined): string => {
  const origin = hook?.kind === 'function' ? undefined : hook?.origin;
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
