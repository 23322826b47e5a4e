import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom, lastValueFrom, Subject, type Subscription } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/events/decode.js';
import type { EventInput, HookEvent } from '../../src/events/codecs.js';
import { processExecutor, resultOnly, type PersistentHookOptions } from '../../src/exec/index.js';
import type { HookDecision } from '../../src/output/lines.js';
import type { HookResult } from '../../src/protocol/result.js';
import { createDispatcher } from '../../src/pipeline/dispatch.js';
import { createSession } from '../../src/pipeline/session.js';
import { defaultDeps, hookPipeline, type PipelineOptions } from '../../src/pipeline/pipeline.js';
import { defineHooks, type HookDefinition } from '../../src/registry/define.js';
import { killOwnedGroupsNow } from '../../src/exec/groups/groups.js';
import { COSH_CORE_VERSION, packageVersion } from '../../src/version.js';
import { allProcesses, groupAlive, isGone, sleep, waitFor } from '../../bench/procfs.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const KEEPER = `node ${join(FIXTURES, 'persistent.mjs')}`;
const scratch = mkdtempSync(join(tmpdir(), 'cosh-persistent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Process groups the tests must kill even when an assertion failed. */
const leftovers = new Set<number>();
const subscriptions: Subscription[] = [];
afterEach(() => {
  for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
  for (const pgid of leftovers) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

let files = 0;
const scratchFile = (name: string) => join(scratch, `${name}-${(files += 1)}`);

/** A path as one sh word whatever it holds (a TMPDIR may contain spaces). */
const shWord = (path: string): string => `'${path.replaceAll("'", `'\\''`)}'`;

const eventOf = (fields: Record<string, unknown>): HookEvent => {
  const decoded = decodeEvent(
    { hook_event_name: 'PreToolUse' as const, session_id: 's1', cwd: scratch, tool_name: 'Bash', ...fields },
    { now: () => new Date(Date.UTC(2026, 0, 1)), cwd: () => scratch },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

const keeper = (overrides: Partial<HookDefinition> = {}): HookDefinition =>
  ({ name: 'keeper', command: KEEPER, persistent: true, timeout: 5000, ...overrides }) as HookDefinition;

/** A decision and the failure/notification messages of its hooks, in order. */
type Answer = HookDecision & { readonly messages: readonly string[] };

/**
 * A long-lived run of the engine fed one event at a time, the way a host drives it:
 * `send` resolves with that event's decision and the messages of the notifications before it.
 */
const drive = (
  hooks: readonly HookDefinition[],
  options: PersistentHookOptions = {},
  pipeline: PipelineOptions = {},
) => {
  const input = new Subject<EventInput>();
  const waiting = new Map<number, (answer: Answer) => void>();
  const messages = new Map<string, string[]>();
  let seq = 0;
  const subscription = hookPipeline(
    defineHooks({ PreToolUse: hooks }),
    defaultDeps(processExecutor({ killGraceMs: 200, ...options })),
    pipeline,
  )(input).output$.subscribe((line) => {
    if (line.type === 'stream_event') {
      const key = line.event.tool_use_id ?? '';
      messages.set(key, [...(messages.get(key) ?? []), line.event.message]);
    } else if (line.type === 'hook_decision') {
      waiting.get(line.seq)?.({ ...line, messages: messages.get(line.tool_use_id ?? '') ?? [] });
    }
  });
  subscriptions.push(subscription);
  return {
    send: (toolInput: Record<string, unknown>, fields: Record<string, unknown> = {}) => {
      seq += 1;
      const answered = new Promise<Answer>((resolve) => waiting.set(seq, resolve));
      input.next({
        hook_event_name: 'PreToolUse' as const,
        session_id: 's1',
        cwd: scratch,
        tool_name: 'Bash',
        tool_use_id: `t${seq}`,
        tool_input: toolInput,
        ...fields,
      });
      return answered;
    },
    end: () => input.complete(),
    unsubscribe: () => subscription.unsubscribe(),
  };
};

const pidOf = (decision: HookDecision): number => {
  const pid = (decision.hook_specific_output as { pid?: unknown } | undefined)?.pid;
  if (typeof pid !== 'number') throw new Error(`no pid in ${JSON.stringify(decision)}`);
  leftovers.add(pid);
  return pid;
};

/** The hookSpecificOutput of a successful result (fails the test otherwise). */
const specificOf = <T>(result: HookResult): T => {
  if (result.outcome !== 'ok') throw new Error(`expected an answer, got ${result.message}`);
  return result.output.hookSpecificOutput as T;
};

const report = (decision: HookDecision) => decision.hooks[0];

/** Every process of the group (the persistent process leads its own) is gone. */
const groupGone = (pgid: number, withinMs = 3000) => waitFor(() => !groupAlive(pgid), withinMs);

describe('persistent hooks: one process, many events', () => {
  it('answers every event from the same process, in order, a line each', async () => {
    const run = drive([keeper()]);
    const first = await run.send({ action: 'pid' });
    const second = await run.send({ action: 'pid' });
    const third = await run.send({ action: 'block' });
    expect(first.decision).toBe('allow');
    expect(first.hook_specific_output).toEqual({ pid: pidOf(first), seen: 1 });
    expect(second.hook_specific_output).toEqual({ pid: pidOf(first), seen: 2 });
    expect(third).toMatchObject({ decision: 'block', reason: `blocked by ${pidOf(first)}` });
    expect(report(third)).toMatchObject({ name: 'keeper', outcome: 'ok', decision: 'block' });
  });

  it('takes an answer holding only the request id as pass-through', async () => {
    const run = drive([keeper()]);
    const decision = await run.send({ action: 'pass' });
    expect(decision.decision).toBe('none');
    expect(report(decision)).toMatchObject({ outcome: 'ok', decision: 'none' });
  });

  it('starts in the workspace with the hook env, COSH_HOOK_PERSISTENT=1 and no per-event variables', async () => {
    const workspace = mkdtempSync(join(scratch, 'workspace-'));
    const run = drive([keeper({ env: { TEAM: 'platform' } } as Partial<HookDefinition>)], { workspace });
    const decision = await run.send({ action: 'env' }, { cwd: '/' });
    expect(decision.hook_specific_output).toEqual({
      pid: pidOf(decision),
      seen: 1,
      cwd: workspace,
      persistent: '1',
      name: 'keeper',
      session: null,
      event: null,
      team: 'platform',
    });
  });

  it('defaults the workspace to the host cwd', async () => {
    const run = drive([keeper()]);
    const decision = await run.send({ action: 'env' });
    expect((decision.hook_specific_output as { cwd: string }).cwd).toBe(process.cwd());
  });

  it('starts at the first event that reaches it, not before', async () => {
    const log = scratchFile('boot');
    writeFileSync(log, '');
    const run = drive([keeper({ matcher: '^Edit$', env: { LOG: log } } as Partial<HookDefinition>)]);
    await run.send({ action: 'pid' }); // Bash: the matcher lets it through without the hook
    expect(readFileSync(log, 'utf8')).toBe('');
    await run.send({ action: 'pid' }, { tool_name: 'Edit' });
    expect(readFileSync(log, 'utf8')).toMatch(/^boot \d+\nstart 1\nend 1\n$/);
  });
});

describe('persistent hooks: failures', () => {
  it('times out, kills the whole group, and starts a fresh process for the next event', async () => {
    const run = drive([keeper({ timeout: 1500 })]);
    const before = await run.send({ action: 'child' });
    const pid = pidOf(before);
    const grandchild = (before.hook_specific_output as { child: number }).child;
    leftovers.add(grandchild);
    const late = await run.send({ action: 'hang' });
    expect(report(late)).toMatchObject({ outcome: 'timeout' });
    expect(await groupGone(pid)).toBe(true);
    expect(await waitFor(() => isGone(grandchild), 3000)).toBe(true);
    const after = await run.send({ action: 'pid' });
    expect(pidOf(after)).not.toBe(pid);
    expect(after.hook_specific_output).toEqual({ pid: pidOf(after), seen: 1 });
  });

  it('reports a process that exits before answering as exit, with its stderr line', async () => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const died = await run.send({ action: 'die', code: 3, stderr: '\n  cannot go on\nmore\n' });
    expect(report(died)).toMatchObject({ outcome: 'exit' });
    expect(died.decision).toBe('none');
    expect(died.messages).toEqual(['exited with code 3: cannot go on']);
    expect(await groupGone(pid)).toBe(true);
  });

  it('reports a clean exit before answering as exit, never as pass-through', async () => {
    const run = drive([keeper({ fail_closed: true })]);
    const died = await run.send({ action: 'die', code: 0 });
    expect(report(died)).toMatchObject({ outcome: 'exit' });
    expect(died).toMatchObject({
      decision: 'block',
      reason: 'hook "keeper" failed closed: exited with code 0 before answering',
    });
  });

  it('reports death by a signal as signal', async () => {
    const run = drive([{ name: 'selfkill', command: 'read line; kill -9 $$', persistent: true }]);
    const died = await run.send({ action: 'x' });
    expect(report(died)).toMatchObject({ outcome: 'signal' });
    expect(died.messages).toEqual(['killed by signal SIGKILL']);
  });

  it('gives invalid_output for an answer with the id but bad fields, and keeps the process', async () => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const bad = await run.send({ action: 'bad-fields' });
    expect(report(bad)).toMatchObject({
      outcome: 'invalid_output',
      message: 'invalid output: decision: unknown value "maybe" (expected allow, block, ask or none)',
    });
    const after = await run.send({ action: 'pid' });
    expect(after.hook_specific_output).toEqual({ pid, seen: 3 });
  });

  it.each([
    ['a line that is not JSON', 'bad', 'stdout is not JSON: "this is not JSON"'],
    ['a line of bytes that are not UTF-8', 'binary', 'stdout is not JSON: "\ufffd\ufffd{"'],
    ['an empty line', 'empty', 'an empty line'],
  ])('gives invalid_output for %s (it holds no id) and replaces the process', async (_what, action, why) => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const bad = await run.send({ action });
    expect(report(bad)).toMatchObject({
      outcome: 'invalid_output',
      message: `invalid output: ${why}; a line without this request's cosh_request_id answers nothing`,
    });
    expect(await groupGone(pid)).toBe(true);
    const after = await run.send({ action: 'pid' });
    expect(after.hook_specific_output).toEqual({ pid: pidOf(after), seen: 1 });
  });

  it('sends a huge event with line separators and control characters as one line', async () => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const text = `a\u2028b\u2029c\rd\ne\u0000f${'z'.repeat(3 * 1024 * 1024)}\r\n`;
    const answer = await run.send({ action: 'length', text });
    expect(answer.hook_specific_output).toEqual({ pid, seen: 2, length: text.length, tail: 'z\r\n' });
    expect((await run.send({ action: 'pid' })).hook_specific_output).toEqual({ pid, seen: 3 });
  });

  it('gives output_too_large for a line over 1 MiB and replaces the process', async () => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const huge = await run.send({ action: 'huge' });
    expect(report(huge)).toMatchObject({ outcome: 'output_too_large' });
    expect(await groupGone(pid)).toBe(true);
    const after = await run.send({ action: 'pid' });
    expect(pidOf(after)).not.toBe(pid);
  });

  it('replaces a process that writes a line nobody asked for', async () => {
    const run = drive([keeper()]);
    const answered = await run.send({ action: 'two-lines' });
    const pid = pidOf(answered);
    expect(report(answered)).toMatchObject({ outcome: 'ok' });
    expect(await groupGone(pid)).toBe(true);
    const after = await run.send({ action: 'pid' });
    expect(after.hook_specific_output).toEqual({ pid: pidOf(after), seen: 1 });
  });
});

describe('persistent hooks: an answer belongs to its request (cosh_request_id)', () => {
  const SHIFTY = `node ${join(FIXTURES, 'persistent-shifty.mjs')}`;
  const shifty = (mode: string, failClosed = false): HookDefinition =>
    ({
      name: 'guard',
      command: SHIFTY,
      persistent: true,
      fail_closed: failClosed,
      env: { MODE: mode },
    }) as HookDefinition;

  /** `ls` in one session, then `rm -rf /` in another: the decision of each, and its hook's outcome. */
  const lsThenRm = async (run: ReturnType<typeof drive>) => {
    const ls = await run.send({ command: 'ls' }, { session_id: 'alice' });
    const rm = await run.send({ command: 'rm -rf /' }, { session_id: 'bob' });
    return [ls, rm].map((answer) => [answer.decision, report(answer)?.outcome]);
  };

  it('an in-step guard: ls allowed, rm -rf / blocked (the control case)', async () => {
    expect(await lsThenRm(drive([shifty('')]))).toEqual([
      ['allow', 'ok'],
      ['block', 'ok'],
    ]);
  });

  it.each([
    // The banner arrives for the first request; each fresh process prints it again.
    [
      'banner',
      'a start-up banner that reads like an allow',
      [
        ['none', 'invalid_output'],
        ['none', 'invalid_output'],
      ],
    ],
    // ls's answer comes again while rm is in flight: rm fails, it never gets ls's allow.
    [
      'replay',
      'a duplicate of the previous answer',
      [
        ['allow', 'ok'],
        ['none', 'invalid_output'],
      ],
    ],
    [
      'first-id',
      "the first request's id echoed again",
      [
        ['allow', 'ok'],
        ['none', 'invalid_output'],
      ],
    ],
    [
      'no-id',
      'answers without an id',
      [
        ['none', 'invalid_output'],
        ['none', 'invalid_output'],
      ],
    ],
    // Two answers in one write: the first answers ls, the process is replaced, rm gets a fresh one.
    [
      'double',
      'two answers for one event',
      [
        ['allow', 'ok'],
        ['block', 'ok'],
      ],
    ],
  ])('%s (%s): rm -rf / never gets the allow meant for ls', async (mode, _what, expected) => {
    expect(await lsThenRm(drive([shifty(mode)]))).toEqual(expected);
  });

  it.each(['banner', 'replay', 'first-id', 'no-id'])(
    '%s under fail_closed: the request a stray line arrived for is blocked, with a reason saying why',
    async (mode) => {
      const run = drive([shifty(mode, true)]);
      await run.send({ command: 'ls' }, { session_id: 'alice' });
      const rm = await run.send({ command: 'rm -rf /' }, { session_id: 'bob' });
      expect(rm.decision).toBe('block');
      expect(rm.reason).toMatch(
        /^hook "guard" failed closed: invalid output: .*; a line without this request's cosh_request_id answers nothing$/,
      );
    },
  );

  it("sessions sharing the process, concurrently: each decision is its own event's", async () => {
    const run = drive([shifty('replay')], {}, { concurrency: 'per-session' });
    const answers = await Promise.all([
      run.send({ command: 'ls' }, { session_id: 'alice' }),
      run.send({ command: 'rm -rf /' }, { session_id: 'bob' }),
      run.send({ command: 'pwd' }, { session_id: 'carol' }),
      run.send({ command: 'rm -rf ~' }, { session_id: 'dave' }),
    ]);
    for (const answer of answers) {
      // An allow is only ever the allow of the event's own command.
      if (answer.decision === 'allow')
        expect(answer.reason).toBe(`fine: ${String(answer.tool_use_id === 't1' ? 'ls' : 'pwd')}`);
      if (answer.decision === 'block') expect(answer.reason).toMatch(/^refused: rm -rf /);
    }
    expect(answers[1]?.decision).not.toBe('allow');
    expect(answers[3]?.decision).not.toBe('allow');
  });

  it('an id echoed from the previous request answers nothing: invalid_output, the process replaced', async () => {
    const run = drive([keeper()]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    const echoed = await run.send({ action: 'previous-id' });
    expect(report(echoed)).toMatchObject({
      outcome: 'invalid_output',
      message:
        "invalid output: cosh_request_id is not this request's; a line without this request's cosh_request_id answers nothing",
    });
    expect(await groupGone(pid)).toBe(true);
    expect(report(await run.send({ action: 'pid' }))).toMatchObject({ outcome: 'ok' });
  });

  it.each([
    ['wrong-id', "cosh_request_id is not this request's"],
    ['no-id', 'no cosh_request_id'],
  ])('an answer with %s answers nothing', async (action, why) => {
    const run = drive([keeper()]);
    const answer = await run.send({ action });
    expect(answer.decision).toBe('none');
    expect(report(answer)).toMatchObject({
      outcome: 'invalid_output',
      message: `invalid output: ${why}; a line without this request's cosh_request_id answers nothing`,
    });
  });

  it("a cosh_request_id the host put in the event is replaced by the engine's own", async () => {
    const ECHO = `node ${join(FIXTURES, 'persistent-echo.mjs')}`;
    const run = drive([{ name: 'echo', command: ECHO, persistent: true }]);
    // The host's id is what a hostile event would make the hook echo: it must not answer.
    const answer = await run.send(
      { reply: '{"decision":"allow","cosh_request_id":"host-chosen"}' },
      { cosh_request_id: 'host-chosen' },
    );
    expect(report(answer)).toMatchObject({ outcome: 'invalid_output' });
    const own = await run.send({ reply: '{"decision":"allow","cosh_request_id":"$ID"}' });
    expect(own.decision).toBe('allow');
  });
});

describe('persistent hooks: recycling (exit 0 after answering)', () => {
  it('twelve events, a process each: every one answered, no back-off, no failure', async () => {
    const run = drive([keeper({ fail_closed: true })]);
    const answers = [];
    for (let n = 0; n < 12; n += 1) answers.push(await run.send({ action: 'recycle' }));
    expect(answers.map((answer) => [answer.decision, report(answer)?.outcome])).toEqual(
      Array.from({ length: 12 }, () => ['allow', 'ok']),
    );
    expect(new Set(answers.map(pidOf)).size).toBe(12);
    expect(answers.every((answer) => answer.messages.length === 0)).toBe(true);
  });

  it('a process that exits 0 when the next event arrives, without answering it: the event goes to a fresh one', async () => {
    const log = scratchFile('recycle');
    writeFileSync(log, '');
    const run = drive([keeper({ env: { LOG: log } } as Partial<HookDefinition>)]);
    const answers = [];
    for (let n = 1; n <= 6; n += 1) answers.push(await run.send({ action: 'recycle-on-next', n }));
    expect(
      answers.map((answer) => [
        report(answer)?.outcome,
        (answer.hook_specific_output as { seen: number }).seen,
      ]),
    ).toEqual(Array.from({ length: 6 }, () => ['ok', 1]));
    const pids = answers.map(pidOf);
    expect(new Set(pids).size).toBe(6);
    // Each event was answered once, by the process it was re-sent to.
    expect(readFileSync(log, 'utf8').match(/^start \d+$/gm)).toEqual([
      'start 1',
      'start 2',
      'start 3',
      'start 4',
      'start 5',
      'start 6',
    ]);
  });

  it('a process that answered nothing and exits 0 is still an exit failure (not recycling)', async () => {
    const run = drive([keeper()]);
    expect(report(await run.send({ action: 'die', code: 0 }))).toMatchObject({
      outcome: 'exit',
      message: 'exited with code 0 before answering',
    });
  });
});

describe('persistent hooks: the wait for the process is bounded on its own', () => {
  it("a queued event's wait does not count against its timeout; a wait past the bound is queue_timeout, and it is never sent", async () => {
    const log = scratchFile('queue');
    writeFileSync(log, '');
    const run = drive(
      [keeper({ timeout: 1500, fail_closed: true, env: { LOG: log } } as Partial<HookDefinition>)],
      {},
      { concurrency: 'per-session' },
    );
    const pid = pidOf(await run.send({ action: 'pid', n: 0 }));
    // Three sessions on one process, 900 ms of work each: the second waits ~900 ms and runs 900 ms
    // (1800 ms in all, past its 1500 ms timeout, yet in time: its own run is 900 ms); the third
    // would wait ~1800 ms, past the bound (the hook's timeout, 1500 ms), so it never starts.
    const answers = await Promise.all([
      run.send({ action: 'slow', n: 1, ms: 900 }, { session_id: 'a' }),
      run.send({ action: 'slow', n: 2, ms: 900 }, { session_id: 'b' }),
      run.send({ action: 'slow', n: 3, ms: 900 }, { session_id: 'c' }),
    ]);
    expect(answers.map((answer) => [answer.decision, report(answer)?.outcome])).toEqual([
      ['allow', 'ok'],
      ['allow', 'ok'],
      ['block', 'queue_timeout'],
    ]);
    expect(answers[2]?.reason).toBe(
      'hook "keeper" failed closed: waited 1500 ms for its persistent process, never started',
    );
    expect(answers.slice(0, 2).map((answer) => answer.hook_specific_output)).toEqual([
      { pid, seen: 2, n: 1 },
      { pid, seen: 3, n: 2 },
    ]);
    expect(readFileSync(log, 'utf8')).toBe(`boot ${pid}\nstart 0\nend 0\nstart 1\nend 1\nstart 2\nend 2\n`);
  });
});

describe('persistent hooks in a dialect: the answer line is read as that agent reads JSON', () => {
  const ECHO = `node ${join(FIXTURES, 'persistent-echo.mjs')}`;
  const echo = (dialect: 'claude' | 'gemini'): HookDefinition =>
    ({ name: dialect, command: ECHO, persistent: true, dialect }) as HookDefinition;

  it('claude: continue:false is a block with its stopReason', async () => {
    const run = drive([echo('claude')]);
    const answer = await run.send({
      reply: '{"continue":false,"stopReason":"stop here","cosh_request_id":"$ID"}',
    });
    expect(answer).toMatchObject({ decision: 'block', reason: 'stop here' });
    expect(answer.hook_specific_output).toEqual({ continue: false, stop_reason: 'stop here' });
  });

  it('claude: permissionDecision deny is a block with its reason', async () => {
    const run = drive([echo('claude')]);
    const answer = await run.send({
      reply: JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'not here',
        },
        cosh_request_id: '$ID',
      }),
    });
    expect(answer).toMatchObject({ decision: 'block', reason: 'not here' });
  });

  it('gemini: a double-encoded deny is a block (the id inside the encoded object)', async () => {
    const run = drive([echo('gemini')]);
    const answer = await run.send({
      reply: JSON.stringify(
        JSON.stringify({ decision: 'deny', reason: 'denied twice over', cosh_request_id: '$ID' }),
      ),
    });
    expect(answer).toMatchObject({ decision: 'block', reason: 'denied twice over' });
  });

  it('claude: exit status 2 blocks the event in flight, with its stderr as the reason', async () => {
    const run = drive([
      {
        name: 'exit2',
        command: `read line; echo 'rm is not allowed here' >&2; exit 2`,
        persistent: true,
        dialect: 'claude',
      } as HookDefinition,
    ]);
    const answer = await run.send({ command: 'rm -rf /' });
    expect(answer).toMatchObject({ decision: 'block', reason: 'rm is not allowed here' });
  });

  it.each(['claude', 'gemini'] as const)(
    '%s: plain text has no line form: invalid_output (a fail_closed hook blocks), never pass-through',
    async (dialect) => {
      const run = drive([{ ...echo(dialect), fail_closed: true } as HookDefinition]);
      const answer = await run.send({ reply: 'looks fine to me' });
      expect(report(answer)).toMatchObject({ outcome: 'invalid_output' });
      expect(answer.decision).toBe('block');
    },
  );
});

describe('persistent hooks: fail_closed', () => {
  it('blocks a timeout with the first stderr line written since the request', async () => {
    const run = drive([keeper({ timeout: 1500, fail_closed: true })]);
    await run.send({ action: 'noise' });
    const blocked = await run.send({ action: 'hang', stderr: '\n\n  denied: policy 7  \nsecond line\n' });
    expect(blocked).toMatchObject({ decision: 'block', reason: 'denied: policy 7' });
    expect(report(blocked)).toMatchObject({ outcome: 'timeout' });
  });

  it('blocks a death with the first stderr line written since the request', async () => {
    const run = drive([keeper({ fail_closed: true })]);
    await run.send({ action: 'noise' });
    const blocked = await run.send({ action: 'die', code: 2, stderr: 'refused: rm -rf\nstack...\n' });
    expect(blocked).toMatchObject({ decision: 'block', reason: 'refused: rm -rf' });
    expect(report(blocked)).toMatchObject({ outcome: 'exit' });
  });

  it('blocks without stderr with a sentence naming the failure', async () => {
    const run = drive([keeper({ fail_closed: true })]);
    await run.send({ action: 'noise' });
    const blocked = await run.send({ action: 'bad' });
    expect(blocked).toMatchObject({ decision: 'block' });
    expect(blocked.reason).toMatch(/^hook "keeper" failed closed: invalid output: /);
  });
});

describe('persistent hooks: back-off', () => {
  it('backs off restarts of a hook that keeps dying and fails fast meanwhile, saying so', async () => {
    const starts = scratchFile('starts');
    writeFileSync(starts, '');
    let clock = 1_000;
    const run = drive(
      [
        {
          name: 'crasher',
          command: `echo start >> ${shWord(starts)}; echo boom >&2; exit 1`,
          persistent: true,
        },
      ],
      { now: () => clock, backoff: { initialMs: 100, maxMs: 1000 } },
    );
    const messages = async () => {
      const answer = await run.send({});
      return [report(answer)?.outcome, ...answer.messages];
    };
    expect(await messages()).toEqual(['exit', 'exited with code 1: boom']);
    expect(await messages()).toEqual([
      'spawn',
      'restarting after 1 failure: next start in 100 ms (last: exited with code 1: boom)',
    ]);
    clock += 100;
    expect(await messages()).toEqual(['exit', 'exited with code 1: boom']);
    clock += 50;
    expect(await messages()).toEqual([
      'spawn',
      'restarting after 2 failures: next start in 150 ms (last: exited with code 1: boom)',
    ]);
    clock += 150;
    expect(await messages()).toEqual(['exit', 'exited with code 1: boom']);
    expect(await messages()).toEqual([
      'spawn',
      'restarting after 3 failures: next start in 400 ms (last: exited with code 1: boom)',
    ]);
    // Six events, three starts: the fast failures paid none.
    expect(readFileSync(starts, 'utf8')).toBe('start\nstart\nstart\n');
  });

  it('reports a command that cannot start as spawn, then backs off', async () => {
    const clock = 5_000;
    const run = drive([{ name: 'missing', command: '/nonexistent/hook --flag', persistent: true }], {
      now: () => clock,
    });
    const first = await run.send({});
    expect([report(first)?.outcome, ...first.messages]).toEqual([
      'spawn',
      'could not start: /nonexistent/hook: not found',
    ]);
    const second = await run.send({});
    expect([report(second)?.outcome, ...second.messages]).toEqual([
      'spawn',
      'restarting after 1 failure: next start in 100 ms (last: could not start: /nonexistent/hook: not found)',
    ]);
  });

  it('forgets the failures once a process answers', async () => {
    let clock = 0;
    const run = drive([keeper()], { now: () => clock, backoff: { initialMs: 100, maxMs: 1000 } });
    expect(report(await run.send({ action: 'die' }))).toMatchObject({ outcome: 'exit' });
    clock += 100;
    expect(report(await run.send({ action: 'pid' }))).toMatchObject({ outcome: 'ok' });
    expect(report(await run.send({ action: 'die' }))).toMatchObject({ outcome: 'exit' });
    const waiting = await run.send({ action: 'pid' });
    expect(waiting.messages).toEqual([
      'restarting after 1 failure: next start in 100 ms (last: exited with code 3)',
    ]);
  });
});

describe('persistent hooks: one event at a time', () => {
  it('queues events of other sessions behind the one being answered (per-session concurrency)', async () => {
    const log = scratchFile('order');
    writeFileSync(log, '');
    const run = drive(
      [keeper({ env: { LOG: log } } as Partial<HookDefinition>)],
      {},
      { concurrency: 'per-session' },
    );
    const answers = await Promise.all([
      run.send({ action: 'slow', n: 1 }, { session_id: 'a' }),
      run.send({ action: 'slow', n: 2 }, { session_id: 'b' }),
      run.send({ action: 'slow', n: 3 }, { session_id: 'c' }),
    ]);
    const pid = pidOf(answers[0] as HookDecision);
    expect(answers.map((answer) => answer.hook_specific_output)).toEqual([
      { pid, seen: 1, n: 1 },
      { pid, seen: 2, n: 2 },
      { pid, seen: 3, n: 3 },
    ]);
    expect(readFileSync(log, 'utf8')).toBe(`boot ${pid}\nstart 1\nend 1\nstart 2\nend 2\nstart 3\nend 3\n`);
  });
});

describe('persistent hooks: cancellation', () => {
  const hook = (log: string) =>
    defineHooks({ PreToolUse: [keeper({ env: { LOG: log } } as Partial<HookDefinition>)] }).PreToolUse[0];

  it('kills the process of a request cancelled mid-answer; the next request gets a fresh one', async () => {
    const log = scratchFile('cancel');
    writeFileSync(log, '');
    const persistent = hook(log);
    if (persistent?.kind !== 'command') throw new Error('expected a command hook');
    const run = processExecutor({ killGraceMs: 200 }).openRun();
    try {
      const first = await firstValueFrom(
        run.executor(persistent, eventOf({ tool_input: { action: 'pid' } })).pipe(resultOnly()),
      );
      const pid = specificOf<{ pid: number }>(first).pid;
      leftovers.add(pid);
      const hanging = run.executor(persistent, eventOf({ tool_input: { action: 'hang' } })).subscribe();
      const queued = run.executor(persistent, eventOf({ tool_input: { action: 'pid', n: 99 } })).subscribe();
      expect(await waitFor(() => readFileSync(log, 'utf8').endsWith('start 2\n'), 3000)).toBe(true);
      queued.unsubscribe(); // withdrawn before it was sent
      hanging.unsubscribe(); // mid-answer: the process is replaced
      expect(await groupGone(pid)).toBe(true);
      const after = await firstValueFrom(
        run.executor(persistent, eventOf({ tool_input: { action: 'pid' } })).pipe(resultOnly()),
      );
      const fresh = specificOf<{ pid: number; seen: number }>(after);
      leftovers.add(fresh.pid);
      expect(fresh.pid).not.toBe(pid);
      expect(fresh.seen).toBe(1);
      expect(readFileSync(log, 'utf8')).not.toContain('start 99');
    } finally {
      run.unsubscribe();
    }
  });
});

describe('persistent hooks: nothing outlives the run', () => {
  /** Sends an event that leaves a grandchild in the hook's group; returns both pids. */
  const startFamily = async (run: ReturnType<typeof drive>) => {
    const answer = await run.send({ action: 'child' });
    const pid = pidOf(answer);
    const child = (answer.hook_specific_output as { child: number }).child;
    leftovers.add(child);
    expect(groupAlive(pid)).toBe(true);
    return { pid, child };
  };

  const noneLeft = async ({ pid, child }: { pid: number; child: number }) => {
    expect(await groupGone(pid)).toBe(true);
    expect(await waitFor(() => isGone(child), 3000)).toBe(true);
    expect(allProcesses().filter((stat) => stat.pgrp === pid && stat.state !== 'Z')).toEqual([]);
  };

  it('end of input: stdin closed, the hook exits on EOF, its group is killed', async () => {
    const log = scratchFile('eof');
    writeFileSync(log, '');
    const run = drive([keeper({ env: { LOG: log } } as Partial<HookDefinition>)]);
    const family = await startFamily(run);
    run.end();
    await noneLeft(family);
    expect(readFileSync(log, 'utf8')).toMatch(/end 1\neof\n$/);
  });

  it('end of input: a hook that ignores EOF and SIGTERM is killed after the grace period', async () => {
    const run = drive([keeper({ env: { IGNORE_EOF: '1' } } as Partial<HookDefinition>)]);
    const family = await startFamily(run);
    run.end();
    await noneLeft(family);
  });

  it('unsubscribe: the run ends and its processes with it', async () => {
    const run = drive([keeper({ env: { IGNORE_EOF: '1' } } as Partial<HookDefinition>)]);
    const family = await startFamily(run);
    run.unsubscribe();
    await noneLeft(family);
  });

  it('unsubscribe mid-answer: the process is killed with the run', async () => {
    const log = scratchFile('mid');
    writeFileSync(log, '');
    const run = drive([keeper({ env: { LOG: log, IGNORE_EOF: '1' } } as Partial<HookDefinition>)]);
    const family = await startFamily(run);
    void run.send({ action: 'hang' });
    expect(await waitFor(() => readFileSync(log, 'utf8').endsWith('start 2\n'), 3000)).toBe(true);
    run.unsubscribe();
    await noneLeft(family);
  });

  it('close() of a dispatcher ends its persistent processes', async () => {
    const dispatcher = createDispatcher(
      defineHooks({ PreToolUse: [keeper({ env: { IGNORE_EOF: '1' } } as Partial<HookDefinition>)] }),
      defaultDeps(processExecutor({ killGraceMs: 200 })),
    );
    const first = await dispatcher.dispatch(eventOf({ tool_input: { action: 'child' } }));
    const second = await dispatcher.dispatch(eventOf({ tool_input: { action: 'pid' } }));
    if (first.error || second.error) throw new Error('invalid event');
    const pid = pidOf(first.decision);
    const child = (first.decision.hook_specific_output as { child: number }).child;
    leftovers.add(child);
    expect(second.decision.hook_specific_output).toEqual({ pid, seen: 2 });
    dispatcher.close();
    await noneLeft({ pid, child });
  });

  it('a session keeps one process across decides, and close() ends it', async () => {
    const session = createSession(
      defineHooks({ PreToolUse: [keeper({ env: { IGNORE_EOF: '1' } } as Partial<HookDefinition>)] }),
      defaultDeps(processExecutor({ killGraceMs: 200 })),
    );
    const decide = (action: string) =>
      lastValueFrom(
        session
          .decide(eventOf({ tool_input: { action } }))
          .pipe(filter((line): line is HookDecision => line.type === 'hook_decision')),
      );
    const first = await decide('child');
    const second = await decide('pid');
    const pid = pidOf(first);
    const child = (first.hook_specific_output as { child: number }).child;
    leftovers.add(child);
    expect(second.hook_specific_output).toEqual({ pid, seen: 2 });
    session.close();
    await noneLeft({ pid, child });
  });

  it('called outside a run, a persistent hook gets a process for that one event', async () => {
    const definition = defineHooks({ PreToolUse: [keeper()] }).PreToolUse[0];
    if (definition?.kind !== 'command') throw new Error('expected a command hook');
    const result = await firstValueFrom(
      processExecutor({ killGraceMs: 200 })(definition, eventOf({ tool_input: { action: 'child' } })).pipe(
        resultOnly(),
      ),
    );
    const output = specificOf<{ pid: number; child: number }>(result);
    leftovers.add(output.pid);
    leftovers.add(output.child);
    await noneLeft(output);
  });
});

describe('persistent hooks: environment, ownership and the spawn helper (issue 13)', () => {
  it('gets the engine variables that do not depend on an event, COSH_HOOK_PERSISTENT=1, and no stale per-event ones', async () => {
    const workspace = mkdtempSync(join(scratch, 'engine-'));
    const stale = { COSH_SESSION_ID: 'stale-session', COSH_HOOK_EVENT: 'Stale', COSH_RUNTIME: 'fake' };
    const before = Object.fromEntries(Object.keys(stale).map((name) => [name, process.env[name]]));
    Object.assign(process.env, stale);
    try {
      const run = drive(
        [keeper({ env: { COSH_HOOK_PERSISTENT: '0', COSH_HOOK_NAME: 'fake' } } as Partial<HookDefinition>)],
        { workspace },
      );
      const decision = await run.send({ action: 'engine' });
      pidOf(decision);
      expect((decision.hook_specific_output as { engine: unknown }).engine).toStrictEqual({
        COSH_HOOK_NAME: 'keeper',
        COSH_RUNTIME: 'cosh-hooks',
        COSH_HOOKS_VERSION: packageVersion(),
        COSH_WORKSPACE_PATH: workspace,
        COSH_HOOK_PERSISTENT: '1',
        COSH_NG_VERSION: COSH_CORE_VERSION,
      });
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('its process group is owned: a second signal to the CLI (killOwnedGroupsNow) kills it at once', async () => {
    const run = drive([keeper({ env: { IGNORE_EOF: '1' } } as Partial<HookDefinition>)]);
    const pid = pidOf(await run.send({ action: 'pid' }));
    expect(groupAlive(pid)).toBe(true);
    expect(killOwnedGroupsNow()).toBeGreaterThanOrEqual(1);
    expect(await waitFor(() => !groupAlive(pid), 5000)).toBe(true);
  });

  it('through the spawn helper: one process across events, started by the helper; a helper death fails the event in flight, the next starts afresh', async () => {
    const run = drive([keeper({ timeout: 10_000 })], { spawnHelper: 'always' });
    const first = await run.send({ action: 'engine' });
    const second = await run.send({ action: 'engine' });
    const pid = pidOf(first);
    expect(pidOf(second)).toBe(pid);
    const helper = (first.hook_specific_output as { ppid: number }).ppid;
    expect(helper).not.toBe(process.pid);
    expect(readFileSync(`/proc/${helper}/cmdline`, 'utf8')).toContain('spawn-helper.js');
    const inFlight = run.send({ action: 'hang' });
    await sleep(200);
    process.kill(helper, 'SIGKILL');
    const lost = await inFlight;
    expect(lost.hooks).toMatchObject([
      {
        name: 'keeper',
        outcome: 'spawn',
        message: 'hook process lost: the spawn helper exited by signal SIGKILL while the hook ran',
      },
    ]);
    expect(await waitFor(() => isGone(pid), 5000)).toBe(true);
    // The failure counts toward the back-off (100 ms here by default): wait it out.
    await sleep(300);
    const fresh = await run.send({ action: 'engine' });
    expect(pidOf(fresh)).not.toBe(pid);
    const freshHelper = (fresh.hook_specific_output as { ppid: number }).ppid;
    expect(freshHelper).not.toBe(helper);
    expect(readFileSync(`/proc/${freshHelper}/cmdline`, 'utf8')).toContain('spawn-helper.js');
  });
});
