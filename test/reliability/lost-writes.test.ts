import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, finished, hookTable, jsonl, prints, sandbox, start } from '../cli/helpers.js';

/**
 * Issue 10 class 10 (spec §6): an answer that cannot be written (stdout on a full device, or a
 * reader that closed its end) ends the command with a message on stderr and exit status 1, never
 * a silent 0.
 */

const box = sandbox(
  hookTable('PreToolUse', { name: 'allower', command: prints({ decision: 'allow', reason: 'fine' }) }),
);
afterAll(() => box.remove());

const event = (id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_use_id: id,
  tool_input: { command: 'ls' },
});

const ENOSPC =
  'cosh-hooks: cannot write to stdout: ENOSPC: no space left on device, write; output is incomplete\n';

/** Runs the binary through sh with stdout on /dev/full and `input` on stdin. */
const toDevFull = (args: readonly string[], input = '') =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const quoted = [process.execPath, BIN, ...args]
      .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const child = spawn('/bin/sh', ['-c', `${quoted} > /dev/full`]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });

describe('lost writes', () => {
  it('run with stdout on /dev/full: exit 1 and one message on stderr', async () => {
    expect(
      await toDevFull(['run', ...box.flags], jsonl(event('t1'), event('t2'), event('t3'))),
    ).toStrictEqual({
      code: 1,
      stdout: '',
      stderr: ENOSPC,
    });
  });

  it.each([
    ['list', ['list']],
    ['list --json', ['list', '--json']],
    ['validate', ['validate']],
    ['fire', ['fire', 'PreToolUse', '--tool', 'shell']],
    ['fire --json', ['fire', 'PreToolUse', '--tool', 'shell', '--json']],
  ])('%s with stdout on /dev/full: exit 1 and the message', async (_, args) => {
    expect(await toDevFull([...args, ...box.flags])).toStrictEqual({ code: 1, stdout: '', stderr: ENOSPC });
  });

  it.each([
    ['--help', ['--help']],
    ['--version', ['--version']],
    ['run --help', ['run', '--help']],
    ['help fire', ['help', 'fire']],
    ['import', ['import', 'claude', box.write('settings.json', '{"hooks":{}}')]],
  ])('%s with stdout on /dev/full: exit 1 and the message', async (_, args) => {
    expect(await toDevFull(args)).toStrictEqual({ code: 1, stdout: '', stderr: ENOSPC });
  });

  it('run whose reader closed stdout before the answers: exit 1 with EPIPE on stderr', async () => {
    const child = start(['run', ...box.flags]);
    const done = finished(child);
    child.stdout.destroy();
    child.stdin.end(jsonl(event('t1'), event('t2')));
    const { code, signal, stderr } = await done;
    expect([code, signal, stderr]).toStrictEqual([
      1,
      null,
      'cosh-hooks: cannot write to stdout: write EPIPE; output is incomplete\n',
    ]);
  });

  it('run whose reader closes stdout after the first answer, stdin still open: exit 1 with EPIPE', async () => {
    const child = start(['run', ...box.flags]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write(jsonl(event('t1')));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    child.stdin.write(jsonl(event('t2')));
    expect(await exited).toBe(1);
    expect(stderr).toBe('cosh-hooks: cannot write to stdout: write EPIPE; output is incomplete\n');
  });
});
