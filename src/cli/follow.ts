import { ReplaySubject, Subject, type Observable } from 'rxjs';
import { configNotes } from './config-notes.js';
import type { AuditConfigRecord } from '../audit/records.js';
import { formatProblem, type LoadOptions, type LoadResult } from '../config/index.js';
import { watchHooks } from '../config/watch.js';
import type { Registry } from '../registry/hook.js';
import { formatProblemLines, printableLine } from './format.js';

/** What `run --watch` runs on: the first load, then the registry of every valid change. */
export interface FollowedConfiguration {
  readonly initial: LoadResult;
  readonly registry$: Observable<Registry>;
  /** Audit records of each later change: reloaded (with its untrusted hooks) or refused. */
  readonly notes$: Observable<AuditConfigRecord>;
  readonly stop: () => void;
}

const say = (lines: readonly string[]) => {
  if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
};

/**
 * Follows the configuration for `run --watch` (docs/configuration.md, reload). The first load is
 * reported like any `run`'s. Each later change is reported on stderr: a valid one is swapped in
 * (with its warnings, untrusted project hooks included); an invalid one is refused with every
 * error, file and line, and the last good configuration stays.
 */
export const followConfiguration = (options: LoadOptions, color: boolean): FollowedConfiguration => {
  const registry$ = new ReplaySubject<Registry>(1);
  const notes$ = new Subject<AuditConfigRecord>();
  let initial: LoadResult | undefined;
  const subscription = watchHooks(options).subscribe((result) => {
    const problems = formatProblemLines(
      result.ok ? [] : result.errors.map(formatProblem),
      result.warnings.map(formatProblem),
      color,
    );
    if (initial === undefined) {
      initial = result;
      say(problems);
    } else if (result.ok) {
      say(['cosh-hooks: configuration changed: reloaded; events from now on run on it', ...problems]);
      for (const record of configNotes(result, 'reload')) notes$.next(record);
    } else {
      for (const record of configNotes(result, 'reload')) notes$.next(record);
      say([
        'cosh-hooks: configuration changed but is invalid: keeping the last good configuration',
        ...problems,
      ]);
    }
    if (result.ok) registry$.next(result.registry);
  });
  // watchHooks emits its first load synchronously.
  const first = initial as LoadResult | undefined;
  if (first === undefined) throw new Error(printableLine('internal error: no first load'));
  return {
    initial: first,
    registry$,
    notes$,
    stop: () => {
      subscription.unsubscribe();
      notes$.complete();
    },
  };
};
