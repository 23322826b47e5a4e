import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, lastValueFrom, of, toArray } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/events/codecs.js';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor, resultOnly } from '../../src/exec/index.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks } from '../../src/registry/define.js';
import type { CommandHook } from '../../src/registry/hook.js';
import type { ProcessSpec } from '../../src/exec/process/spawn.js';
import {
  CLOSE,
  EXIT,
  frame,
  frameReader,
  NOT_STARTED,
  SPAWN,
  STARTED,
} from '../../src/exec/helper/spawn-protocol.js';
import { commandHook } from '../../src/testing/index.js';
import { allProcesses, isGone, liveGroupMembers, openFds, procStat, waitFor } from '../../bench/procfs.js';

/*
 * The spawn helper (issue 13 item 2, docs/execution.md "The spawn helper"): hook processes started
 * by a small resident process instead of by forking the host. Same results and the same process
 * lifetime as a direct spawn; nothing left running when the host or the helper dies.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const HOST = fileURLToPath(new URL('../fixtures/hosts/helper-host.mjs', import.meta.url));
const MODE_HOST = fileURLToPath(new URL('../fixtures/hosts/mode-host.mjs', import.meta.url));
const IDLE_HOST = fileURLToPath(new URL('../fixtures/hosts/idle-host.mjs', import.meta.url));
const SESSION_HOST = fileURLToPath(new URL('../fixtures/hosts/session-idle-host.mjs', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const scratch = mkdtempSync(join(tmpdir(), 'cosh-helper-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const scratchFile = (name: string) => join(scratch, `${name}-${(files += 1)}`);

/** Processes to kill whatever a test did (pids, and groups as negative numbers). */
const leftovers = new Set<number>();
afterEach(() => {
  for (const target of leftovers) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

const event = (overrides: Record<string, unknown> = {}): HookEvent => {
  const decoded = decodeEvent(
    {
      hook_event_name: 'PreToolUse',
      session_id: 'helper',
      cwd: scratch,
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
      ...overrides,
    },
    { now: () => new Date(Date.UTC(2026, 0, 1)), cwd: () => scratch },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

const hook = (command: string, options: Partial<Omit<CommandHook, 'kind' | 'command'>> = {}): CommandHook =>
  // The resolved hook's own fields (timeoutMs, failClosed…) over a hook built the defineHooks way; the
  // command as given, even one defineHooks would refuse (a NUL byte), to test the executor with it.
  ({ ...commandHook(options.name ?? 'helper-hook'), command, ...options });

const viaHelper = processExecutor({ spawnHelper: 'always', killGraceMs: 200 });
const direct = processExecutor({ spawnHelper: 'never', killGraceMs: 200 });

/** Spawn helpers that are children of this process (there is one per host process). */
const helpersOf = (parent: number) =>
  allProcesses().filter((stat) => {
    if (stat.ppid !== parent) return false;
    try {
      return readFileSync(`/proc/${stat.pid}/cmdline`, 'utf8').includes('spawn-helper.js');
    } catch {
      return false;
    }
  });

const oneHelperOf = async (parent: number): Promise<number> => {
  let found: number[] = [];
  await waitFor(() => (found = helpersOf(parent).map((stat) => stat.pid)).length === 1, 5000);
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** Waits for a line "<group> <grandchild pid>" in `file`, as the hostile fixtures write it. */
const groupAndGrandchild = async (file: string): Promise<[number, number]> => {
  let pair: number[] = [];
  await waitFor(() => {
    try {
      pair = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    } catch {
      return false;
    }
    return pair.length === 2 && pair.every(Number.isInteger);
  }, 5000);
  expect(pair).toHaveLength(2);
  leftovers.add(-pair[0]!);
  return [pair[0]!, pair[1]!];
};

describe('spawn helper: the same results as a direct spawn', () => {
  it.each<[string, string, Partial<CommandHook>]>([
    ['ok: allow (sh script)', fixture('allow.sh'), {}],
    ['ok: block with the event read from stdin (python3)', `python3 ${fixture('block.py')}`, {}],
    ['ok: ask (node)', `node ${fixture('ask.js')}`, {}],
    ['ok: inline sh with shell syntax', `cat >/dev/null; echo '{"decision":"allow"}' | cat`, {}],
    ['exit: non-zero with a stderr line', fixture('exit2.sh'), {}],
    ['invalid_output', fixture('invalid-json.sh'), {}],
    ['invalid UTF-8 replaced', fixture('invalid-utf8.sh'), {}],
    ['output_too_large (8 MB from node)', `node ${fixture('big-output.js')}`, {}],
    ['signal: killed', fixture('killed.sh'), {}],
    ['spawn: not found', join(scratch, 'no-such-hook'), {}],
    ['spawn: not executable', fixture('not-executable.sh'), {}],
    ['spawn: sh says not found', 'no-such-command-anywhere "--flag"', {}],
    ['environment and cwd (node)', `node ${fixture('env-cwd.js')}`, { env: { TEAM: 'platform' } }],
    ['100 MB of stderr, then a failure', fixture('hostile/stderr-flood.sh'), {}],
  ])('%s', async (_name, command, options) => {
    const through = (executor: typeof direct) =>
      firstValueFrom(executor(hook(command, options), event()).pipe(resultOnly()));
    const expected = await through(direct);
    expect(await through(viaHelper)).toStrictEqual(expected);
  });

  it('the progress notices are the same once started: stderr first line, then exited, then the result', async () => {
    const command = `echo 'first line' >&2; echo more >&2; echo '{"decision":"allow"}'`;
    const all = (executor: typeof direct) => lastValueFrom(executor(hook(command), event()).pipe(toArray()));
    const expected = await all(direct);
    expect(expected).toStrictEqual([
      { progress: 'stderr', firstLine: 'first line' },
      { progress: 'exited' },
      { outcome: 'ok', output: { decision: 'allow' } },
    ]);
    // Through the helper the start is reported later: the hook's deadline starts then.
    expect(await all(viaHelper)).toStrictEqual([
      { progress: 'queued', waitingFor: 'its process to start' },
      { progress: 'started' },
      ...expected,
    ]);
  });

  it('a timeout through the pipeline, a fail_closed block and the next event: the same decisions', async () => {
    const registry = defineHooks({
      PreToolUse: [
        { name: 'slow', command: `echo 'still thinking' >&2; sleep 10`, timeout: 300, fail_closed: true },
      ],
      PostToolUse: [{ name: 'after', command: fixture('allow.sh') }],
    });
    const decide = async (executor: typeof direct) => {
      const post = { ...event(), hook_event_name: 'PostToolUse', tool_response: 'done' } as HookEvent;
      const lines = await lastValueFrom(
        hookPipeline(registry, defaultDeps(executor))(of(event(), post)).decisions$.pipe(toArray()),
      );
      // Everything but the hooks' durations.
      return lines.map((line) => ({
        decision: line.decision,
        reason: line.reason,
        hooks: line.hooks.map(({ duration_ms: _duration, ...report }) => report),
      }));
    };
    const expected = await decide(direct);
    expect(expected[0]).toMatchObject({ decision: 'block', reason: 'still thinking' });
    expect(await decide(viaHelper)).toStrictEqual(expected);
  });

  it('a 1 MB event to a hook that never reads it, and a hook that reads it whole', async () => {
    const big = event({ tool_input: { command: 'x'.repeat(1024 * 1024) } });
    const run = (executor: typeof direct, command: string) =>
      firstValueFrom(executor(hook(command), big).pipe(resultOnly()));
    const early = fixture('hostile/early-exit.sh');
    expect(await run(viaHelper, early)).toStrictEqual(await run(direct, early));
    const count = `wc -c | { read n; echo "{\\"reason\\":\\"$n\\"}"; }`;
    const counted = await run(viaHelper, count);
    expect(counted).toStrictEqual(await run(direct, count));
    expect(counted).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'none', reason: String(JSON.stringify(big).length + 1) },
    });
  });
});

describe('spawn helper: process lifetime', () => {
  it('cancellation kills the whole group: SIGTERM, then SIGKILL for a grandchild that ignores it', async () => {
    const pidFile = scratchFile('cancel');
    const subscription = viaHelper(
      hook(fixture('hostile/sleeps-with-grandchild.sh'), { env: { PID_FILE: pidFile } }),
      event(),
    ).subscribe();
    const [group, grandchild] = await groupAndGrandchild(pidFile);
    expect(liveGroupMembers(group).length).toBeGreaterThanOrEqual(2);
    subscription.unsubscribe();
    expect(await waitFor(() => isGone(grandchild) && liveGroupMembers(group).length === 0, 5000)).toBe(true);
  });

  it('a host killed with SIGKILL while a hook runs: the helper kills the group and exits', async () => {
    const pidFile = scratchFile('host-kill');
    const host = spawn(process.execPath, [HOST, fixture('hostile/sleeps-with-grandchild.sh')], {
      env: { ...process.env, PID_FILE: pidFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    leftovers.add(host.pid!);
    const [group, grandchild] = await groupAndGrandchild(pidFile);
    const helper = await oneHelperOf(host.pid!);
    leftovers.add(helper);
    expect(procStat(grandchild)?.pgrp).toBe(group);
    // The hook's processes are the helper's, not the host's: the host being gone orphans nothing.
    expect(procStat(group)?.ppid).toBe(helper);
    host.kill('SIGKILL');
    expect(
      await waitFor(
        () => isGone(helper) && isGone(grandchild) && liveGroupMembers(group).length === 0,
        10_000,
      ),
    ).toBe(true);
  });

  it('the helper killed mid-run: hooks in flight fail and their groups die; the next hook starts a fresh helper', async () => {
    const executor = processExecutor({ spawnHelper: 'always', killGraceMs: 200 });
    // A helper of this process that is certainly up (the tests above may have started it already).
    expect(
      await firstValueFrom(executor(hook(fixture('allow.sh')), event()).pipe(resultOnly())),
    ).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow' },
    });
    const helper = await oneHelperOf(process.pid);
    const files = [scratchFile('lost-1'), scratchFile('lost-2')];
    const running = files.map((pidFile) =>
      firstValueFrom(
        executor(
          hook(fixture('hostile/sleeps-with-grandchild.sh'), { env: { PID_FILE: pidFile } }),
          event(),
        ).pipe(resultOnly()),
      ),
    );
    const groups = await Promise.all(files.map(groupAndGrandchild));
    process.kill(helper, 'SIGKILL');
    const results = await Promise.all(running);
    for (const result of results) {
      expect(result).toStrictEqual({
        outcome: 'spawn',
        message: 'hook process lost: the spawn helper exited by signal SIGKILL while the hook ran',
      });
    }
    for (const [group, grandchild] of groups) {
      expect(await waitFor(() => isGone(grandchild) && liveGroupMembers(group).length === 0, 5000)).toBe(
        true,
      );
    }
    expect(
      await firstValueFrom(executor(hook(fixture('allow.sh')), event()).pipe(resultOnly())),
    ).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow' },
    });
    const fresh = await oneHelperOf(process.pid);
    expect(fresh).not.toBe(helper);
  });

  it('an idle helper does not keep its host alive: a host that ran a hook exits by itself', async () => {
    const host = spawn(process.execPath, [IDLE_HOST, fixture('allow.sh')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    leftovers.add(host.pid!);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    host.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    host.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await new Promise<number | null>((resolve) => host.on('close', resolve));
    expect({ code, stderr: Buffer.concat(err).toString() }).toStrictEqual({ code: 0, stderr: '' });
    expect(JSON.parse(Buffer.concat(out).toString())).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow' },
    });
  });
});

describe('spawn helper: a host using the library exits by itself', () => {
  it('a session and a dispatcher never closed, every hook through the helper: the host exits after its last decision, and the helper with it', async () => {
    const parents = scratchFile('parents');
    const host = spawn(
      process.execPath,
      [SESSION_HOST, `echo $PPID >> '${parents}'; cat >/dev/null; echo '{"decision":"allow"}'`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    leftovers.add(host.pid!);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    host.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    host.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await new Promise<number | null>((resolve) => host.on('close', resolve));
    expect({
      code,
      stderr: Buffer.concat(err).toString(),
      stdout: Buffer.concat(out).toString(),
    }).toStrictEqual({
      code: 0,
      stderr: '',
      stdout: '["allow","allow"]\n',
    });
    // Both hooks were started by one helper (not the host), which ends with its host.
    const helpers = [...new Set(readFileSync(parents, 'utf8').trim().split('\n').map(Number))];
    expect(helpers).toHaveLength(1);
    expect(helpers[0]).not.toBe(host.pid);
    leftovers.add(helpers[0]!);
    expect(await waitFor(() => isGone(helpers[0]!), 5000)).toBe(true);
  });
});

describe.each(['always', 'never'] as const)('spawnHelper %s: nothing leaks', (mode) => {
  it('a cancelled hook gives its slot back: with maxProcesses 1, the next hook runs', async () => {
    const executor = processExecutor({ spawnHelper: mode, maxProcesses: 1, killGraceMs: 100 });
    for (let round = 0; round < 3; round++) {
      await new Promise<void>((resolve) => {
        const subscription = executor(hook(`echo started >&2; sleep 10`), event()).subscribe((emission) => {
          if ('progress' in emission && emission.progress === 'stderr') {
            queueMicrotask(() => subscription.unsubscribe());
            resolve();
          }
        });
      });
    }
    const next = firstValueFrom(executor(hook(fixture('allow.sh')), event()).pipe(resultOnly()));
    const bound = new Promise((resolve) =>
      setTimeout(() => resolve('still waiting for a slot'), 10_000).unref(),
    );
    expect(await Promise.race([next, bound])).toStrictEqual({ outcome: 'ok', output: { decision: 'allow' } });
  });

  it('400 hooks, 4 at a time, with exits, bad output and cancellations: no descriptor or process left in the host or the helper', async () => {
    const executor = processExecutor({ spawnHelper: mode, killGraceMs: 100 });
    const ok = hook(fixture('allow.sh'));
    await firstValueFrom(executor(ok, event()).pipe(resultOnly()));
    const spawner = mode === 'always' ? await oneHelperOf(process.pid) : process.pid;
    const helpers = new Set(helpersOf(process.pid).map((stat) => stat.pid));
    const children = () => allProcesses().filter((stat) => stat.ppid === spawner && !helpers.has(stat.pid));
    // Settle: hooks of earlier tests may still be reaped.
    await waitFor(() => children().length === 0, 5000);
    const before = { host: openFds('self'), spawner: openFds(spawner) };
    const kinds = [
      ok,
      hook(fixture('exit2.sh')),
      hook(fixture('invalid-json.sh')),
      hook(`echo started >&2; sleep 10`),
    ];
    const outcomes = new Map<string, number>();
    const one = async (index: number) => {
      const kind = kinds[index % 10 === 9 ? 3 : index % 10 === 8 ? 1 : index % 10 === 7 ? 2 : 0]!;
      if (kind === kinds[3]) {
        // Cancelled once it has started (its stderr line came): the group is killed.
        await new Promise<void>((resolve) => {
          const subscription = executor(kind, event()).subscribe((emission) => {
            if ('progress' in emission && emission.progress === 'stderr') {
              queueMicrotask(() => subscription.unsubscribe());
              outcomes.set('cancelled', (outcomes.get('cancelled') ?? 0) + 1);
              resolve();
            }
          });
        });
        return;
      }
      const result = await firstValueFrom(executor(kind, event()).pipe(resultOnly()));
      outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
    };
    for (let start = 0; start < 400; start += 4) {
      await Promise.all([0, 1, 2, 3].map((offset) => one(start + offset)));
    }
    expect(Object.fromEntries(outcomes)).toStrictEqual({
      ok: 280,
      exit: 40,
      invalid_output: 40,
      cancelled: 40,
    });
    // The cancelled groups get their SIGKILL after the 100 ms grace.
    expect(await waitFor(() => children().filter((stat) => stat.state !== 'Z').length === 0, 5000)).toBe(
      true,
    );
    expect(
      await waitFor(() => openFds('self') === before.host && openFds(spawner) === before.spawner, 5000),
    ).toBe(true);
    expect(new Set(helpersOf(process.pid).map((stat) => stat.pid))).toStrictEqual(helpers);
  }, 120_000);
});

describe('spawn helper: when it is used', () => {
  it("'auto' uses it once the host's resident memory reaches spawnHelperMinRss, 'never' does not", async () => {
    const run = (options: Parameters<typeof processExecutor>[0]) => {
      const pidFile = scratchFile('which');
      return firstValueFrom(
        processExecutor(options)(hook(`echo $PPID > '${pidFile}'; echo '{}'`), event()).pipe(resultOnly()),
      ).then(() => Number(readFileSync(pidFile, 'utf8')));
    };
    // The hook goes through sh -c: its parent is whoever spawned it.
    expect(await run({ spawnHelper: 'never' })).toBe(process.pid);
    expect(await run({ spawnHelper: 'auto', spawnHelperMinRss: 0 })).toBe(await oneHelperOf(process.pid));
  });

  /** Runs mode-host.mjs and returns what it printed. */
  const modeHost = async (ballastMb: number, minRss?: number) => {
    const host = spawn(process.execPath, [MODE_HOST, String(ballastMb), String(minRss ?? 'default')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    leftovers.add(host.pid!);
    const out: Buffer[] = [];
    host.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    const code = await new Promise<number | null>((resolve) => host.on('close', resolve));
    expect(code).toBe(0);
    return JSON.parse(Buffer.concat(out).toString()) as { host: number; rssMb: number; hookParent: number };
  };

  it("by default ('auto', 256 MiB): a small host spawns directly, a host over 256 MiB of RSS through the helper", async () => {
    const small = await modeHost(0);
    expect(small.rssMb).toBeLessThan(256);
    expect(small.hookParent).toBe(small.host);
    const large = await modeHost(320);
    expect(large.rssMb).toBeGreaterThanOrEqual(256);
    expect(large.hookParent).not.toBe(large.host);
    // The helper was the hook's parent; it is gone with its host.
    expect(await waitFor(() => isGone(large.hookParent), 5000)).toBe(true);
    const lowered = await modeHost(0, 1);
    expect(lowered.hookParent).not.toBe(lowered.host);
  });
});

describe('spawn helper: its wire', () => {
  const HELPER = fileURLToPath(new URL('../../dist/src/exec/helper/spawn-helper.js', import.meta.url));

  it('a spawn request that is not JSON is answered NOT_STARTED for its id, and the helper goes on', async () => {
    const helper = spawn(process.execPath, [HELPER], { stdio: ['pipe', 'pipe', 'pipe'] });
    leftovers.add(helper.pid!);
    const frames: { type: number; id: number; payload: string }[] = [];
    let stderr = '';
    helper.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    helper.stdout.on(
      'data',
      frameReader((type, id, payload) => frames.push({ type, id, payload: payload.toString('utf8') })),
    );
    const exited = new Promise<number | null>((resolve) => helper.on('close', resolve));
    helper.stdin.write(frame(SPAWN, 7, '{"file": "/bin/sh", '));
    const spec: ProcessSpec = { file: '/bin/sh', args: ['-c', 'exit 3'], cwd: scratch, env: {} };
    helper.stdin.write(frame(SPAWN, 8, JSON.stringify(spec)));
    await waitFor(() => frames.some((f) => f.id === 8 && f.type === CLOSE), 5000);
    helper.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    const notStarted = frames.filter((f) => f.id === 7);
    expect(notStarted).toHaveLength(1);
    expect(notStarted[0]!.type).toBe(NOT_STARTED);
    expect(JSON.parse(notStarted[0]!.payload)).toStrictEqual({
      message: expect.stringMatching(/^spawn request is not JSON: /),
    });
    expect(frames.filter((f) => f.id === 8).map((f) => f.type)).toStrictEqual([STARTED, EXIT, CLOSE]);
    expect(JSON.parse(frames.find((f) => f.id === 8 && f.type === EXIT)!.payload)).toStrictEqual({
      code: 3,
      signal: null,
    });
  });
});
