import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { finished, hookTable, jsonl, jsonLines, sandbox, start, type Sandbox } from './helpers.js';

/** An observer run cut short by a stop signal still leaves an audit record (docs/audit.md). */
let box: Sandbox;
afterEach(() => box.remove());

const event = (id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_use_id: id,
  tool_input: { command: 'ls' },
});

describe('observers cut short', () => {
  it('by SIGTERM: the running one gets an observer_result (signal), the waiting ones an observer_dropped', async () => {
    box = sandbox(
      hookTable('PreToolUse', { name: 'slow-logger', command: 'sleep 20', observe: true, timeout: 60000 }),
    );
    const audit = box.path('audit.jsonl');
    const child = start(['run', ...box.flags, '--audit', audit]);
    const done = finished(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stdin.write(jsonl(event('t1'), event('t2'), event('t3')));
    while (jsonLines(out).filter((line) => line['type'] === 'hook_decision').length < 3)
      await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(143);
    const records = jsonLines(readFileSync(audit, 'utf8')).filter((record) =>
      String(record['record']).startsWith('observer'),
    );
    expect(
      records.map((record) => [record['record'], record['hook'], record['outcome'] ?? record['dropped']]),
    ).toEqual([
      ['observer_result', 'slow-logger', 'signal'],
      ['observer_dropped', 'slow-logger', 2],
    ]);
    expect(records[0]?.['message']).toBe('cut short: the run was stopped before the observer answered');
  });
});
