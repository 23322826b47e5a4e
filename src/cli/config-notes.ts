import { auditConfigRecord } from '../audit/build.js';
import type { AuditConfigRecord } from '../audit/records.js';
import { formatProblem, type LoadResult } from '../config/index.js';
import { EVENT_NAMES } from '../events/names.js';

/**
 * The audit records of a load (docs/audit.md, `config` records): each config hook skipped (no
 * name), each project hook that does not run because it is not trusted, and, for a reload, whether the change was taken or refused with
 * its errors (file and line). `when` says which: the start of a run, or a reload.
 */
export const configNotes = (
  result: LoadResult,
  when: 'start' | 'reload',
  now = Date.now(),
): AuditConfigRecord[] => {
  const records: AuditConfigRecord[] = [];
  if (when === 'reload') {
    records.push(
      result.ok
        ? auditConfigRecord({ subject: 'reload', message: 'configuration changed: reloaded' }, now)
        : auditConfigRecord(
            {
              subject: 'reload_refused',
              message: `configuration changed but is invalid: the last good configuration stays (${result.errors.length} error(s))`,
              details: { errors: result.errors.slice(0, 20).map(formatProblem) },
            },
            now,
          ),
    );
  }
  if (result.ok) {
    // A reload that removed or weakened a guard, or kept a changed trusted hook at its last version.
    for (const [subject, problems] of [
      ['guard_weakened', result.weakened ?? []],
      ['reload_kept_hook', result.kept ?? []],
    ] as const)
      for (const problem of problems)
        records.push(
          auditConfigRecord(
            {
              subject,
              message: problem.message,
              file: problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`,
              ...(problem.path !== undefined && { details: { path: problem.path } }),
            },
            now,
          ),
        );
    for (const event of EVENT_NAMES)
      for (const hook of result.registry[event]) {
        if (hook.kind !== 'command' || hook.skipped === undefined) continue;
        const origin = hook.origin;
        records.push(
          auditConfigRecord(
            {
              subject: 'skipped_hook',
              message: `hook not run: ${hook.skipped}`,
              ...(origin !== undefined && {
                file: origin.line === undefined ? origin.file : `${origin.file}:${origin.line}`,
              }),
              details: {
                event,
                source: hook.source,
                ...(origin?.path !== undefined && { path: origin.path }),
              },
            },
            now,
          ),
        );
      }
    for (const hook of result.untrusted) {
      records.push(
        auditConfigRecord(
          {
            subject: 'untrusted_hook',
            message: `project hook does not run: ${hook.reason}`,
            file: hook.line === undefined ? hook.file : `${hook.file}:${hook.line}`,
            hook: hook.name,
            details: { event: hook.event, workspace: hook.workspace },
          },
          now,
        ),
      );
    }
  }
  return records;
};
