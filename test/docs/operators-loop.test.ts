/**
 * docs/operators.md's "Composing your own loop", run against `hookPipeline` on the same registry:
 * the loop's verdicts are the pipeline's decisions, event for event; the page shows exactly the
 * operators run here; and what the page says of a throwing executor holds.
 */
import { readFileSync } from 'node:fs';
import { catchError, concatMap, filter, from, map, of, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  admitEvents,
  foldDecision,
  matchHooks,
  parseLines,
  runHooks,
  stopOnBlock,
} from '../../operators/index.js';
import type { EventInput } from '../../src/events/index.js';
import type { HookExecutor } from '../../src/exec/port.js';
import { hookPipeline } from '../../src/pipeline/index.js';
import { registryOf } from '../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../src/testing/index.js';

const page = readFileSync(new URL('../../docs/operators.md', import.meta.url), 'utf8');

const chain = [commandHook('guard', { fail_closed: true }), commandHook('asker'), commandHook('audit')];
const registry = registryOf((name) => (name === 'PreToolUse' ? chain : []));
const tool = (command: string): EventInput => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_input: { command },
});
const events: EventInput[] = [
  tool('ls'),
  tool('rm -rf /'),
  tool('curl x'),
  tool('crash'),
  { not: 'an event' } as never,
];

/** Answers by command: rm blocks, curl asks, crash fails (fail_closed guard), the rest allow. */
const executor: HookExecutor = (hook, event) => {
  const command = String((event as { tool_input?: { command?: string } }).tool_input?.command);
  const answer =
    hook.name === 'guard' && command.startsWith('rm')
      ? results.block('no rm')
      : hook.name === 'guard' && command === 'crash'
        ? results.fail('exception', 'guard crashed')
        : hook.name === 'asker' && command.startsWith('curl')
          ? results.ask({ reason: 'network' })
          : results.allow();
  return fakeExecutor({ [hook.name]: of(answer) })(hook, event);
};

/** The page's loop, verbatim but for `deps` and the events. */
const loop = (events$: Observable<EventInput>, deps: ReturnType<typeof testDeps>) =>
  events$.pipe(
    parseLines(),
    admitEvents({ now: () => new Date(0), cwd: () => '/' }),
    matchHooks(registry),
    concatMap((job) =>
      job.kind === 'rejected'
        ? []
        : from(job.chain).pipe(runHooks(job.event, deps), stopOnBlock(), foldDecision(job.chain)),
    ),
  );

describe("docs/operators.md's loop", () => {
  it('shows the operators this test runs', () => {
    expect(page).toContain(
      'from(job.chain).pipe(runHooks(job.event, deps), stopOnBlock(), foldDecision(job.chain))',
    );
    expect(page).toMatch(/parseLines\(\)[\s\S]*admitEvents\([\s\S]*matchHooks\(registry\)/);
  });

  it('gives the decisions hookPipeline gives, event for event (a rejected input has none)', () => {
    const scheduler = createTestScheduler();
    const deps = testDeps(scheduler, executor);
    const verdicts: string[] = [];
    loop(from(events), deps)
      .pipe(
        filter((step) => step.type === 'verdict'),
        map((step) => (step.type === 'verdict' ? `${step.verdict.decision}` : '')),
      )
      .subscribe((decision) => verdicts.push(decision));
    const decisions: string[] = [];
    hookPipeline(registry, deps)(from(events)).decisions$.subscribe((line) => decisions.push(line.decision));
    expect(verdicts).toEqual(['allow', 'block', 'ask', 'block']);
    expect(decisions).toEqual(verdicts);
  });

  it('an executor that throws: the loop errors, as the page says; hookPipeline answers the event', () => {
    expect(page).toContain('An executor that throws errors this loop');
    const throwing: HookExecutor = () => {
      throw new Error('executor broke');
    };
    const deps = testDeps(createTestScheduler(), throwing);
    let failed: unknown;
    loop(of(tool('ls')), deps)
      .pipe(
        toArray(),
        catchError((error: unknown) => {
          failed = error;
          return of([]);
        }),
      )
      .subscribe();
    expect(failed).toMatchObject({ message: 'executor broke' });
    const decisions: string[] = [];
    hookPipeline(
      registry,
      deps,
    )(of(tool('ls'))).decisions$.subscribe((line) =>
      decisions.push(`${line.decision}:${line.hooks.map((hook) => hook.outcome).join(',')}`),
    );
    expect(decisions).toEqual(['block:exception,skipped,skipped']);
  });
});
