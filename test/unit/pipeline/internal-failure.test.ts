/**
 * The engine's own failure on an event (here an executor that throws when called, a broken port)
 * is one answer, as if every hook of the chain had failed with `exception`: a fail_closed hook
 * blocks and the hooks after it are `skipped` (issue 37, the mutant "the internal-failure answer
 * going on past a fail_closed block").
 */
import { map, of } from 'rxjs';
import { describe, it } from 'vitest';
import type { HookExecutor } from '../../../src/exec/port.js';
import type { OutputLine } from '../../../src/output/index.js';
import { hookPipeline } from '../../../src/pipeline/index.js';
import { registryOf, type Hook } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler, event, testDeps } from '../../../src/testing/index.js';

const throwing: HookExecutor = () => {
  throw new Error('executor bug');
};

const brief = (line: OutputLine): string => {
  if (line.type === 'stream_event') return `N:${line.event.hook_name}:${line.event.decision}`;
  if (line.type === 'hook_error') return 'E';
  return `D:${line.decision}[${line.hooks.map((h) => `${h.name}=${h.outcome}${h.decision === undefined ? '' : `:${h.decision}`}`).join(',')}]`;
};

const pre = event('PreToolUse', { tool_name: 'shell', tool_input: { command: 'ls' } });

describe('the internal-failure answer', () => {
  it.each<[string, Hook[], string]>([
    [
      'a fail_closed hook first: it blocks, the one after it is skipped',
      [commandHook('guard', { fail_closed: true }), commandHook('after')],
      'D:block[guard=exception:block,after=skipped]',
    ],
    [
      'a fail_closed hook in the middle: the hook before it fails open, the ones after it are skipped',
      [
        commandHook('before'),
        commandHook('guard', { fail_closed: true }),
        commandHook('after'),
        commandHook('last'),
      ],
      'D:block[before=exception,guard=exception:block,after=skipped,last=skipped]',
    ],
    [
      'no fail_closed hook: every hook fails open',
      [commandHook('before'), commandHook('after')],
      'D:none[before=exception,after=exception]',
    ],
  ])('%s', (_name, chain, decision) => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const registry = registryOf((name) => (name === 'PreToolUse' ? chain : []));
      const { output$ } = hookPipeline(registry, testDeps(scheduler, throwing))(of(pre));
      expectObservable(output$.pipe(map(brief))).toBe('(nd|)', { n: 'N:cosh-hooks:error', d: decision });
    });
  });
});
