import type { EventName } from '../events/names.js';
import { registryOf } from '../registry/chain.js';
import type { Hook } from '../registry/hook.js';
import type { LoadResult } from './load.js';
import type { ConfigProblem } from './problems.js';

/**
 * A reload never opens a guard (docs/configuration.md, reload). Pure: compares the last good load
 * with the next one and returns what a follower may run.
 *
 * - A config layer that was read and is now deleted (or a link out of the workspace) refuses the
 *   reload: the last good configuration stays, as for an invalid file.
 * - A trusted project hook that a change untrusted (its definition or a script changed) keeps its
 *   last loaded version, with the script digests pinned: the executor checks them before each
 *   start, so a tampered script fails `spawn` (blocking under fail_closed) exactly as in a run
 *   without reload. Revoking trust (the workspace gone from the store) is the user's choice and is
 *   taken.
 * - Every other change is taken; each one that removes or weakens a hook that decided (removed,
 *   turned off, fail_closed off, timeout shortened, turned into an observer) is reported with
 *   file:line in `weakened` and the warnings.
 */

type Loaded = Extract<LoadResult, { ok: true }>;

/** `event`, `source` and `name`, and which of the hooks so named it is. */
const keysOf = (event: EventName, hooks: readonly Hook[]): string[] => {
  const seen = new Map<string, number>();
  return hooks.map((hook) => {
    const key = JSON.stringify([event, hook.source, hook.name]);
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return `${key}#${count}`;
  });
};

const whereOf = (hook: Hook): Pick<ConfigProblem, 'file' | 'line' | 'path'> => {
  const origin = hook.kind === 'function' ? undefined : hook.origin;
  if (origin === undefined) return { file: hook.source };
  return {
    file: origin.file,
    ...(origin.line !== undefined && { line: origin.line }),
    ...(origin.path !== undefined && { path: origin.path }),
  };
};

const untrustedOf = (hook: Hook): string | undefined =>
  hook.kind === 'function' ? undefined : hook.untrusted;

/** A project hook a change untrusted (not a revocation): its last version stays. */
const keepsLastVersion = (before: Hook, after: Hook): boolean =>
  before.enabled &&
  after.source === 'config:project' &&
  untrustedOf(before) === undefined &&
  untrustedOf(after) !== undefined &&
  !(untrustedOf(after) ?? '').startsWith('project not trusted');

/** How `after` is weaker than `before`, in words; empty when it is not. */
const weakening = (before: Hook, after: Hook | undefined): string[] => {
  if (after === undefined) return ['removed'];
  const why = untrustedOf(after) ?? (after.kind === 'command' ? after.skipped : undefined);
  return [
    ...(before.failClosed && !after.failClosed ? ['fail_closed turned off'] : []),
    ...(!after.enabled ? [why === undefined ? 'turned off' : `turned off (${why})`] : []),
    ...(after.timeoutMs < before.timeoutMs
      ? [`timeout shortened from ${before.timeoutMs} to ${after.timeoutMs} ms`]
      : []),
    ...(after.observe === true ? ['now an observer, it no longer decides'] : []),
  ];
};

/** A layer that was read before and is not now, and why (deleted, or no longer readable where it is). */
const lostLayers = (last: Loaded, next: Loaded): ConfigProblem[] =>
  (last.sources.layers ?? []).flatMap((before) => {
    if (before.state !== 'read') return [];
    const now = next.sources.layers?.find((layer) => layer.file === before.file);
    if (now === undefined || now.state === 'read') return [];
    if (now.state === 'ignored' && !(now.reason ?? '').startsWith('a link')) return [];
    const what = now.state === 'missing' ? 'deleted while followed' : `no longer read (${now.reason ?? ''})`;
    return [
      {
        file: before.file,
        message: `${what}: the last good configuration stays (restart to run without this file)`,
      },
    ];
  });

/**
 * The result a follower should take for `next`, given the last good one: `next` itself when it
 * is invalid, a refusal when a layer was lost, else `next` with changed trusted project hooks kept
 * at their last version and every weakening reported (`weakened`, also among the warnings).
 */
export const guardReload = (last: Loaded, next: LoadResult): LoadResult => {
  if (!next.ok) return next;
  const lost = lostLayers(last, next);
  if (lost.length > 0) return { ok: false, errors: lost, warnings: next.warnings, followed: next.followed };

  const kept: ConfigProblem[] = [];
  const weakened: ConfigProblem[] = [];
  const keptNames = new Set<string>();
  const registry = registryOf((event) => {
    const beforeKeys = keysOf(event, last.registry[event]);
    const before = new Map(beforeKeys.map((key, i) => [key, last.registry[event][i]!]));
    const afterHooks = next.registry[event];
    const chain = keysOf(event, afterHooks).map((key, i) => {
      const after = afterHooks[i]!;
      const previous = before.get(key);
      if (previous === undefined || !keepsLastVersion(previous, after)) return after;
      const where = whereOf(after);
      keptNames.add(JSON.stringify([event, after.name, where.file, where.line]));
      kept.push({
        ...where,
        message: `project hook ${JSON.stringify(after.name)} changed since it was trusted (${untrustedOf(after) ?? ''}): the version loaded before stays, its scripts checked before each start, as in a run without --watch`,
      });
      return previous;
    });
    const now = new Map(keysOf(event, chain).map((key, i) => [key, chain[i]!]));
    beforeKeys.forEach((key) => {
      const previous = before.get(key)!;
      if (!previous.enabled || previous.observe === true) return;
      const after = now.get(key);
      const what = weakening(previous, after);
      if (what.length > 0)
        weakened.push({
          ...whereOf(after ?? previous),
          message: `reload weakens hook ${JSON.stringify(previous.name)} (${event}, ${previous.source}): ${what.join('; ')}`,
        });
    });
    return chain;
  });
  const isKept = (event: EventName, name: string, file: string, line: number | undefined) =>
    keptNames.has(JSON.stringify([event, name, file, line]));
  const untrusted = next.untrusted.filter((hook) => !isKept(hook.event, hook.name, hook.file, hook.line));
  // The "does not run" warning of a hook that keeps running is replaced by the one saying why it does.
  const stale = (warning: ConfigProblem) =>
    kept.some(
      (problem) =>
        problem.file === warning.file &&
        problem.path === warning.path &&
        warning.message.startsWith('project hook ') &&
        warning.message.includes(' does not run: '),
    );
  return {
    ...next,
    registry,
    untrusted,
    warnings: [...next.warnings.filter((warning) => !stale(warning)), ...kept, ...weakened],
    ...(weakened.length > 0 && { weakened }),
    ...(kept.length > 0 && { kept }),
  };
};
