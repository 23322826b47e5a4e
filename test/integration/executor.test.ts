import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, lastValueFrom, of, Subject, toArray } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventInput, HookEvent } from '../../src/events/codecs.js';
import { decodeEvent } from '../../src/events/decode.js';
import {
  processExecutor,
  isProgress,
  isResult,
  resultOnly,
  type HookEmission,
} from '../../src/exec/index.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import type { HookResult } from '../../src/protocol/result.js';
import { defineHooks } from '../../src/registry/define.js';
import type { CommandHook } from '../../src/registry/hook.js';
import { commandHook } from '../../src/testing/index.js';
import { isGone } from '../../bench/procfs.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const scratch = mkdtempSync(join(tmpdir(), 'cosh-exec-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let pidFiles = 0;
const pidFile = () => join(scratch, `pid-${(pidFiles += 1)}`);

/** A path as one sh word whatever it holds (a TMPDIR may contain spaces). */
const shWord = (path: string): string => `'${path.replaceAll("'", `'\\''`)}'`;

const event = (overrides: Record<string, unknown> = {}): HookEvent => {
  const decoded = decodeEvent(
    {
      hook_event_name: 'PreToolUse' as const,
      session_id: 'sess-42',
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
  ({ ...commandHook(options.name ?? 'test-hook'), command, ...options });

const executor = processExecutor({ killGraceMs: 200 });
const run = (command: string, options: Partial<Omit<CommandHook, 'kind' | 'command'>> = {}, ev = event()) =>
  firstValueFrom(executor(hook(command, options), ev).pipe(resultOnly()));

/** Processes the tests must clean up even when an assertion failed. */
const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitFor = async (check: () => boolean, withinMs: number): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(20);
  }
  return check();
};

const readPid = async (file: string): Promise<number> => {
  let pid = NaN;
  await waitFor(() => {
    try {
      pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    } catch {
      return false;
    }
    return Number.isInteger(pid);
  }, 3000);
  expect(Number.isInteger(pid)).toBe(true);
  leftovers.add(pid);
  return pid;
};

describe('processExecutor: decisions', () => {
  it.each<[string, string, HookResult]>([
    ['allow (sh)', 'allow.sh', { outcome: 'ok', output: { decision: 'allow' } }],
    [
      'block with the event read from stdin (python3)',
      'block.py',
      { outcome: 'ok', output: { decision: 'block', reason: 'blocked Bash: rm -rf build' } },
    ],
    [
      'ask (node)',
      'ask.js',
      {
        outcome: 'ok',
        output: {
          decision: 'ask',
          systemMessage: 'confirm Bash?',
          hookSpecificOutput: { additional_context: 'asked by node' },
        },
      },
    ],
    ['deny alias', 'deny.sh', { outcome: 'ok', output: { decision: 'block', reason: 'denied by alias' } }],
    [
      'non-ASCII output',
      'non-ascii.py',
      {
        outcome: 'ok',
        output: { decision: 'block', reason: '拒否 — ünïcödé 🚫', systemMessage: 'Ελληνικά' },
      },
    ],
    [
      'invalid UTF-8 is replaced, not fatal',
      'invalid-utf8.sh',
      { outcome: 'ok', output: { decision: 'allow', reason: 'bad \uFFFD\uFFFD bytes' } },
    ],
  ])('%s', async (_name, script, expected) => {
    expect(await run(fixture(script))).toStrictEqual(expected);
  });

  it('runs a command with shell syntax through /bin/sh', async () => {
    expect(await run(`cat >/dev/null; echo '{"decision":"allow"}' | cat`)).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow' },
    });
  });

  it('is cold: nothing runs before subscribe, and each subscription runs the hook again', async () => {
    const file = join(scratch, 'cold-count');
    const hook$ = executor(hook(`echo x >> ${shWord(file)}`), event());
    await sleep(100);
    expect(() => readFileSync(file)).toThrow();
    await lastValueFrom(hook$);
    await lastValueFrom(hook$);
    expect(readFileSync(file, 'utf8')).toBe('x\nx\n');
  });

  it('emits the exit notice, then exactly one result, then completes', async () => {
    const all = await lastValueFrom(executor(hook(fixture('allow.sh')), event()).pipe(toArray()));
    expect(all).toStrictEqual([{ progress: 'exited' }, { outcome: 'ok', output: { decision: 'allow' } }]);
  });

  it('reports the first stderr line as it comes, before the result', async () => {
    const all = await lastValueFrom(
      executor(
        hook(`printf '\\n  first' >&2; sleep 0.05; echo ' line' >&2; echo second >&2; exit 1`),
        event(),
      ).pipe(toArray()),
    );
    expect(all.filter(isProgress)).toStrictEqual([
      { progress: 'stderr', firstLine: 'first' },
      { progress: 'stderr', firstLine: 'first line' },
      { progress: 'exited' },
    ]);
    expect(all.filter(isResult)).toHaveLength(1);
  });
});

describe('processExecutor: environment', () => {
  const seen = async (ev: HookEvent) => {
    const result = await run(fixture('env-cwd.js'), { name: 'env-hook', env: { HOOK_SETTING: 'on' } }, ev);
    if (result.outcome !== 'ok') throw new Error(`hook failed: ${JSON.stringify(result)}`);
    return result.output.hookSpecificOutput as Record<string, unknown>;
  };

  it('sees the event as one JSON line on stdin, the COSH_* variables, the hook env and the host env', async () => {
    const ev = event({ session_id: 'sess-env', tool_input: { command: 'echo "quoted" $HOME; rm *' } });
    const output = await seen(ev);
    expect(output['env']).toStrictEqual({
      COSH_HOOK_EVENT: 'PreToolUse',
      COSH_HOOK_NAME: 'env-hook',
      COSH_SESSION_ID: 'sess-env',
      COSH_RUNTIME: 'cosh-hooks',
      COSH_HOOKS_VERSION: (
        JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
          version: string;
        }
      ).version,
      COSH_WORKSPACE_PATH: process.cwd(),
      COSH_EXTENSION_PATH: null,
      HOOK_SETTING: 'on',
      PATH_IS_SET: true,
    });
    expect(output['stdin_lines']).toBe(1);
    expect(output['event']).toStrictEqual(ev);
  });

  it('runs in the event cwd when it is an existing folder', async () => {
    expect((await seen(event({ cwd: FIXTURES })))['cwd']).toBe(FIXTURES.replace(/\/$/, ''));
  });

  it.each([
    ['a missing folder', join(scratch, 'does-not-exist')],
    ['a file', fixture('allow.sh')],
  ])('falls back to the host cwd when the event cwd is %s', async (_name, cwd) => {
    expect((await seen(event({ cwd })))['cwd']).toBe(process.cwd());
  });
});

describe('processExecutor: failures', () => {
  it('exit 1', async () => {
    expect(await run(fixture('exit1.sh'))).toStrictEqual({
      outcome: 'exit',
      message: 'exited with code 1',
      exitCode: 1,
    });
  });

  it('exit 2 keeps stderr and names its first line', async () => {
    expect(await run(fixture('exit2.sh'))).toStrictEqual({
      outcome: 'exit',
      message: 'exited with code 2: secret detected in command',
      stderr: 'secret detected in command\nsecond line of details\n',
      exitCode: 2,
    });
  });

  it('killed by a signal', async () => {
    expect(await run(fixture('killed.sh'))).toStrictEqual({
      outcome: 'signal',
      message: 'killed by signal SIGKILL: about to die',
      stderr: 'about to die\n',
      signal: 'SIGKILL',
    });
  });

  it('a hook killed by a signal under sh -c is reported as sh reports it: exit 128+9', async () => {
    expect(await run(`${fixture('killed.sh')}; exit $?`)).toStrictEqual({
      outcome: 'exit',
      message: 'exited with code 137: about to die',
      stderr: 'about to die\nKilled\n',
      exitCode: 137,
    });
  });

  it('missing command, run directly', async () => {
    expect(await run('cosh-no-such-command --flag')).toStrictEqual({
      outcome: 'spawn',
      message: 'could not start: cosh-no-such-command: not found',
    });
  });

  it('missing command, run through sh (exit 127)', async () => {
    expect(await run('cosh-no-such-command < /dev/null')).toStrictEqual({
      outcome: 'spawn',
      message: 'could not start: /bin/sh: 1: cosh-no-such-command: not found',
      stderr: '/bin/sh: 1: cosh-no-such-command: not found\n',
      exitCode: 127,
    });
  });

  it('not executable, run directly', async () => {
    expect(await run(fixture('not-executable.sh'))).toStrictEqual({
      outcome: 'spawn',
      message: `could not start: ${fixture('not-executable.sh')}: Permission denied`,
    });
  });

  it('not executable, run through sh (exit 126)', async () => {
    const line = `/bin/sh: 1: ${fixture('not-executable.sh')}: Permission denied`;
    expect(await run(`${fixture('not-executable.sh')} < /dev/null`)).toStrictEqual({
      outcome: 'spawn',
      message: `could not start: ${line}`,
      stderr: `${line}\n`,
      exitCode: 126,
    });
  });

  it('a command Node cannot even hand to spawn (NUL byte) is a spawn failure, not an error', async () => {
    const result = await run('echo a\0b');
    expect(result.outcome).toBe('spawn');
    expect(result).toHaveProperty('message', expect.stringMatching(/^could not start: .*null bytes/));
  });

  it('invalid JSON', async () => {
    expect(await run(fixture('invalid-json.sh'))).toStrictEqual({
      outcome: 'invalid_output',
      message: 'invalid output: stdout is not JSON: "this is not {json"',
      exitCode: 0,
    });
  });

  it('8 MB of output is output_too_large, and the hook is killed rather than read to the end', async () => {
    const started = Date.now();
    expect(await run(fixture('big-output.js'))).toStrictEqual({
      outcome: 'output_too_large',
      message: 'output exceeded 1 MiB',
      signal: 'SIGKILL',
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('keeps only the stderr tail, led by the first line the tail lost', async () => {
    const small = processExecutor({ stderrLimit: 1024 });
    const result = await firstValueFrom(
      small(hook(`i=0; while [ $i -lt 300 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 3`), event()).pipe(
        resultOnly(),
      ),
    );
    expect(result.outcome).toBe('exit');
    const stderr = 'stderr' in result ? (result.stderr ?? '') : '';
    expect(stderr.startsWith('line 0\n')).toBe(true);
    const tail = stderr.slice('line 0\n'.length);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(1024);
    expect(tail.endsWith('line 298\nline 299\n')).toBe(true);
    expect(tail).not.toContain('line 1\n');
    expect(result).toMatchObject({ message: 'exited with code 3: line 0' });
  });
});

describe('processExecutor: stdin', () => {
  const bigEvent = () => event({ tool_input: { command: 'x'.repeat(1024 * 1024) } });

  it('a hook that closes stdin without reading a 1 MB event neither hangs nor crashes the host', async () => {
    expect(await run(fixture('ignores-stdin.sh'), {}, bigEvent())).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow', reason: 'did not read stdin' },
    });
  });

  it('a hook that exits without reading a 1 MB event', async () => {
    expect(await run(`echo '{"decision":"ask"}'`, {}, bigEvent())).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'ask' },
    });
  });

  it('a hook that reads the whole 1 MB event', async () => {
    expect(await run(`wc -c | tr -d ' ' >&2; exit 4`, {}, bigEvent())).toMatchObject({
      outcome: 'exit',
      stderr: `${JSON.stringify(bigEvent()).length + 1}\n`,
    });
  });
});

describe('processExecutor: process lifetime', () => {
  it('takes the decision when the hook exits, leaving its background child (holding stdout) alive', async () => {
    const file = pidFile();
    const started = Date.now();
    const result = await run(fixture('background-child.sh'), { env: { PID_FILE: file }, timeoutMs: 5000 });
    const elapsed = Date.now() - started;
    expect(result).toStrictEqual({
      outcome: 'ok',
      output: { decision: 'allow', reason: 'logged in background' },
    });
    expect(elapsed).toBeLessThan(1000);
    const child = await readPid(file);
    expect(isGone(child)).toBe(false);
  });

  it('unsubscribing mid-hook kills the whole group: hook first (SIGTERM), then a grandchild ignoring SIGTERM', async () => {
    const file = pidFile();
    const patient = processExecutor({ killGraceMs: 500 });
    const subscription = patient(
      hook(fixture('grandchild.sh'), { env: { PID_FILE: file } }),
      event(),
    ).subscribe();
    const grandchild = await readPid(file);
    expect(isGone(grandchild)).toBe(false);
    subscription.unsubscribe();
    await sleep(100);
    expect(isGone(grandchild)).toBe(false);
    expect(await waitFor(() => isGone(grandchild), 2000)).toBe(true);
  });

  it('unsubscribing kills a hook that ignores SIGTERM (SIGKILL after the grace)', async () => {
    const file = pidFile();
    const subscription = executor(
      hook(fixture('ignores-sigterm.sh'), { env: { PID_FILE: file } }),
      event(),
    ).subscribe();
    const pid = await readPid(file);
    subscription.unsubscribe();
    expect(await waitFor(() => isGone(pid), 2000)).toBe(true);
  });

  it('unsubscribing stops a plain hanging hook and emits nothing', async () => {
    const file = pidFile();
    const values: HookEmission[] = [];
    const subscription = executor(hook(`echo $$ > ${shWord(file)}; exec sleep 30`), event()).subscribe(
      (value) => values.push(value),
    );
    const pid = await readPid(file);
    subscription.unsubscribe();
    expect(await waitFor(() => isGone(pid), 1000)).toBe(true);
    expect(values).toStrictEqual([]);
  });
});

describe('processExecutor through hookPipeline', () => {
  const decide = async (hooks: Parameters<typeof defineHooks>[0], ev = event()) => {
    const registry = defineHooks(hooks, 'config');
    const { decisions$ } = hookPipeline(registry, defaultDeps(processExecutor({ killGraceMs: 200 })))(of(ev));
    return firstValueFrom(decisions$);
  };

  it('a timeout in the stream kills the hook group, grandchild included', async () => {
    const file = pidFile();
    const started = Date.now();
    const decision = await decide({
      PreToolUse: [
        { name: 'hangs', command: fixture('grandchild.sh'), env: { PID_FILE: file }, timeout: 400 },
        { name: 'after', command: fixture('allow.sh') },
      ],
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(decision).toMatchObject({
      decision: 'allow',
      hooks: [
        { name: 'hangs', outcome: 'timeout', message: 'timed out after 400 ms' },
        { name: 'after', outcome: 'ok', decision: 'allow' },
      ],
    });
    const grandchild = await readPid(file);
    expect(await waitFor(() => isGone(grandchild), 2000)).toBe(true);
  });

  it('fail_closed: exit 2 blocks with the first stderr line as reason, and stops the chain', async () => {
    const decision = await decide({
      PreToolUse: [
        { name: 'allows', command: fixture('allow.sh') },
        { name: 'guard', command: fixture('exit2.sh'), fail_closed: true },
        { name: 'never', command: fixture('ask.js') },
      ],
    });
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'secret detected in command',
      hooks: [
        { name: 'allows', outcome: 'ok' },
        { name: 'guard', outcome: 'exit' },
        { name: 'never', outcome: 'skipped' },
      ],
    });
  });

  it('fail_closed on a timeout blocks with a sentence naming the failure', async () => {
    const decision = await decide({
      PreToolUse: [{ name: 'slow', command: 'sleep 5', timeout: 300, fail_closed: true }],
    });
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'hook "slow" failed closed: timed out after 300 ms',
    });
  });

  it('fail_closed on a timeout blocks with the first stderr line the hook printed', async () => {
    const decision = await decide({
      PreToolUse: [
        {
          name: 'hang',
          command: 'echo "policy server unreachable" >&2; sleep 5',
          timeout: 300,
          fail_closed: true,
        },
      ],
    });
    expect(decision).toMatchObject({ decision: 'block', reason: 'policy server unreachable' });
    expect(decision.hooks[0]).toMatchObject({ outcome: 'timeout' });
  });

  it('a hook that exits just before its deadline keeps its decision, though the drain crosses the deadline', async () => {
    // The hook answers and exits at ~250 ms, leaving a child that holds stdout: the result waits
    // for the 100 ms drain, past the 320 ms deadline. It must not become a timeout, and the
    // background child (not killed after a normal exit) must survive.
    const file = pidFile();
    const decision = await decide({
      PreToolUse: [
        {
          name: 'late',
          command: `cat >/dev/null; sleep 0.25; (sleep 5 & echo $! > ${shWord(`${file}.child`)}; wait) & echo '{"decision":"block","reason":"decided in time"}'`,
          timeout: 320,
        },
      ],
    });
    expect(decision).toMatchObject({ decision: 'block', reason: 'decided in time' });
    expect(decision.hooks[0]).toMatchObject({ outcome: 'ok' });
    const child = await readPid(`${file}.child`);
    expect(isGone(child)).toBe(false);
    process.kill(child, 'SIGKILL');
  });

  it('unsubscribing the pipeline mid-hook leaves no process behind', async () => {
    const file = pidFile();
    const input = new Subject<EventInput>();
    const registry = defineHooks(
      { PreToolUse: [{ name: 'hangs', command: fixture('grandchild.sh'), env: { PID_FILE: file } }] },
      'config',
    );
    const subscription = hookPipeline(
      registry,
      defaultDeps(processExecutor({ killGraceMs: 200 })),
    )(input).output$.subscribe();
    input.next(event());
    const grandchild = await readPid(file);
    subscription.unsubscribe();
    expect(await waitFor(() => isGone(grandchild), 2000)).toBe(true);
  });
});
