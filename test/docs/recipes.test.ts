// The code of docs/recipes.md and README.md, kept here so the documentation cannot rot: if an
// example stops compiling or stops doing what the page says, this file fails.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filter, lastValueFrom, map, Subject, toArray, type Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import {
  concatRegistries,
  createDispatcher,
  defaultDeps,
  defineHooks,
  formatProblem,
  hookPipeline,
  loadHooks,
  registryOf,
  type HookDecision,
  type EventInput,
  type HookEvent,
} from 'cosh-hooks';
import type { HookResult } from 'cosh-hooks/executors';
import { commandHook, createTestScheduler, fakeExecutor, results, testDeps } from 'cosh-hooks/testing';

// --- recipes.md: testing your agent loop -------------------------------------------------------

/** The host's reaction to PreToolUse decisions: run the tool, or tell the model why not. */
const toolGate = (decisions$: Observable<HookDecision>) =>
  decisions$.pipe(
    filter((d) => d.hook_event_name === 'PreToolUse'),
    map((d) => (d.decision === 'block' ? `skip ${d.tool_use_id}: ${d.reason}` : `run ${d.tool_use_id}`)),
  );

const shell = (id: string, command: string): EventInput => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's1',
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

describe('recipes: testing your agent loop with cosh-hooks/testing', () => {
  it('runs the safe command, skips the blocked one, and never starts the audit hook after a block', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // What each hook does, by name: a cold observable of its result, in virtual time.
      const guard = (event: HookEvent) =>
        JSON.stringify(event).includes('rm -rf')
          ? cold('--(r|)', { r: results.block('Dangerous rm -rf command') })
          : cold('--(r|)', { r: results.allow() });
      const audit = cold('-(r|)', { r: results.none() });
      const registry = registryOf((event) =>
        event === 'PreToolUse' ? [commandHook('guard'), commandHook('audit')] : [],
      );
      const events$ = hot('-a------b', { a: shell('t1', 'ls'), b: shell('t2', 'rm -rf /') });

      const { decisions$ } = hookPipeline(
        registry,
        testDeps(scheduler, fakeExecutor({ guard, audit })),
      )(events$);

      //  frame 1: t1 arrives; guard answers at 3, audit at 4 → decision at 4
      //  frame 8: t2 arrives; guard blocks at 10 → decision at 10, audit never starts
      expectObservable(toolGate(decisions$)).toBe('----a-----b', {
        a: 'run t1',
        b: 'skip t2: Dangerous rm -rf command',
      });
      expectSubscriptions(audit.subscriptions).toBe(['---^!']);
    });
  });
});

describe('recipes: a hung hook in virtual time', () => {
  it('is cut at its timeout, unsubscribed there, and a fail_closed guard then blocks', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const hung = cold<HookResult>('-'); // never answers
      const registry = registryOf((event) =>
        event === 'PreToolUse' ? [commandHook('guard', { timeout: 3000, fail_closed: true })] : [],
      );
      const events$ = hot('a', { a: shell('t1', 'ls') });
      const { decisions$ } = hookPipeline(
        registry,
        testDeps(scheduler, fakeExecutor({ guard: hung })),
      )(events$);

      expectObservable(decisions$.pipe(map((d) => `${d.decision}: ${d.reason}`))).toBe('3000ms a', {
        a: 'block: hook "guard" failed closed: timed out after 3000 ms',
      });
      expectSubscriptions(hung.subscriptions).toBe(['^ 2999ms !']);
    });
  });
});

// --- recipes.md: in-process hooks; README.md: the two ways to drive the engine ---------------

describe('recipes: function hooks next to configured ones', () => {
  it('blocks sudo in-process, after the configured chain, and answers dispatch() in call order', async () => {
    const inline = defineHooks({
      PreToolUse: [
        {
          name: 'no-sudo',
          matcher: '^shell$',
          run: (event) =>
            'tool_input' in event && String(event.tool_input['command']).startsWith('sudo ')
              ? { decision: 'block', reason: 'no sudo here' }
              : undefined,
        },
      ],
      UserPromptSubmit: [
        { name: 'context', run: () => ({ hookSpecificOutput: { additional_context: 'repo: demo' } }) },
      ],
    });
    const configured = registryOf(() => []); // in an application: loadHooks(...).registry
    const registry = concatRegistries(configured, inline);
    // fakeExecutor runs unscripted function hooks in process; an application calls defaultDeps().
    const hooks = createDispatcher(registry, defaultDeps(fakeExecutor({})));
    const [sudo, ls, prompt] = await Promise.all([
      hooks.dispatch(shell('t1', 'sudo rm x')),
      hooks.dispatch(shell('t2', 'ls')),
      hooks.dispatch({ hook_event_name: 'UserPromptSubmit' as const, session_id: 's1', prompt: 'hi' }),
    ]);
    hooks.close();
    expect([sudo.decision?.decision, sudo.decision?.reason, sudo.decision?.hooks[0]?.source]).toEqual([
      'block',
      'no sudo here',
      'inline',
    ]);
    expect(ls.decision?.decision).toBe('none');
    expect(prompt.decision?.additional_context).toBe('repo: demo');
    await expect(hooks.dispatch(shell('t3', 'ls'))).rejects.toThrow('dispatcher is closed');
  });
});

describe('README: the library, reactive and promise style', () => {
  it('runs the example configuration through hookPipeline and createDispatcher', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cosh-readme-'));
    vi.stubEnv('AUDIT_LOG', join(scratch, 'audit.jsonl'));
    try {
      // As in the README, but with the example configuration instead of the user's.
      const loaded = loadHooks({
        configPath: fileURLToPath(new URL('../../examples/config.toml', import.meta.url)),
        home: scratch,
        systemExtensionsDir: scratch,
      });
      if (!loaded.ok) throw new Error(loaded.errors.map(formatProblem).join('\n'));
      const deps = defaultDeps();

      const events$ = new Subject<EventInput>();
      const { notifications$, decisions$ } = hookPipeline(loaded.registry, deps)(events$);
      const seen: string[] = [];
      notifications$.subscribe(({ event }) => seen.push(`[${event.hook_name}] ${event.message}`));
      const decided = lastValueFrom(decisions$.pipe(toArray()));
      events$.next({
        hook_event_name: 'PreToolUse' as const,
        session_id: 's1',
        tool_name: 'shell',
        tool_input: { command: 'ls' },
      });
      events$.next({
        hook_event_name: 'PreToolUse' as const,
        session_id: 's1',
        tool_name: 'shell',
        tool_input: { command: 'rm -rf ~' },
      });
      events$.complete();
      expect((await decided).map((d) => `${d.seq} ${d.decision}`)).toEqual(['1 allow', '2 block']);
      expect(seen).toEqual(['[security-guard] Command blocked by security policy']);
      // The audit logger is an observer: both calls are logged, the blocked one included, with
      // their decisions, by the time the run completes.
      expect(
        readFileSync(join(scratch, 'audit.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { decision: string }).decision),
      ).toEqual(['allow', 'block']);

      const dispatcher = createDispatcher(loaded.registry, deps);
      const stopped = await dispatcher.dispatch({ hook_event_name: 'Stop' as const, session_id: 's1' });
      expect(stopped.decision).toMatchObject({
        seq: 1,
        decision: 'none',
        hooks: [],
      });
      // An invalid event is answered with a value too: the README's `stopped.error`.
      const invalid = await dispatcher.dispatch({ hook_event_name: 'Stop' } as EventInput);
      expect(invalid).toEqual({
        error: {
          type: 'hook_error',
          index: 2,
          message: 'session_id: missing required field (expected a string)',
        },
        notifications: [],
      });
      dispatcher.close();
      expect(readFileSync(join(scratch, 'audit.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      vi.unstubAllEnvs();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

// --- recipes.md: moving an audit logger from the chain to an observer --------------------------

describe('recipes: the audit logger, moved from the chain to an observer', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  /** The TOML of the recipe, as the page shows it, cut at its "# After" comment. */
  const recipeToml = (): { before: string; after: string } => {
    const page = readFileSync(join(ROOT, 'docs', 'recipes.md'), 'utf8');
    const section = page.slice(page.indexOf('## Audit stream subscriber'));
    const toml = /```toml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const at = toml.indexOf('# After');
    return { before: toml.slice(0, at), after: toml.slice(at) };
  };
  const guard = [
    '[[hooks.PreToolUse]]',
    'name = "guard"',
    `command = "grep -q 'rm -rf' && printf '%s' '{\\"decision\\":\\"block\\",\\"reason\\":\\"no\\"}' || true"`,
    '',
  ].join('\n');

  const logged = async (hooks: string): Promise<{ decisions: string[]; log: string[] }> => {
    const scratch = mkdtempSync(join(tmpdir(), 'cosh-recipe-observer-'));
    vi.stubEnv('AUDIT_LOG', join(scratch, 'audit.jsonl'));
    try {
      const configPath = join(scratch, 'config.toml');
      writeFileSync(configPath, `${guard}\n${hooks}`);
      const loaded = loadHooks({ configPath, home: scratch, systemExtensionsDir: scratch });
      if (!loaded.ok) throw new Error(loaded.errors.map(formatProblem).join('\n'));
      const events$ = new Subject<EventInput>();
      const { decisions$ } = hookPipeline(loaded.registry, defaultDeps())(events$);
      const decided = lastValueFrom(decisions$.pipe(toArray()));
      for (const command of ['ls', 'rm -rf /']) events$.next({ ...shell(command, command), cwd: ROOT });
      events$.complete();
      const decisions = (await decided).map(
        (d) => `${d.tool_use_id} ${d.decision} [${d.hooks.map((h) => `${h.name}=${h.outcome}`).join(',')}]`,
      );
      const file = join(scratch, 'audit.jsonl');
      const log = existsSync(file)
        ? readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .map((line) => {
              const record = JSON.parse(line) as { tool_use_id: string; decision?: string };
              return `${record.tool_use_id} ${record.decision ?? '?'}`;
            })
        : [];
      return { decisions, log };
    } finally {
      vi.unstubAllEnvs();
      rmSync(scratch, { recursive: true, force: true });
    }
  };

  it('in the chain it is skipped for the blocked call; as an observer it logs both, with their decisions', async () => {
    const { before, after } = recipeToml();
    expect(after).toContain('observe = true');
    const chained = await logged(before);
    expect(chained.decisions).toEqual([
      'ls none [guard=ok,audit-log=ok]',
      'rm -rf / block [guard=ok,audit-log=skipped]',
    ]);
    expect(chained.log).toEqual(['ls ?']);
    const observed = await logged(after);
    expect(observed.decisions).toEqual(['ls none [guard=ok]', 'rm -rf / block [guard=ok]']);
    expect(observed.log).toEqual(['ls none', 'rm -rf / block']);
  });
});
