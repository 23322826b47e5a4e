import { auditConfigRecord } from '../audit/build.js';
import type { AuditConfigRecord } from '../audit/records.js';
import { formatProblem, type LoadResult } from '../config/index.js';

/**
 * The audit records of a load (docs/audit.md, `config` records): each project hook that does not
 * run because it is not trusted, and, for a reload, whether the change was taken or refused with
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
