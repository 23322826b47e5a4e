import type { EventInput } from '../../src/events/codecs.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/audit/records.js';
import { processExecutor } from '../../src/exec/index.js';
import type { OutputLine } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/pipeline.js';
import { defineHooks } from '../../src/registry/define.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cosh-observers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const event = (n: number, command: string) => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 'obs',
  cwd: scratch,
  tool_use_id: `t${n}`,
  tool_name: 'shell',
  tool_input: { command, n },
});

/** Runs `events` through the pipeline to its end (observers drained); output lines and audit records. */
const runAll = async (
  registry: ReturnType<typeof defineHooks>,
  events: readonly unknown[],
  queue?: number,
) => {
  const input = new Subject<EventInput>();
  const streams = hookPipeline(
    registry,
    defaultDeps(processExecutor()),
    queue === undefined ? {} : { observerQueue: queue },
  )(input);
  // Both subscribed before the first event: the run starts with the first subscriber.
  const records = lastValueFrom(streams.audit$.pipe(toArray()));
  const lines = lastValueFrom(streams.output$.pipe(toArray()));
  for (const item of events) input.next(item as EventInput);
  input.complete();
  return { lines: (await lines) as OutputLine[], records: await records };
};

const observerResults = (records: readonly AuditRecord[]) =>
  records.flatMap((record) =>
    record.record === 'observer_result' ? [`${record.hook} ${record.seq} ${record.outcome}`] : [],
  );

describe('observer hooks with real processes', () => {
  it('per-event (python3), persistent (node) and function observers get every event with its final decision, blocked ones included', async () => {
    const perEvent = join(scratch, 'per-event.log');
    const persistent = join(scratch, 'persistent.log');
    const seenInProcess: string[] = [];
    const registry = defineHooks({
      PreToolUse: [
        {
          name: 'guard',
          command: `sh -c 'grep -q "rm -rf" && printf "%s" "{\\"decision\\":\\"block\\",\\"reason\\":\\"no rm -rf\\"}" || true'`,
        },
        {
          name: 'py-observer',
          observe: true,
          // An observer that ships events elsewhere asks for a redacted copy (docs/protocol.md#secrets).
          redact: true,
          command: `python3 ${join(FIXTURES, 'observer.py')}`,
          env: { OUT: perEvent },
        },
        {
          name: 'node-observer',
          observe: true,
          persistent: true,
          command: `node ${join(FIXTURES, 'observer.mjs')}`,
          env: { OUT: persistent },
        },
        {
          name: 'fn-observer',
          observe: true,
          run: (sent) => {
            const decided = (sent as unknown as { cosh_decision: { seq: number; decision: string } })
              .cosh_decision;
            seenInProcess.push(`${decided.seq} ${decided.decision}`);
            return { decision: 'block', reason: 'an observer cannot block' };
          },
        },
      ],
    });
    const { lines, records } = await runAll(registry, [
      event(1, 'ls'),
      event(2, 'rm -rf / token=AKIAIOSFODNN7EXAMPLE'),
      event(3, 'pwd'),
    ]);
    const decisions = lines.flatMap((line) =>
      line.type === 'hook_decision' ? [`${line.seq} ${line.decision}`] : [],
    );
    // The function observer answered block: nothing changed.
    expect(decisions).toStrictEqual(['1 none', '2 block', '3 none']);
    // Observers are never in the decision's hooks, and their answers make no notification.
    for (const line of lines) {
      if (line.type === 'hook_decision') expect(line.hooks.map((hook) => hook.name)).toStrictEqual(['guard']);
      if (line.type === 'stream_event') expect(line.event.hook_name).toBe('guard');
    }
    expect(
      readFileSync(perEvent, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ').slice(0, 2).join(' ')),
    ).toStrictEqual(['1 none', '2 block', '3 none']);
    // redact = true: the observer's copy has the key redacted (the command itself is kept whole).
    expect(readFileSync(perEvent, 'utf8')).not.toContain('IOSFODNN7EXAMPLE');
    expect(readFileSync(perEvent, 'utf8')).toContain('rm -rf /');
    const persistentLines = readFileSync(persistent, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' '));
    expect(persistentLines.map(([seq, decision]) => `${seq} ${decision}`)).toStrictEqual([
      '1 none',
      '2 block',
      '3 none',
    ]);
    // One process answered all three.
    expect(new Set(persistentLines.map(([, , pid]) => pid)).size).toBe(1);
    expect(seenInProcess).toStrictEqual(['1 none', '2 block', '3 none']);
    expect(observerResults(records).sort()).toStrictEqual(
      [1, 2, 3]
        .flatMap((seq) => [`fn-observer ${seq} ok`, `node-observer ${seq} ok`, `py-observer ${seq} ok`])
        .sort(),
    );
    expect(JSON.stringify(records)).not.toContain('IOSFODNN7EXAMPLE');
  });

  it("an observer's failure and timeout are in the audit only", async () => {
    const registry = defineHooks({
      PreToolUse: [
        { name: 'crashes', observe: true, command: "echo 'observer broke' >&2; exit 5" },
        { name: 'hangs', observe: true, command: 'sleep 30', timeout: 300 },
      ],
    });
    const { lines, records } = await runAll(registry, [event(1, 'ls')]);
    expect(lines.map((line) => line.type)).toStrictEqual(['hook_decision']);
    const results = records.flatMap((record) =>
      record.record === 'observer_result' ? [`${record.hook} ${record.outcome} ${record.failure_kind}`] : [],
    );
    expect(results.sort()).toStrictEqual(['crashes exit exit', 'hangs timeout timeout']);
  });

  it('a slow observer past its queue bound misses the newest events, counted in the audit', async () => {
    const marker = join(scratch, 'slow.log');
    const registry = defineHooks({
      PreToolUse: [{ name: 'slow', observe: true, command: `sleep 0.3; echo x >> ${marker}` }],
    });
    const { lines, records } = await runAll(
      registry,
      [1, 2, 3, 4, 5].map((n) => event(n, 'ls')),
      2,
    );
    expect(lines.filter((line) => line.type === 'hook_decision')).toHaveLength(5);
    const dropped = records.flatMap((record) =>
      record.record === 'observer_dropped' ? [`${record.seq}-${record.last_seq}:${record.dropped}`] : [],
    );
    // All five decisions come at once; the lane holds 1 and 2, and 3, 4, 5 are dropped: one record.
    expect(dropped).toStrictEqual(['3-5:3']);
    expect(observerResults(records)).toStrictEqual(['slow 1 ok', 'slow 2 ok']);
    expect(existsSync(marker) && readFileSync(marker, 'utf8')).toBe('x\nx\n');
  });
});
