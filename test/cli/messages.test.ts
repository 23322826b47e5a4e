import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, sandbox } from './helpers.js';

/** Every message says what to do: what was wrong, with the path or line, and the next step. */
const box = sandbox(hookTable('PreToolUse', { name: 'allow', command: 'cat > /dev/null' }));
afterAll(() => box.remove());
const event = { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'shell', tool_input: {} };

describe('run --audit: a target that is no file', () => {
  it('a FIFO without a reader: one line naming the path and what to give instead', async () => {
    const fifo = box.path('audit.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await cli(['run', ...box.flags, '--audit', fifo], { input: jsonl(event) });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `cosh-hooks: --audit ${fifo}: is a FIFO, not a regular file: give the path of a file (created if missing) or - for stderr\n`,
    );
    expect(run.stderr).not.toMatch(/ENXIO/);
  });

  it('a folder: one line naming it, no EISDIR', async () => {
    const folder = box.path('audits');
    mkdirSync(folder);
    const run = await cli(['run', ...box.flags, '--audit', folder], { input: jsonl(event) });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `cosh-hooks: --audit ${folder}: is a folder, not a regular file: give the path of a file (created if missing) or - for stderr\n`,
    );
  });

  it('a file in a folder that does not exist: says so', async () => {
    const missing = box.path('no-such-folder/audit.jsonl');
    const run = await cli(['run', ...box.flags, '--audit', missing], { input: jsonl(event) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cosh-hooks: --audit ${missing}: its folder does not exist: create it, or give the path of a file (created if missing) or - for stderr\n`,
    );
  });
});

describe('replay --expect', () => {
  it('a missing expectation file hints --update, with the command to run', async () => {
    const events = box.write('events.jsonl', jsonl(event));
    const expected = box.path('decisions.jsonl');
    const replay = await cli(['replay', events, '--expect', expected, ...box.flags]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toBe(
      `cosh-hooks replay: ${expected} does not exist: record it first with --update (cosh-hooks replay ${events} --expect ${expected} --update)\n`,
    );
    const recorded = await cli(['replay', events, '--expect', expected, '--update', ...box.flags]);
    expect(recorded.code).toBe(0);
    const compared = await cli(['replay', events, '--expect', expected, ...box.flags]);
    expect(compared.code).toBe(0);
  });
});

describe('hook_error lines carry the ids the input had', () => {
  it('session_id and tool_use_id when they are strings; none from a line that is not JSON', async () => {
    const run = await cli(['run', ...box.flags], {
      input: jsonl(
        { ...event, tool_use_id: 't1', tool_input: 'rm' },
        { hook_event_name: 'Stop', session_id: 's2', tool_use_id: 7 },
        { hook_event_name: 'BeforeLunch', session_id: 's3' },
        '{"session_id": "s4", broken',
        { hook_event_name: 'PreToolUse', session_id: ['s5'], tool_use_id: 't5' },
      ),
    });
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout).map(({ message: _message, ...line }) => line)).toStrictEqual([
      { type: 'hook_error', line: 1, session_id: 's1', tool_use_id: 't1' },
      { type: 'hook_error', line: 2, session_id: 's2' },
      { type: 'hook_error', line: 3, session_id: 's3' },
      { type: 'hook_error', line: 4 },
      { type: 'hook_error', line: 5, tool_use_id: 't5' },
    ]);
  });
});
