import { defer, map, of, type Observable } from 'rxjs';
import { isForeign } from '../registry/dialect.js';
import { readForeignAnswer, type AnswerContext } from '../dialects/answer.js';
import { sentEvent } from '../dialects/events.js';
import type { HookEvent } from '../events/codecs.js';
import { success, type HookResult } from '../protocol/result.js';
import type { Hook } from '../registry/hook.js';

/** Runs one hook for one event: what `translateDialect` wraps. */
export type RunOne = (hook: Hook, event: HookEvent) => Observable<HookResult>;

/**
 * Runs a hook in its dialect (docs/compat.md): a hook written for Claude Code or Gemini CLI gets
 * the event as its agent sends it, and its answer is read as its agent reads it. A `cosh` hook
 * (the default) is run as is, with no extra work.
 *
 * ```
 * event:  PreToolUse, tool_name "shell", tool_input {command: "rm -rf /"}
 * sent:   PreToolUse, tool_name "Bash",  tool_input {command: "rm -rf /"}, permission_mode …
 * hook:   ---x|      x = exit status 2, stderr "rm -rf is not allowed"     (a claude hook)
 * output: ---b|      b = block, reason "rm -rf is not allowed"
 * ```
 *
 * An event whose tool input gives one field under two names with different values (`file_path`
 * and `absolute_path`, `path` and `dir_path`, …) is never shown to such a hook: which value the tool
 * uses depends on the host, and the hook reads only one. The hook is not run and its result is a
 * block naming both fields (`b` at once, the hook never subscribed).
 *
 * Composes inside the per-hook stream: the event is translated before the hook runs (and before
 * any redaction of what the hook sees), the answer right after it ends, before effective
 * decisions, fail_closed and aggregation. Timeouts and cancellation are the wrapped run's own.
 * Every hook kind is read the same way: the answer as given (what a command hook printed, what a
 * function hook returned) comes attached to the result from the executor port.
 *
 * Example: `translateDialect(hook, event, (h, e) => runHook(h, e, deps))`
 */
export const translateDialect = (hook: Hook, event: HookEvent, run: RunOne): Observable<HookResult> => {
  if (!isForeign(hook.dialect)) return run(hook, event);
  const dialect = hook.dialect;
  return defer(() => {
    const sent = sentEvent(dialect, event);
    // Two names of one tool field with different values: the hook would judge one of them, and
    // which one the tool uses depends on the host. Never a decoy: the hook is not run, the call is
    // blocked (a block where the event intercepts one, docs/compat.md).
    if (sent.conflict !== undefined)
      return of({
        ...success({
          decision: 'block',
          reason:
            `${sent.conflict}; hook ${JSON.stringify(hook.name)} (${dialect} dialect) reads one name for it, ` +
            'so the call is blocked rather than judged on a value the tool may not use (docs/compat.md)',
        }),
        note: 'not run: the event names one tool field twice, with different values',
      });
    // The hook reads the event in its own dialect's shape: not a cosh event any more, by design.
    const foreignEvent = sent.event as unknown as HookEvent;
    const context: AnswerContext = {
      dialect,
      event: event.hook_event_name,
      hookName: hook.name,
      back: sent.back,
    };
    return run(hook, foreignEvent).pipe(map((result) => readForeignAnswer(result, context)));
  });
};
