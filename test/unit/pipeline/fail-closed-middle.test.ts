/**
 * A fail_closed hook that fails in the middle of its chain (not last) ends the chain: its failure is
 * an effective block (spec §4.6), the hooks after it are `skipped` and never started. Issue 37's
 * mutant M3b: the chain going on past it was caught only when the failing hook was last.
 */
import { map, type Observable } from 'rxjs';
import { describe, it } from 'vitest';
import type { OutputLine } from '../../../src/output/index.js';
import { hookPipeline } from '../../../src/pipeline/index.js';
import { registryOf } from '../../../src/registry/index.js';
import type { HookEmission } from '../../../src/exec/port.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

type Cold = (
  marbles: string,
  values?: Record<string, HookEmission>,
  error?: unknown,
) => Observable<HookEmission>;

/** N:hook:decision for a notification; D<seq>:decision:reason[hook=outcome,...] for a decision. */
const brief = (line: OutputLine): string => {
  if (line.type === 'stream_event') return `N:${line.event.hook_name}:${line.event.decision}`;
  if (line.type === 'hook_error') return 'E';
  const hooks = line.hooks.map((h) => `${h.name}=${h.outcome}`).join(',');
  return `D${line.seq}:${line.decision}:${line.reason ?? ''}[${hooks}]`;
};

const pre = { hook_event_name: 'PreToolUse' as const, session_id: 's', tool_name: 'shell', tool_input: {} };

/**
 * How the guard fails (it starts at frame 1, when `first` answered), when its failure shows, its
 * outcome and the block's reason.
 */
const failures: readonly [string, (cold: Cold) => Observable<HookEmission>, string, string, string][] = [
  [
    'throws (an executor error)',
    (cold) => cold('--#', {}, new Error('boom')),
    '---',
    'exception',
    'hook "guard" failed closed: threw: boom',
  ],
  [
    'times out (timeout 3)',
    (cold) => cold('-------(r|)', { r: results.allow() }),
    '----',
    'timeout',
    'hook "guard" failed closed: timed out after 3 ms',
  ],
  [
    'crashes (killed by a signal)',
    (cold) => cold('--(r|)', { r: results.fail('signal', 'killed by SIGKILL') }),
    '---',
    'signal',
    'hook "guard" failed closed: killed by SIGKILL',
  ],
  [
    'exits non-zero (its stderr is the reason)',
    (cold) => cold('--(r|)', { r: results.fail('exit', 'exited with code 1', 'no network\n') }),
    '---',
    'exit',
    'no network',
  ],
];

describe('a fail_closed hook failing in the middle of a chain (M3b)', () => {
  it.each(failures)(
    'ends the chain when it %s: later hooks skipped, never started; the decision blocks',
    (_how, script, before, outcome, reason) => {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
        const first = cold('-(r|)', { r: results.allow() });
        const guard = script(cold as Cold);
        const after = cold('-(r|)', { r: results.allow() });
        const last = cold('-(r|)', { r: results.allow() });
        const registry = registryOf((name) =>
          name === 'PreToolUse'
            ? [
                commandHook('first'),
                commandHook('guard', { fail_closed: true, timeout: 3 }),
                commandHook('after'),
                commandHook('last'),
              ]
            : [],
        );
        const input = hot('x----------|', { x: pre });
        const { output$ } = hookPipeline(
          registry,
          testDeps(scheduler, fakeExecutor({ first, guard, after, last })),
        )(input);
        // A group `(gd)` spans its 4 characters' frames in run mode; the input completes at 11.
        expectObservable(output$.pipe(map(brief))).toBe(`${before}(gd)${'-'.repeat(7 - before.length)}|`, {
          g: 'N:guard:error',
          d: `D1:block:${reason}[first=ok,guard=${outcome},after=skipped,last=skipped]`,
        });
        expectSubscriptions(after.subscriptions).toBe([]);
        expectSubscriptions(last.subscriptions).toBe([]);
      });
    },
  );
});
