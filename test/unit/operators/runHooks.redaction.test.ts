import { from, map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { foldDecision, runHooks, stopOnBlock } from '../../../operators/index.js';
import type { HookEvent } from '../../../src/events/index.js';
import { commandHook, createTestScheduler, fakeExecutor, results } from '../../../src/testing/index.js';

/** Redaction in the operator layer (spec §4.7): event → redact → hook → result → redact. */

const curl = "curl -H 'Authorization: Bearer abc123secret' https://api.example";
const pre: HookEvent = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_name: 'shell',
  tool_input: { command: curl, api_key: 'k-123' },
};

const commandOf = (event: HookEvent) => (event as { tool_input: Record<string, unknown> }).tool_input;

describe('runHooks: secret redaction', () => {
  it('gives a hook the event as the host sent it, a redact = true hook a redacted copy, made once', () => {
    const scheduler = createTestScheduler();
    const seen: Record<string, HookEvent[]> = { a: [], raw: [], b: [] };
    const record = (name: string) => (event: HookEvent) => {
      seen[name]?.push(event);
      return of(results.none());
    };
    scheduler.run(({ expectObservable }) => {
      const executor = fakeExecutor({ a: record('a'), raw: record('raw'), b: record('b') });
      const chain = [
        commandHook('a', { redact: true }),
        commandHook('raw'),
        commandHook('b', { redact: true }),
      ];
      const out = from(chain).pipe(
        runHooks(pre, { executor, scheduler }),
        map((run) => run.hook.name),
      );
      expectObservable(out).toBe('(xyz|)', { x: 'a', y: 'raw', z: 'b' });
    });
    expect(commandOf(seen['a']![0]!)).toEqual({
      command: "curl -H 'Authorization: Bearer <redacted>' https://api.example",
      api_key: '<redacted>',
    });
    expect(seen['raw']![0]).toBe(pre);
    expect(seen['b']![0]).toBe(seen['a']![0]);
  });

  it('never builds a redacted copy when no hook of the chain asks for one', () => {
    const scheduler = createTestScheduler();
    const seen: HookEvent[] = [];
    scheduler.run(({ expectObservable }) => {
      const executor = fakeExecutor({
        raw: (event) => {
          seen.push(event);
          return of(results.allow());
        },
      });
      const out = from([commandHook('raw'), commandHook('raw', { redact: false })]).pipe(
        runHooks(pre, { executor, scheduler }),
        map(() => 'r'),
      );
      expectObservable(out).toBe('(rr|)');
    });
    expect(seen).toEqual([pre, pre]);
    expect(seen[0]).toBe(pre);
    expect(seen[1]).toBe(pre);
  });

  it('redacts a reason before it decides: the verdict and the run carry <redacted>', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const guard = cold('-g|', {
        g: results.block('blocked: the command sends ghp_abcdefghijklmnopqrstuvwxyz123456', {
          systemMessage: 'token=abc',
        }),
      });
      const chain = [commandHook('guard', { redact: false })];
      const out = from(chain).pipe(
        runHooks(pre, { executor: fakeExecutor({ guard }), scheduler }),
        stopOnBlock(),
        foldDecision(chain),
        map((step) => (step.type === 'run' ? step.run.effective.reason : step.verdict.reason)),
      );
      expectObservable(out).toBe('-(rv|)', {
        r: 'blocked: the command sends <redacted>',
        v: 'blocked: the command sends <redacted>',
      });
    });
  });

  it('redacts the stderr line a fail_closed hook blocks with', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const guard = cold('-g|', {
        g: results.fail('exit', 'exited with code 3', 'cannot reach vault with password=hunter2\ntrace'),
      });
      const out = from([commandHook('guard', { fail_closed: true })]).pipe(
        runHooks(pre, { executor: fakeExecutor({ guard }), scheduler }),
        map((run) => `${run.effective.decision}: ${run.effective.reason ?? ''}`),
      );
      expectObservable(out).toBe('-(b|)', { b: 'block: cannot reach vault with password=<redacted>' });
    });
  });
});

describe('runHooks: BeforeModel tool declarations (cosh-core parity)', () => {
  const shell = { name: 'shell', description: 'run a shell command', parameters: { type: 'object' } };
  const read = { name: 'read_file', description: 'read a file', parameters: { type: 'object' } };
  const before: HookEvent = {
    hook_event_name: 'BeforeModel',
    session_id: 's',
    cwd: '/',
    timestamp: '2026-07-01T10:00:00Z',
    llm_request: { model: 'm', config: { tools: [shell, read] } },
  };
  const rewrite = (tools: unknown[]) =>
    results.none({ hookSpecificOutput: { llm_request: { config: { tools } } } });

  it('a later invalid array does not replace an earlier valid one; the refusal is in the report', () => {
    const scheduler = createTestScheduler();
    const compressed = [
      { ...shell, description: 'sh' },
      { ...read, description: 'rd' },
    ];
    scheduler.run(({ cold, expectObservable }) => {
      const executor = fakeExecutor({
        compress: cold('-a|', { a: rewrite(compressed) }),
        sneaky: cold('-b|', {
          b: rewrite([...compressed, { name: 'exfiltrate', parameters: { type: 'object' } }]),
        }),
        reorder: cold('-c|', { c: rewrite([read, shell]) }),
      });
      const chain = [commandHook('compress'), commandHook('sneaky'), commandHook('reorder')];
      const out = from(chain).pipe(
        runHooks(before, { executor, scheduler }),
        foldDecision(chain),
        map((step) => (step.type === 'run' ? step.run.hook.name : step.verdict)),
      );
      expectObservable(out).toBe('-ab(cv|)', {
        a: 'compress',
        b: 'sneaky',
        c: 'reorder',
        v: {
          decision: 'none',
          hookSpecificOutput: { llm_request: { config: { tools: compressed } } },
          hooks: [
            { name: 'compress', source: 'config', decision: 'none', outcome: 'ok', duration_ms: 1 },
            {
              name: 'sneaky',
              source: 'config',
              decision: 'none',
              outcome: 'ok',
              duration_ms: 1,
              message: 'llm_request.config.tools refused: expected 2 tool declarations, got 3',
            },
            {
              name: 'reorder',
              source: 'config',
              decision: 'none',
              outcome: 'ok',
              duration_ms: 1,
              message:
                'llm_request.config.tools refused: tool 0: expected "shell", got "read_file" (tools may not be renamed, added, dropped or reordered)',
            },
          ],
        },
      });
    });
  });
});
