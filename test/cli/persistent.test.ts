import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { groupAlive, isGone, waitFor } from '../../bench/procfs.js';
import { cli, finished, hookTable, jsonl, jsonLines, sandbox, start } from './helpers.js';

const KEEPER = `node ${join(fileURLToPath(new URL('../fixtures/hooks/', import.meta.url)), 'persistent.mjs')}`;

/** A persistent hook that ignores EOF and SIGTERM: only the engine's SIGKILL of its group ends it. */
const box = sandbox(
  [
    // The command has no shell syntax, so it is executed directly: the pid it reports leads its group.
    hookTable('PreToolUse', { name: 'keeper', command: KEEPER, persistent: true }) +
      'env = { IGNORE_EOF = "1" }\n',
    hookTable('PreToolUse', { name: 'once', command: 'cat > /dev/null' }),
  ].join('\n'),
);
afterAll(() => box.remove());

const leftovers = new Set<number>();
afterEach(() => {
  for (const pid of leftovers) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  leftovers.clear();
});

const event = (action: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  tool_name: 'shell',
  tool_input: { action },
});

/** The hook's pid and the grandchild it started, from a decision line. */
const family = (decision: Record<string, unknown>) => {
  const output = decision['hook_specific_output'] as { pid: number; child?: number };
  leftovers.add(output.pid);
  if (output.child !== undefined) leftovers.add(output.child);
  return output;
};

const noneLeft = async ({ pid, child }: { pid: number; child?: number }) => {
  expect(await waitFor(() => !groupAlive(pid), 5000)).toBe(true);
  if (child !== undefined) expect(await waitFor(() => isGone(child), 5000)).toBe(true);
};

describe('cosh-hooks run with a persistent hook', () => {
  it('answers every event from one process and leaves nothing running at end of input', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl(event('child'), event('pid'), event('pid')),
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const decisions = jsonLines(result.stdout);
    const first = family(decisions[0] ?? {});
    expect(decisions.map((line) => line['hook_specific_output'])).toEqual([
      { pid: first.pid, seen: 1, child: first.child },
      { pid: first.pid, seen: 2 },
      { pid: first.pid, seen: 3 },
    ]);
    await noneLeft(first);
  });

  it('on SIGTERM ends the persistent process group too, and exits 143', async () => {
    const child = start(['run', ...box.flags]);
    const done = finished(child);
    const lines = createInterface({ input: child.stdout });
    const first = new Promise<Record<string, unknown>>((resolve) =>
      lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>)),
    );
    child.stdin.write(jsonl(event('child')));
    const hook = family(await first);
    expect(groupAlive(hook.pid)).toBe(true);
    child.kill('SIGTERM');
    const result = await done;
    expect(result.code).toBe(143);
    await noneLeft(hook);
  });
});

describe('validate, list and fire show the mode', () => {
  it('validate counts persistent hooks', async () => {
    const result = await cli(['validate', ...box.flags]);
    expect(result.stdout).toBe(`ok: ${box.path('config.toml')}, 0 extensions, 2 hooks (1 persistent)\n`);
  });

  it('list shows persistent and per-event', async () => {
    const result = await cli(['list', ...box.flags]);
    const rows = result.stdout
      .split('\n')
      .filter((line) => /^ {2}\d/.test(line))
      .map((line) => line.trim().split(/ +/).at(-1));
    expect(rows).toEqual(['persistent', 'per-event']);
    const json = await cli(['list', '--json', ...box.flags]);
    const listed = (JSON.parse(json.stdout) as { events: Record<string, { persistent: boolean }[]> }).events;
    expect(listed['PreToolUse']?.map((hook) => hook.persistent)).toEqual([true, false]);
  });

  it('fire runs the persistent hook and shows its mode, leaving nothing running', async () => {
    const result = await cli([
      'fire',
      'PreToolUse',
      '--tool',
      'shell',
      '--input',
      '{"tool_input":{"action":"child"}}',
      '--json',
      ...box.flags,
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const decision = (JSON.parse(result.stdout) as { decision: Record<string, unknown> }).decision;
    await noneLeft(family(decision));
    const text = await cli([
      'fire',
      'PreToolUse',
      '--tool',
      'shell',
      '--input',
      '{"tool_input":{"action":"pid"}}',
      ...box.flags,
    ]);
    expect(text.stdout).toMatch(
      /\nkeeper +config +persistent +allow +ok +\d+ ms\nonce +config +per-event +none +ok +\d+ ms\n/,
    );
  });
});
