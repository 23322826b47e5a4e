import { spawn } from 'node:child_process';
import type { EventInput } from '../../src/events/codecs.js';
import { existsSync, readFileSync } from 'node:fs';
import { firstValueFrom, Subscription } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor, resultOnly } from '../../src/exec/index.js';
import { commandHookOf } from '../../src/registry/define.js';
import { BIN, finished, hookTable, jsonl, jsonLines, sandbox } from '../cli/helpers.js';
import { sleep } from '../../bench/procfs.js';

/**
 * spec §4.2: at most a bounded number of hook processes run at once (per-session concurrency
 * included), and when the system refuses a process or a pipe the hook waits and starts later,
 * within its own timeout; the engine never crashes on it.
 */

const box = sandbox('');
afterAll(() => box.remove());

/** `cosh-hooks run` under a lower limit of open files, with `input` on stdin. */
const runUnderLimit = (openFiles: number, args: readonly string[], input: string) => {
  // The limit and the binary go through sh as arguments, never pasted into its script.
  const child = spawn('/bin/sh', [
    '-c',
    'ulimit -n "$0"; shift; exec "$@"',
    String(openFiles),
    '_',
    process.execPath,
    BIN,
    'run',
    ...args,
  ]);
  child.stdin.on('error', () => undefined);
  const done = finished(child);
  child.stdin.end(input);
  return done;
};

const sessions = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    hook_event_name: 'PreToolUse' as const,
    session_id: `session-${index}`,
    tool_name: 'shell',
    tool_input: { command: 'ls' },
  }));

describe('cosh-hooks run with per-session concurrency under a low open-file limit', () => {
  const config = box.write(
    'slow-allow.toml',
    hookTable('PreToolUse', {
      name: 'slow-allow',
      command: `sleep 0.3; echo '{"decision":"allow"}'`,
      // Generous: this test is about never crashing and never failing a hook, not about speed.
      timeout: 120000,
    }),
  );
  const flags = [
    '--config',
    config,
    '--home',
    box.dir,
    '--system-extensions-dir',
    box.path('system-extensions'),
    '--concurrency',
    'per-session',
  ];

  // 128 open files hold the engine and about 30 hook processes (3 pipes each). (With 64, Node
  // itself fails now and then to load its modules at start-up, before any code of ours runs.)
  it.each([
    ['the default bound (32)', []],
    ['--max-processes 1000, so that the system refuses pipes', ['--max-processes', '1000']],
  ])(
    'ulimit -n 128, 100 events of 100 sessions, %s: exactly 100 decisions, all ok, exit 0',
    async (_what, extra) => {
      const result = await runUnderLimit(128, [...flags, ...extra], jsonl(...sessions(100)));
      expect({ code: result.code, stderr: result.stderr }).toStrictEqual({ code: 0, stderr: '' });
      const decisions = jsonLines(result.stdout).filter((line) => line['type'] === 'hook_decision');
      expect(decisions).toHaveLength(100);
      expect(decisions.map((line) => line['seq']).sort((a, b) => Number(a) - Number(b))).toStrictEqual(
        Array.from({ length: 100 }, (_, index) => index + 1),
      );
      for (const line of decisions) {
        expect(line).toMatchObject({ decision: 'allow', hooks: [{ name: 'slow-allow', outcome: 'ok' }] });
      }
    },
    180_000,
  );
});

describe('--max-processes bounds the hook processes running at once', () => {
  const SESSIONS = 21;
  const BOUND = 3;
  const log = box.path('overlap.log');
  // Each hook logs its start, then stays until it sees BOUND hooks running at once (or every hook
  // started), then logs its end. So the bound is reached for certain, without timing: if the
  // engine let more run, the log would show it.
  const script = box.write(
    'overlap.sh',
    [
      `echo "start $$" >> '${log}'`,
      'while :; do',
      `  s=$(grep -c '^start' '${log}'); e=$(grep -c '^end' '${log}')`,
      `  if [ $((s - e)) -ge ${BOUND} ] || [ "$s" -ge ${SESSIONS} ]; then break; fi`,
      '  sleep 0.01',
      'done',
      `echo "end $$" >> '${log}'`,
      `echo '{"decision":"allow"}'`,
      '',
    ].join('\n'),
  );
  const config = box.write(
    'overlap.toml',
    hookTable('PreToolUse', { name: 'overlap', command: `sh '${script}'`, timeout: 120000 }),
  );

  it(`${SESSIONS} sessions at once with --max-processes ${BOUND}: never more than ${BOUND} hooks running, and ${BOUND} reached`, async () => {
    const result = await runUnderLimit(
      1024,
      [
        '--config',
        config,
        '--home',
        box.dir,
        '--system-extensions-dir',
        box.path('system-extensions'),
        '--concurrency',
        'per-session',
        '--max-processes',
        String(BOUND),
      ],
      jsonl(...sessions(SESSIONS)),
    );
    expect(result.code).toBe(0);
    const decisions = jsonLines(result.stdout).filter((line) => line['type'] === 'hook_decision');
    expect(decisions.map((line) => line['decision'])).toStrictEqual(Array(SESSIONS).fill('allow'));
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2 * SESSIONS);
    let running = 0;
    let most = 0;
    for (const line of lines) {
      running += line.startsWith('start ') ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(BOUND);
    expect(new Set(lines.filter((line) => line.startsWith('start ')))).toHaveProperty('size', SESSIONS);
  }, 180_000);
});

describe('waiting for a slot', () => {
  const event = () => {
    const decoded = decodeEvent(
      { hook_event_name: 'PreToolUse' as const, session_id: 's', tool_name: 'shell', tool_input: {} },
      { now: () => new Date(0), cwd: () => box.dir },
    );
    if (!decoded.ok) throw new Error(decoded.error);
    return decoded.value;
  };
  const marking = (name: string) => commandHookOf({ name, command: `touch '${box.path(name)}'` }, 'config');

  it('unsubscribing while waiting cancels the wait: the hook never starts, and its place is not lost', async () => {
    const executor = processExecutor({ maxProcesses: 1 });
    const release = box.path('release');
    const holder = commandHookOf(
      { name: 'holder', command: `while [ ! -e '${release}' ]; do sleep 0.01; done` },
      'config',
    );
    const held = firstValueFrom(executor(holder, event()).pipe(resultOnly()));
    const waiting = new Subscription();
    waiting.add(executor(marking('cancelled'), event()).subscribe());
    const after = firstValueFrom(executor(marking('after'), event()).pipe(resultOnly()));
    await sleep(200);
    expect(existsSync(box.path('cancelled'))).toBe(false);
    waiting.unsubscribe();
    box.write('release', '');
    expect(await held).toStrictEqual({ outcome: 'ok', output: { decision: 'none' } });
    expect(await after).toStrictEqual({ outcome: 'ok', output: { decision: 'none' } });
    await sleep(200);
    expect(existsSync(box.path('after'))).toBe(true);
    expect(existsSync(box.path('cancelled'))).toBe(false);
  });

  it('a hook still waiting for a slot at its timeout is queue_timeout in the stream and never starts', async () => {
    const { hookPipeline, defaultDeps } = await import('../../src/pipeline/index.js');
    const { defineHooks } = await import('../../src/registry/define.js');
    const { lastValueFrom, of, toArray } = await import('rxjs');
    const release = box.path('release-2');
    const registry = defineHooks({
      PreToolUse: [
        { name: 'holder', command: `while [ ! -e '${release}' ]; do sleep 0.01; done`, timeout: 60000 },
      ],
      PostToolUse: [{ name: 'late', command: `touch '${box.path('late')}'`, timeout: 300 }],
    });
    const executor = processExecutor({ maxProcesses: 1 });
    const post = {
      ...event(),
      hook_event_name: 'PostToolUse' as const,
      session_id: 'other',
      tool_response: 'x',
    };
    const streams = hookPipeline(registry, defaultDeps(executor), { concurrency: 'per-session' })(
      of<EventInput[]>(event(), post as EventInput),
    );
    const lines = lastValueFrom(streams.decisions$.pipe(toArray()));
    await sleep(1000);
    box.write('release-2', '');
    const decisions = await lines;
    expect(
      decisions.map((line) => [line.session_id, line.hooks.map((hook) => [hook.name, hook.outcome])]),
    ).toStrictEqual([
      ['other', [['late', 'queue_timeout']]],
      ['s', [['holder', 'ok']]],
    ]);
    await sleep(200);
    expect(existsSync(box.path('late'))).toBe(false);
  });
});
