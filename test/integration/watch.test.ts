import { processExecutor } from '../../src/executors.js';
import type { EventInput } from '../../src/events/codecs.js';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { filter, firstValueFrom, Subject, type Subscription } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookPipeline, defaultDeps, formatProblem, type HookDecision } from '../../src/index.js';
import type { LoadOptions, LoadResult } from '../../src/config/load.js';
import { watchHooks } from '../../src/config/watch.js';
import { planTrust, recordTrust } from '../../src/config/trust-workspace.js';
import type { Registry } from '../../src/registry/hook.js';

/*
 * Real files edited while real hook processes answer events: a change is swapped in between
 * events, an event that started finishes on its configuration, an invalid change keeps the last
 * good one, a changed project script is untrusted at once. No timing assertion: every wait is for
 * a file or a value.
 */

let root: string;
let home: string;
let ws: string;
let userFile: string;
const subscriptions: Subscription[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cosh-watch-'));
  home = join(root, 'home');
  ws = join(root, 'ws');
  userFile = join(home, '.copilot-shell', 'config.toml');
  mkdirSync(ws, { recursive: true });
});
afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  rmSync(root, { recursive: true, force: true });
});

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
/** A hook table whose command answers allow with `reason` = its name. */
const answering = (name: string, command = `printf '{"decision":"allow","reason":"${name}"}'`) =>
  `[[hooks.PreToolUse]]\nname = "${name}"\ncommand = ${JSON.stringify(command)}\n`;
const options: () => LoadOptions = () => ({
  home,
  workspace: ws,
  systemConfigPath: null,
  systemExtensionsDir: null,
});

const waitForFile = async (path: string) => {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 10));
};

/** An engine on the watched configuration, with a way to send an event and await its decision. */
const engine = () => {
  const results: LoadResult[] = [];
  const changed = new Subject<LoadResult>();
  const registry$ = new Subject<Registry>();
  const loads = watchHooks(options(), { settleMs: 20 });
  const input = new Subject<EventInput>();
  const decisions = new Subject<HookDecision>();
  let seq = 0;
  const streams = hookPipeline(registry$, defaultDeps(processExecutor({ workspace: ws })))(input);
  subscriptions.push(streams.decisions$.subscribe(decisions));
  subscriptions.push(
    loads.subscribe((result) => {
      results.push(result);
      if (result.ok) registry$.next(result.registry);
      changed.next(result);
    }),
  );
  return {
    results,
    /** Resolves with the next load that `accept` accepts. */
    nextLoad: (accept: (result: LoadResult) => boolean = () => true) =>
      firstValueFrom(changed.pipe(filter(accept))),
    decide: (id: string): Promise<HookDecision> => {
      seq += 1;
      const wanted = seq;
      const answer = firstValueFrom(decisions.pipe(filter((decision) => decision.seq === wanted)));
      input.next({
        hook_event_name: 'PreToolUse' as const,
        session_id: 's',
        tool_name: 'shell',
        tool_use_id: id,
        tool_input: {},
      });
      return answer;
    },
  };
};

const hooksOf = (decision: HookDecision) => decision.hooks.map((hook) => hook.name);

describe('watchHooks with real files while events flow', () => {
  it('a valid change is swapped in between events; an invalid one keeps the last good configuration', async () => {
    write(userFile, answering('v1'));
    const e = engine();
    expect((await e.decide('1')).reason).toBe('v1');

    const reloaded = e.nextLoad();
    write(userFile, answering('v2'));
    expect((await reloaded).ok).toBe(true);
    expect((await e.decide('2')).reason).toBe('v2');

    const rejected = e.nextLoad();
    write(userFile, `${answering('v3')}timeout = 0\n`);
    const bad = await rejected;
    expect(bad.ok ? [] : bad.errors).toEqual([
      {
        file: userFile,
        line: 4,
        path: 'hooks.PreToolUse[0].timeout',
        message: 'expected an integer 1..600000, got 0',
      },
    ]);
    expect((await e.decide('3')).reason).toBe('v2');
  });

  it('an event that started finishes on the configuration it started with; the next one runs on the new one', async () => {
    const started = join(root, 'started');
    const release = join(root, 'release');
    // `slow` says it started, then waits for the test to release it.
    const slow = `touch '${started}'; while [ ! -f '${release}' ]; do sleep 0.02; done; printf '{"decision":"allow","reason":"slow"}'`;
    write(userFile, answering('slow', slow) + answering('after'));
    const e = engine();
    const first = e.decide('1');
    await waitForFile(started);
    const reloaded = e.nextLoad();
    write(userFile, answering('fresh'));
    await reloaded;
    writeFileSync(release, '');
    const second = e.decide('2');
    expect(hooksOf(await first)).toEqual(['slow', 'after']);
    expect(hooksOf(await second)).toEqual(['fresh']);
  });

  it('no event is lost across many changes: every event gets exactly one decision, each from one configuration', async () => {
    write(userFile, answering('c0'));
    const e = engine();
    const answers: HookDecision[] = [];
    for (let round = 1; round <= 5; round += 1) {
      const reloaded = e.nextLoad();
      write(userFile, answering(`c${round}`) + answering(`c${round}b`));
      // Events sent while the change is being picked up.
      const pending = [e.decide(`${round}a`), e.decide(`${round}b`)];
      await reloaded;
      answers.push(...(await Promise.all(pending)));
    }
    answers.push(await e.decide('last'));
    expect(answers.map((decision) => decision.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for (const decision of answers) {
      const names = hooksOf(decision);
      // Either the old file's one hook or the new file's two hooks of one round, never a mix.
      expect(names.length === 1 ? /^c\d$/.test(names[0]!) : names[0] + 'b' === names[1]).toBe(true);
    }
    expect(hooksOf(answers.at(-1)!)).toEqual(['c5', 'c5b']);
  });

  it('a tampered trusted fail_closed guard blocks under watch exactly as in a plain run, and the reload says why', async () => {
    const script = join(ws, '.copilot-shell', 'guard.sh');
    const project = join(ws, '.copilot-shell', 'config.toml');
    write(script, `printf '{"decision":"allow","reason":"guarded"}'\n`);
    write(
      project,
      `${answering('guard', 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/guard.sh"')}fail_closed = true\n`,
    );
    recordTrust(planTrust({ ...options() }));
    const e = engine();
    expect((await e.decide('1')).reason).toBe('guarded');
    const reloaded = e.nextLoad();
    appendFileSync(script, 'rm -rf /\n');
    const result = await reloaded;
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.untrusted).toEqual([]);
    expect(result.warnings.map(formatProblem)).toEqual([
      `${project}:1: hooks.PreToolUse[0]: project hook "guard" changed since it was trusted (script ${script} changed since it was trusted (run cosh-hooks trust)): the version loaded before stays, its scripts checked before each start, as in a run without --watch`,
    ]);
    const after = await e.decide('2');
    expect({ decision: after.decision, hooks: after.hooks.map((hook) => [hook.name, hook.outcome]) }).toEqual(
      {
        decision: 'block',
        hooks: [['guard', 'spawn']],
      },
    );
  });

  it('a deleted or unreadable config keeps the last good one: its guard still blocks', async () => {
    write(
      userFile,
      `${answering('guard', `printf '{"decision":"block","reason":"no"}'`)}fail_closed = true\n`,
    );
    const e = engine();
    expect((await e.decide('1')).decision).toBe('block');
    const refused = e.nextLoad();
    rmSync(userFile);
    const result = await refused;
    expect(result.ok ? [] : result.errors.map(formatProblem)).toEqual([
      `${userFile}: deleted while followed: the last good configuration stays (restart to run without this file)`,
    ]);
    expect((await e.decide('2')).decision).toBe('block');
    const unreadable = e.nextLoad();
    mkdirSync(userFile);
    expect((await unreadable).ok).toBe(false);
    expect((await e.decide('3')).decision).toBe('block');
  });

  it('a reload that removes or weakens a guard is reported with file:line, and taken', async () => {
    const guard = (name: string, extra = '') =>
      `${answering(name, `printf '{"decision":"block","reason":"${name}"}'`)}fail_closed = true\ntimeout = 5000\n${extra}`;
    write(userFile, guard('a') + guard('b') + guard('c') + guard('d') + guard('e'));
    const e = engine();
    await e.decide('1');
    const reloaded = e.nextLoad();
    write(
      userFile,
      guard('a').replace('fail_closed = true\n', '') +
        guard('b').replace('fail_closed = true', 'fail_closed = false') +
        guard('c').replace('timeout = 5000', 'timeout = 1000') +
        guard('d', 'observe = true\n'),
    );
    const result = await reloaded;
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.weakened?.map(formatProblem)).toEqual([
      `${userFile}:1: hooks.PreToolUse[0]: reload weakens hook "a" (PreToolUse, config): fail_closed turned off`,
      `${userFile}:5: hooks.PreToolUse[1]: reload weakens hook "b" (PreToolUse, config): fail_closed turned off`,
      `${userFile}:10: hooks.PreToolUse[2]: reload weakens hook "c" (PreToolUse, config): timeout shortened from 5000 to 1000 ms`,
      `${userFile}:15: hooks.PreToolUse[3]: reload weakens hook "d" (PreToolUse, config): now an observer, it no longer decides`,
      `${userFile}:21: hooks.PreToolUse[4]: reload weakens hook "e" (PreToolUse, config): removed`,
    ]);
    for (const problem of result.weakened ?? []) expect(result.warnings).toContainEqual(problem);

    const off = e.nextLoad();
    write(userFile, `[hooks]\nenabled = false\n${guard('a')}`);
    const disabled = await off;
    expect(disabled.ok && disabled.weakened?.map(formatProblem)).toEqual([
      `${userFile}:3: hooks.PreToolUse[0]: reload weakens hook "a" (PreToolUse, config): turned off`,
      `${userFile}:5: hooks.PreToolUse[1]: reload weakens hook "b" (PreToolUse, config): removed`,
      `${userFile}:10: hooks.PreToolUse[2]: reload weakens hook "c" (PreToolUse, config): removed`,
    ]);
  });

  it('a file rewritten with the same content loads nothing', async () => {
    write(userFile, answering('same'));
    const e = engine();
    await e.decide('1');
    // Rewrite with identical text, then make a real change: the only reload is for the real one.
    write(userFile, answering('same'));
    const reloaded = e.nextLoad();
    write(userFile, answering('other'));
    await reloaded;
    expect(
      e.results.map((result) => (result.ok ? result.registry.PreToolUse.map((h) => h.name).join() : 'error')),
    ).toEqual(['same', 'other']);
  });
});
