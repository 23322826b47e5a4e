import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isGone, liveGroupMembers, sleep, waitFor } from '../../bench/procfs.js';

/**
 * Signals to `cosh-hooks run` (and `fire`) while hooks run (spec §6): SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT kill the running hook groups, every decision already made was written, the process
 * exits with 128 + the signal number, and a second signal while it stops kills the groups at once.
 * Drives the built binary (`npm test` builds first).
 */

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const HOOKS = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first`);

const root = mkdtempSync(join(tmpdir(), 'cosh-signals-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const systemExtensions = join(root, 'system-extensions');
mkdirSync(home, { recursive: true });
mkdirSync(systemExtensions, { recursive: true });
const configPath = join(root, 'config.toml');
writeFileSync(
  configPath,
  `[[hooks.PreToolUse]]
name = "quick"
matcher = "^Quick$"
command = ${JSON.stringify(`cat >/dev/null; echo '{"decision":"allow","reason":"quick"}'`)}

[[hooks.PreToolUse]]
name = "sleeper"
matcher = "^Sleep$"
command = ${JSON.stringify(join(HOOKS, 'hostile', 'sleeps-with-grandchild.sh'))}
timeout = 60000

[[hooks.PreToolUse]]
name = "stubborn"
matcher = "^Stubborn$"
command = ${JSON.stringify(join(HOOKS, 'hostile', 'ignores-sigterm-with-grandchild.sh'))}
timeout = 60000

[[hooks.PreToolUse]]
name = "stubborn-short"
matcher = "^StubbornShort$"
command = ${JSON.stringify(join(HOOKS, 'hostile', 'ignores-sigterm-with-grandchild.sh'))}
timeout = 1500
`,
);

/** Exit statuses for a stop by signal: 128 + the signal number. */
const STATUS = { SIGHUP: 129, SIGINT: 130, SIGQUIT: 131, SIGTERM: 143 } as const;

const started = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
});

let runs = 0;

/** Starts `cosh-hooks run`, collecting stdout lines as they come. */
const startRun = (
  extra: readonly string[] = [],
  command: readonly string[] = ['run'],
  nodeFlags: readonly string[] = [],
) => {
  runs += 1;
  const pidFile = join(root, `pids-${runs}`);
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      BIN,
      ...command,
      '--config',
      configPath,
      '--home',
      home,
      '--system-extensions-dir',
      systemExtensions,
      ...extra,
    ],
    { env: { ...process.env, PID_FILE: pidFile } },
  );
  started.add(child);
  child.stdin.on('error', () => undefined);
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  /** "<pgid> <grandchild pid>" per running sleeper, once its grandchild is set up. */
  const sleepers = (): { pgid: number; grandchild: number }[] => {
    try {
      return readFileSync(pidFile, 'utf8')
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const [pgid, grandchild] = line.split(' ').map(Number);
          return { pgid: pgid ?? NaN, grandchild: grandchild ?? NaN };
        });
    } catch {
      return [];
    }
  };
  return { child, lines, stderr: () => stderr + partial, exited, sleepers, pidFile };
};

type Tool = 'Quick' | 'Sleep' | 'Stubborn' | 'StubbornShort';

const event = (tool: Tool, id: string, session = 'signals') =>
  `${JSON.stringify({ hook_event_name: 'PreToolUse', session_id: session, tool_name: tool, tool_use_id: id, tool_input: {} })}\n`;

const decisionsOf = (lines: readonly Record<string, unknown>[]) =>
  lines.filter((line) => line['type'] === 'hook_decision');

describe('cosh-hooks run under SIGINT and SIGTERM', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s while a hook with a grandchild runs: group killed, the 50 decided events written, exit < 2 s',
    async (signal) => {
      const run = startRun();
      const quick = Array.from({ length: 50 }, (_, i) => event('Quick', `q${i + 1}`)).join('');
      // Stdin stays open: the host is still talking when it is interrupted.
      run.child.stdin.write(
        `${quick}${event('Sleep', 'hang')}${event('Quick', 'after-1')}${event('Quick', 'after-2')}`,
      );

      // Sequential: once the sleeper runs, events 1..50 are decided.
      expect(await waitFor(() => run.sleepers().length === 1, 10_000)).toBe(true);
      const [{ pgid, grandchild }] = run.sleepers() as [{ pgid: number; grandchild: number }];
      expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);

      const signalledAt = Date.now();
      run.child.kill(signal);
      const { code, at } = await run.exited;
      expect(at - signalledAt).toBeLessThan(2000);
      expect(code).toBe(STATUS[signal]);

      const decisions = decisionsOf(run.lines);
      expect(decisions.map((line) => [line['seq'], line['tool_use_id'], line['decision']])).toStrictEqual(
        Array.from({ length: 50 }, (_, i) => [i + 1, `q${i + 1}`, 'allow']),
      );
      // Each decision came after its hook's notification, and nothing was written for the sleeper.
      expect(run.lines).toHaveLength(100);
      expect(run.lines.filter((line) => line['type'] === 'stream_event')).toHaveLength(50);

      expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 1000)).toBe(true);
      expect(isGone(grandchild)).toBe(true);
      expect(run.stderr()).toBe('');
    },
  );

  it('SIGTERM with --concurrency per-session and two sessions hanging: both groups killed', async () => {
    const run = startRun(['--concurrency', 'per-session']);
    run.child.stdin.write(
      event('Sleep', 'a-hang', 'session-a') +
        event('Sleep', 'b-hang', 'session-b') +
        event('Quick', 'c1', 'session-c') +
        event('Quick', 'c2', 'session-c') +
        event('Quick', 'a-after', 'session-a'),
    );
    expect(await waitFor(() => run.sleepers().length === 2, 10_000)).toBe(true);
    expect(await waitFor(() => decisionsOf(run.lines).length === 2, 5000)).toBe(true);
    const groups = run.sleepers();
    for (const { pgid } of groups) expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);

    const signalledAt = Date.now();
    run.child.kill('SIGTERM');
    const { code, at } = await run.exited;
    expect(at - signalledAt).toBeLessThan(2000);
    expect(code).toBe(143);
    expect(decisionsOf(run.lines).map((line) => [line['seq'], line['tool_use_id']])).toStrictEqual([
      [3, 'c1'],
      [4, 'c2'],
    ]);
    for (const { pgid, grandchild } of groups) {
      expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 1000)).toBe(true);
      expect(isGone(grandchild)).toBe(true);
    }
  });

  it('SIGINT while idle (every event answered, stdin still open): exits at once with everything written', async () => {
    const run = startRun();
    run.child.stdin.write(event('Quick', 'only'));
    expect(await waitFor(() => decisionsOf(run.lines).length === 1, 5000)).toBe(true);
    await sleep(50);
    const signalledAt = Date.now();
    run.child.kill('SIGINT');
    const { code, at } = await run.exited;
    expect(at - signalledAt).toBeLessThan(1000);
    expect(code).toBe(130);
    expect(decisionsOf(run.lines)).toMatchObject([{ seq: 1, tool_use_id: 'only', decision: 'allow' }]);
  });
});

describe('cosh-hooks run and fire under SIGHUP, SIGQUIT and repeated signals', () => {
  /** Waits for the stubborn hook's group, checks it is alive, and returns it. */
  const stubbornGroup = async (run: ReturnType<typeof startRun>) => {
    expect(await waitFor(() => run.sleepers().length === 1, 10_000)).toBe(true);
    const [group] = run.sleepers() as [{ pgid: number; grandchild: number }];
    expect(liveGroupMembers(group.pgid).length).toBeGreaterThanOrEqual(2);
    return group;
  };

  const expectGone = async ({ pgid, grandchild }: { pgid: number; grandchild: number }) => {
    expect(await waitFor(() => liveGroupMembers(pgid).length === 0, 1000)).toBe(true);
    expect(isGone(grandchild)).toBe(true);
  };

  it.each(['SIGHUP', 'SIGQUIT', 'SIGTERM'] as const)(
    '%s while a hook that ignores SIGTERM runs with a grandchild: group gone, status 128 + n, earlier decisions written',
    async (signal) => {
      const run = startRun();
      run.child.stdin.write(event('Quick', 'q1') + event('Stubborn', 'hang') + event('Quick', 'after'));
      const group = await stubbornGroup(run);
      run.child.kill(signal);
      const { code } = await run.exited;
      expect(code).toBe(STATUS[signal]);
      expect(decisionsOf(run.lines).map((line) => [line['seq'], line['tool_use_id']])).toStrictEqual([
        [1, 'q1'],
      ]);
      await expectGone(group);
      expect(run.stderr()).toBe('');
    },
  );

  it.each([
    'SIGUSR2',
    'SIGALRM',
    'SIGVTALRM',
    'SIGXCPU',
    'SIGPWR',
    'SIGSYS',
    'SIGSTKFLT',
    'SIGIO',
    'SIGTRAP',
  ] as const)(
    'every other signal whose default ends a process, %s: group gone, status 128 + n, earlier decisions written',
    async (signal) => {
      const run = startRun();
      run.child.stdin.write(event('Quick', 'q1') + event('Stubborn', 'hang'));
      const group = await stubbornGroup(run);
      run.child.kill(signal);
      const { code, signal: killedBy } = await run.exited;
      expect([code, killedBy]).toStrictEqual([128 + constants.signals[signal], null]);
      expect(decisionsOf(run.lines).map((line) => [line['seq'], line['tool_use_id']])).toStrictEqual([
        [1, 'q1'],
      ]);
      await expectGone(group);
      expect(run.stderr()).toBe('');
    },
  );

  it('a crash of the process (an uncaught exception) while a hook runs: the group is killed on the way out', async () => {
    const crash = join(root, 'crash.mjs');
    // Preloaded into cosh-hooks: once the test says the hook's group is up, an exception nothing catches.
    writeFileSync(
      crash,
      `import { existsSync } from 'node:fs';
const timer = setInterval(() => {
  if (existsSync(\`\${process.env.PID_FILE}.crash\`)) {
    clearInterval(timer);
    throw new Error('simulated engine crash');
  }
}, 20);
timer.unref();
`,
    );
    const run = startRun([], ['run'], ['--import', crash]);
    run.child.stdin.write(event('Stubborn', 'hang'));
    const group = await stubbornGroup(run);
    writeFileSync(`${run.pidFile}.crash`, '');
    const { code } = await run.exited;
    expect(code).toBe(1);
    expect(run.stderr()).toContain('simulated engine crash');
    await expectGone(group);
  });

  it('a signal something in the process already listens to (a preloaded probe on SIGUSR2) is left to it: the run goes on', async () => {
    const probe = join(root, 'probe.mjs');
    writeFileSync(probe, `process.on('SIGUSR2', () => process.stderr.write('probe saw SIGUSR2\\n'));\n`);
    const run = startRun([], ['run'], ['--import', probe]);
    run.child.stdin.write(event('Quick', 'q1'));
    expect(await waitFor(() => decisionsOf(run.lines).length === 1, 10_000)).toBe(true);
    run.child.kill('SIGUSR2');
    expect(await waitFor(() => run.stderr().includes('probe saw SIGUSR2'), 10_000)).toBe(true);
    run.child.stdin.end(event('Quick', 'q2'));
    const { code, signal } = await run.exited;
    expect([code, signal]).toStrictEqual([0, null]);
    expect(decisionsOf(run.lines).map((line) => line['tool_use_id'])).toStrictEqual(['q1', 'q2']);
  });

  it('SIGPROF is left to V8: a run under node --cpu-prof answers all 3,000 events and exits 0', async () => {
    const run = startRun([], ['run'], ['--cpu-prof', `--cpu-prof-dir=${join(root, 'profiles')}`]);
    run.child.stdin.end('{"hook_event_name":"Stop","session_id":"s"}\n'.repeat(3000));
    const { code } = await run.exited;
    const lines = run.lines.length;
    expect([code, lines]).toStrictEqual([0, 3000]);
  });

  it.each(['SIGINT', 'SIGHUP'] as const)(
    'a second %s 100 ms after the first: the group is killed at once and the run exits with the first status',
    async (second) => {
      const run = startRun();
      run.child.stdin.write(event('Stubborn', 'hang'));
      const group = await stubbornGroup(run);
      run.child.kill('SIGINT');
      await sleep(100);
      run.child.kill(second);
      const { code } = await run.exited;
      expect(code).toBe(130);
      await expectGone(group);
      expect(decisionsOf(run.lines)).toStrictEqual([]);
    },
  );

  it.each(['SIGHUP', 'SIGQUIT'] as const)('fire under %s: group gone, status 128 + n', async (signal) => {
    const run = startRun([], ['fire', 'PreToolUse', '--tool', 'Stubborn']);
    const group = await stubbornGroup(run);
    run.child.kill(signal);
    const { code } = await run.exited;
    expect(code).toBe(STATUS[signal]);
    await expectGone(group);
  });

  it('fire with a second SIGINT 100 ms after the first: group gone, status 130', async () => {
    const run = startRun([], ['fire', 'PreToolUse', '--tool', 'Stubborn']);
    const group = await stubbornGroup(run);
    run.child.kill('SIGINT');
    await sleep(100);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    await expectGone(group);
  });

  it('a host that dies (stdin closed abruptly) while a hook runs: the hook still gets its timeout, its decision is written, nothing is left', async () => {
    const run = startRun();
    run.child.stdin.write(event('Quick', 'q1') + event('StubbornShort', 'hang'));
    const group = await stubbornGroup(run);
    run.child.stdin.destroy();
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(
      decisionsOf(run.lines).map((line) => [
        line['seq'],
        line['tool_use_id'],
        line['decision'],
        (line['hooks'] as { outcome: string }[]).map((hook) => hook.outcome),
      ]),
    ).toStrictEqual([
      [1, 'q1', 'allow', ['ok']],
      [2, 'hang', 'none', ['timeout']],
    ]);
    await expectGone(group);
  });
});
