import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, sandbox } from '../cli/helpers.js';

/**
 * Per-session memory is bounded in bytes, whatever the session ids (docs/execution.md, "Guarantees and their tests"):
 * the engine, on a 64 MB heap, through 220 looping sessions whose ids are 1 MB each. Every Stop is
 * blocked, so every session stays in the Stop-loop ledger; with the ids themselves as keys that is
 * 220 MB, and the process dies of an out-of-memory error.
 */

const SESSIONS = 220;
const ID_CHARS = 1024 * 1024;

const box = sandbox(
  [
    '[[hooks.Stop]]',
    'name = "always-block"',
    `command = "cat >/dev/null; printf '%s' '{\\"decision\\":\\"block\\",\\"reason\\":\\"go on\\"}'"`,
    'timeout = 20000',
    '',
  ].join('\n'),
);
afterAll(() => box.remove());

describe('per-session memory under a small heap', () => {
  it('220 looping sessions with 1 MB session ids: every Stop is answered and the run ends with 0', async () => {
    const child = spawn(process.execPath, ['--max-old-space-size=64', BIN, 'run', ...box.flags], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined);
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();

    // As a host: the next Stop once the previous one is decided (a session's id differs in its
    // first characters, so no two share a prefix the engine could keep instead).
    const answers: { decision: unknown; session: number }[] = [];
    for (let session = 0; session < SESSIONS; session += 1) {
      const id = `${session}-`.padEnd(ID_CHARS, 'x');
      child.stdin.write(`${JSON.stringify({ hook_event_name: 'Stop', session_id: id })}\n`);
      for (;;) {
        const next = await lines.next();
        if (next.done === true) break;
        const line = JSON.parse(next.value as string) as {
          type: string;
          decision: unknown;
          session_id: string;
        };
        if (line.type !== 'hook_decision') continue;
        answers.push({ decision: line.decision, session: Number(line.session_id.split('-')[0]) });
        break;
      }
      if (answers.length <= session) break;
    }
    child.stdin.end();
    const code = await exited;

    expect(Buffer.concat(stderr).toString('utf8')).not.toMatch(/heap|out of memory/i);
    expect(answers).toHaveLength(SESSIONS);
    expect(answers.every((answer, at) => answer.decision === 'block' && answer.session === at)).toBe(true);
    expect(code).toBe(0);
  }, 120_000);
});
