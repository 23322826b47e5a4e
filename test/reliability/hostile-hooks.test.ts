import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, of, tap, toArray } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { HookEvent } from '../../src/events/codecs.js';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor } from '../../src/exec/index.js';
import { isResult, type HookExecutor } from '../../src/exec/port.js';
import { encodeLine, type HookDecision, type OutputLine } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import type { HookReport } from '../../src/protocol/aggregate.js';
import type { HookResult } from '../../src/protocol/result.js';
import { defineHooks } from '../../src/registry/define.js';
import { allProcesses, liveGroupMembers, sleep, waitFor } from '../../bench/procfs.js';

/**
 * Each hostile hook runs through the whole engine (hookPipeline + the real executor) as the first
 * hook of a chain, followed by a well-behaved hook, and its event is followed by a second event.
 * For each: the decision comes by the deadline (or at the hook's exit), the outcome is exactly the
 * expected one, the next hook and the next event still run, and nothing of the hook's process group
 * is left running.
 */

const HOOKS = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cosh-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** How late a decision may come after its deadline on a loaded 2-core machine. */
const SLACK_MS = 1000;
/** Delay between SIGTERM and SIGKILL, kept short so a hook ignoring SIGTERM costs little time. */
const KILL_GRACE_MS = 200;

const event = (overrides: Record<string, unknown>): HookEvent => {
  const decoded = decodeEvent(
    { hook_event_name: 'PreToolUse', session_id: 'hostile', cwd: scratch, ...overrides },
    { now: () => new Date(0), cwd: () => scratch },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

/** Process groups of the current test, killed afterwards even when an assertion failed. */
const groups = new Set<number>();
afterEach(() => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  groups.clear();
});

interface Case {
  readonly name: string;
  readonly script: string;
  readonly timeout: number;
  readonly failClosed?: boolean;
  /** The first event's `tool_input`; the default is small. */
  readonly toolInput?: Record<string, unknown>;
  /** The hostile hook's line in the first decision (duration left out). */
  readonly report: Omit<HookReport, 'duration_ms' | 'source'>;
  /**
   * What the executor itself emitted for the hostile hook, for what the report does not show
   * (stderr tail, exit code). Nothing for a timeout: the deadline unsubscribes it first.
   */
  readonly result?: (result: HookResult) => void;
  readonly decision: Pick<HookDecision, 'decision' | 'reason'>;
  /** The well-behaved hook after it: runs (`ok`) unless the hostile one blocked. */
  readonly next: 'ok' | 'skipped';
  /** The first decision comes within this many ms (not counting SLACK_MS for deadlines)… */
  readonly within: number;
  /** …and not before this (a timeout must not fire early). */
  readonly notBefore?: number;
  /** Group members that must be seen alive at once (proves the hook did what it claims). */
  readonly members?: number;
}

const timedOut = (ms: number) => ({ outcome: 'timeout' as const, message: `timed out after ${ms} ms` });

const CASES: readonly Case[] = [
  {
    name: 'ignores SIGTERM (killed with SIGKILL after the grace)',
    script: 'ignores-sigterm.sh',
    timeout: 400,
    report: { name: 'hostile', ...timedOut(400) },
    decision: { decision: 'allow' },
    next: 'ok',
    within: 400 + SLACK_MS,
    notBefore: 400,
    members: 2,
  },
  {
    name: 'forks 50 children that all sleep',
    script: 'hostile/forks-children.sh',
    timeout: 800,
    report: { name: 'hostile', ...timedOut(800) },
    decision: { decision: 'allow' },
    next: 'ok',
    within: 800 + SLACK_MS,
    notBefore: 800,
    members: 51,
  },
  {
    name: 'closes stdout early, then keeps running',
    script: 'hostile/closes-stdout.sh',
    timeout: 400,
    report: { name: 'hostile', ...timedOut(400) },
    decision: { decision: 'allow' },
    next: 'ok',
    within: 400 + SLACK_MS,
    notBefore: 400,
    members: 2,
  },
  {
    name: 'prints half a JSON object, then hangs',
    script: 'hostile/half-json.sh',
    timeout: 400,
    report: { name: 'hostile', ...timedOut(400) },
    decision: { decision: 'allow' },
    next: 'ok',
    within: 400 + SLACK_MS,
    notBefore: 400,
    members: 2,
  },
  {
    name: 'prints NUL bytes and invalid UTF-8',
    script: 'hostile/nul-bytes.sh',
    timeout: 5000,
    report: {
      name: 'hostile',
      outcome: 'invalid_output',
      message:
        'invalid output: stdout is not JSON: "\\u0000\\u0000{\\"decision\\":\\"block\\"}\uFFFD\uFFFD\\u0000"',
    },
    result: (result) =>
      expect(result).toMatchObject({ outcome: 'invalid_output', exitCode: 0, stderr: 'err\0\uFFFD bytes\n' }),
    decision: { decision: 'allow' },
    next: 'ok',
    within: 2000,
  },
  {
    name: 'exits before reading a 1 MB event',
    script: 'hostile/early-exit.sh',
    timeout: 5000,
    toolInput: { command: 'x'.repeat(1024 * 1024) },
    report: { name: 'hostile', outcome: 'exit', message: 'exited with code 3: gave up without reading' },
    result: (result) => expect(result).toMatchObject({ outcome: 'exit', exitCode: 3 }),
    decision: { decision: 'allow' },
    next: 'ok',
    within: 2000,
  },
  {
    name: 'leaves a background process holding stdout after printing a valid decision',
    script: 'hostile/background-writer.sh',
    timeout: 5000,
    report: { name: 'hostile', outcome: 'ok', decision: 'allow' },
    result: (result) =>
      expect(result).toStrictEqual({
        outcome: 'ok',
        output: { decision: 'allow', reason: 'left a writer behind' },
      }),
    decision: { decision: 'allow', reason: 'left a writer behind' },
    next: 'ok',
    // At the hook's exit (plus at most the 100 ms drain), nowhere near the 5 s deadline.
    within: 1000,
  },
  {
    name: 'writes 100 MB to stderr, then fails',
    script: 'hostile/stderr-flood.sh',
    timeout: 20_000,
    report: { name: 'hostile', outcome: 'exit', message: 'exited with code 1: stderr flood line' },
    result: (result) => {
      // Only the last 64 KiB, from its first whole line (the cut one, `line\n`, is dropped: a cut
      // line could hold the end of a secret, docs/protocol.md): flood lines, then the last line.
      // The tail starts with the hook's first line, so it is not repeated in front.
      expect(result).toMatchObject({ outcome: 'exit', exitCode: 1 });
      const stderr = 'stderr' in result ? (result.stderr ?? '') : '';
      expect(stderr.length).toBe(64 * 1024 - 'line\n'.length);
      expect(stderr.startsWith('stderr flood line\nstderr flood line\n')).toBe(true);
      expect(stderr.endsWith('stderr flood line\nlast words\n')).toBe(true);
    },
    decision: { decision: 'allow' },
    next: 'ok',
    within: 10_000,
  },
  {
    name: 'sleeps forever with fail_closed (blocks at the deadline, the rest of the chain is skipped)',
    script: 'hostile/sleeps-forever.sh',
    timeout: 300,
    failClosed: true,
    report: { name: 'hostile', decision: 'block', ...timedOut(300) },
    decision: { decision: 'block', reason: 'hook "hostile" failed closed: timed out after 300 ms' },
    next: 'skipped',
    within: 300 + SLACK_MS,
    notBefore: 300,
    members: 1,
  },
];

/** The real executor, recording each raw result by hook name (the decision line only shows the report). */
const recordingExecutor = (results: [string, HookResult][]): HookExecutor => {
  const real = processExecutor({ killGraceMs: KILL_GRACE_MS });
  return (hook, ev) =>
    real(hook, ev).pipe(
      tap((emission) => {
        if (isResult(emission)) results.push([hook.name, emission]);
      }),
    );
};

/** The group id a fixture wrote ($$ of the hook process, which leads its own group). */
const readGroup = (file: string): number | undefined => {
  try {
    const pgid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pgid) ? pgid : undefined;
  } catch {
    return undefined;
  }
};

describe('hostile hooks through hookPipeline and the real executor', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const pidFile = join(scratch, `${c.script.replace(/\W/g, '-')}.pid`);
    const registry = defineHooks(
      {
        PreToolUse: [
          {
            name: 'hostile',
            matcher: '^Bash$',
            command: join(HOOKS, c.script),
            env: { PID_FILE: pidFile },
            timeout: c.timeout,
            fail_closed: c.failClosed ?? false,
          },
          { name: 'well-behaved', command: join(HOOKS, 'allow.sh') },
        ],
      },
      'config',
    );
    const results: [string, HookResult][] = [];
    const events = [
      event({ tool_name: 'Bash', tool_use_id: 'first', tool_input: c.toolInput ?? { command: 'ls' } }),
      event({ tool_name: 'Read', tool_use_id: 'second', tool_input: { path: 'README.md' } }),
    ];

    // Watches the hook's group while the engine runs: the peak number of live members.
    let peak = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const pgid = readGroup(pidFile);
        if (pgid !== undefined) {
          groups.add(pgid);
          peak = Math.max(peak, liveGroupMembers(pgid).length);
        }
        await sleep(20);
      }
    })();

    const started = Date.now();
    const arrivals: number[] = [];
    const lines: OutputLine[] = await lastValueFrom(
      hookPipeline(
        registry,
        defaultDeps(recordingExecutor(results)),
      )(of(...events)).output$.pipe(
        tap(() => arrivals.push(Date.now() - started)),
        toArray(),
      ),
    );
    watching = false;
    await watcher;

    // Every line is one line of JSON that reads back as itself, NUL bytes and U+FFFD included.
    for (const line of lines) {
      const text = encodeLine(line);
      expect(text).not.toContain('\n');
      expect(JSON.parse(text)).toStrictEqual(line);
    }

    const decisions = lines.filter((line): line is HookDecision => line.type === 'hook_decision');
    expect(decisions.map((d) => [d.seq, d.tool_use_id])).toStrictEqual([
      [1, 'first'],
      [2, 'second'],
    ]);
    const [first, second] = decisions;
    const { duration_ms: _, ...hostileReport } = first?.hooks[0] ?? { duration_ms: 0 };
    expect(hostileReport).toStrictEqual({ source: 'config', ...c.report });
    expect(first).toMatchObject({ ...c.decision, hooks: [{}, { name: 'well-behaved', outcome: c.next }] });
    if (c.decision.reason === undefined) expect(first).not.toHaveProperty('reason');
    expect(second?.hooks).toMatchObject([{ name: 'well-behaved', outcome: 'ok', decision: 'allow' }]);
    expect(second?.decision).toBe('allow');

    const emitted = results.filter(([name]) => name === 'hostile').map(([, result]) => result);
    if (c.result === undefined) expect(emitted).toStrictEqual([]);
    else {
      expect(emitted).toHaveLength(1);
      c.result(emitted[0] as HookResult);
    }
    expect(results.filter(([name]) => name === 'well-behaved')).toHaveLength(c.next === 'ok' ? 2 : 1);

    const firstDecisionAt = arrivals[lines.indexOf(first as OutputLine)] ?? Infinity;
    expect(firstDecisionAt).toBeLessThan(c.within);
    if (c.notBefore !== undefined) expect(firstDecisionAt).toBeGreaterThanOrEqual(c.notBefore);

    const pgid = readGroup(pidFile);
    expect(pgid).toBeDefined();
    if (c.members !== undefined) expect(peak).toBeGreaterThanOrEqual(c.members);
    // SIGKILL comes KILL_GRACE_MS after the deadline; a background writer dies on its first write.
    const empty = await waitFor(() => liveGroupMembers(pgid as number).length === 0, 3000);
    expect(empty ? [] : liveGroupMembers(pgid as number, allProcesses())).toStrictEqual([]);
  });
});
