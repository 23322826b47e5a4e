import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerOf, diffAnswers, readAnswers } from '../../src/cli/replay-compare.js';
import { replayItemsOf } from '../../src/cli/replay-input.js';
import { JsonLine } from '../../src/events/input.js';
import { cli, jsonl } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'cosh-cli-replay-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
mkdirSync(join(scratch, 'none'));
const isolated = ['--home', join(scratch, 'home'), '--system-extensions-dir', join(scratch, 'none')];

describe('replay: reading and comparing (pure)', () => {
  it('each non-blank line is an input line with its physical number, as in run', () => {
    expect(replayItemsOf('{"a":1}\n\n  \n{"b":2}\r\nnot json\n')).toStrictEqual([
      new JsonLine(1, '{"a":1}'),
      new JsonLine(4, '{"b":2}'),
      new JsonLine(5, 'not json'),
    ]);
  });

  it('answers leave out seq and each hook duration; notifications are not answers', () => {
    expect(
      answerOf({
        type: 'hook_decision',
        seq: 7,
        hook_event_name: 'Stop',
        session_id: 's',
        decision: 'block',
        hooks: [{ name: 'h', source: 'config', decision: 'block', outcome: 'ok', duration_ms: 12 }],
      }),
    ).toStrictEqual({
      type: 'hook_decision',
      hook_event_name: 'Stop',
      session_id: 's',
      decision: 'block',
      hooks: [{ name: 'h', source: 'config', decision: 'block', outcome: 'ok' }],
    });
    expect(answerOf({ type: 'stream_event', event: {} })).toBeUndefined();
    const read = readAnswers('{"type":"hook_error","line":2,"message":"m"}\n{oops\n', 'd.jsonl');
    expect(read.ok ? '' : read.error).toMatch(/^d\.jsonl:2: not JSON: /);
  });

  it('the diff names the answer and each field that differs; key order does not matter', () => {
    const want = {
      type: 'hook_decision',
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_use_id: 't1',
      decision: 'allow',
      hooks: [],
    };
    const got = {
      hooks: [],
      decision: 'block',
      reason: 'no',
      tool_use_id: 't1',
      session_id: 's',
      hook_event_name: 'PreToolUse',
      type: 'hook_decision',
    };
    expect(diffAnswers([want], [{ ...want }])).toStrictEqual([]);
    expect(diffAnswers([want, want], [got])).toStrictEqual([
      '#1 PreToolUse session s tool_use_id t1:',
      '  decision: expected "allow", got "block"',
      '  reason: expected (absent), got "no"',
      '#2 PreToolUse session s tool_use_id t1: expected, but the replay gave no such answer',
      '  {"decision":"allow","hook_event_name":"PreToolUse","hooks":[],"session_id":"s","tool_use_id":"t1","type":"hook_decision"}',
    ]);
    expect(diffAnswers([], [{ type: 'hook_error', line: 3, message: 'm' }])).toStrictEqual([
      '#1 hook_error line 3: not expected',
      '  {"line":3,"message":"m","type":"hook_error"}',
    ]);
  });
});

const config = join(scratch, 'config.toml');
const script = join(scratch, 'no-rm.sh');
writeFileSync(
  script,
  '#!/bin/sh\nif grep -q "rm -rf"; then echo \'{"decision":"block","reason":"no rm"}\'; fi\n',
  { mode: 0o755 },
);
writeFileSync(
  config,
  `[[hooks.PreToolUse]]\nname = "no-rm"\ncommand = "sh ${script}"\nmatcher = "^shell$"\n`,
);
const events = join(scratch, 'events.jsonl');
writeFileSync(
  events,
  jsonl(
    {
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_use_id: 't1',
      tool_name: 'shell',
      tool_input: { command: 'ls' },
    },
    {
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_use_id: 't2',
      tool_name: 'shell',
      tool_input: { command: 'rm -rf /' },
    },
    { hook_event_name: 'Nope', session_id: 's' },
  ),
);

describe('cosh-hooks replay (the built binary)', () => {
  it('prints the decisions without seq and durations; --update writes them; a second replay matches', async () => {
    const printed = await cli(['replay', events, ...isolated, '--config', config]);
    expect(printed.code).toBe(0);
    expect(printed.stdout.split('\n')).toStrictEqual([
      '{"type":"hook_decision","hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"t1","decision":"none","hooks":[{"name":"no-rm","source":"config","decision":"none","outcome":"ok"}]}',
      '{"type":"hook_decision","hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"t2","decision":"block","reason":"no rm","hooks":[{"name":"no-rm","source":"config","decision":"block","outcome":"ok"}]}',
      expect.stringMatching(
        /^\{"type":"hook_error","line":3,"session_id":"s","message":"hook_event_name: unknown event \\"Nope\\"/,
      ),
      '',
    ]);

    const expectation = join(scratch, 'decisions.jsonl');
    const updated = await cli([
      'replay',
      events,
      ...isolated,
      '--config',
      config,
      '--expect',
      expectation,
      '--update',
    ]);
    expect(updated.code).toBe(0);
    expect(updated.stderr).toBe(`cosh-hooks replay: wrote 3 decisions to ${expectation}\n`);
    expect(readFileSync(expectation, 'utf8')).toBe(printed.stdout);

    const again = await cli(['replay', events, ...isolated, '--config', config, '--expect', expectation]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`cosh-hooks replay: 3 decisions match ${expectation}\n`);
  });

  it("a host's own run output is an expectation too: seq and durations are ignored", async () => {
    const run = await cli(['run', ...isolated, '--config', config], { input: readFileSync(events) });
    const recorded = join(scratch, 'run-output.jsonl');
    writeFileSync(recorded, run.stdout);
    const replayed = await cli(['replay', events, ...isolated, '--config', config, '--expect', recorded]);
    expect(replayed.stderr).toBe(`cosh-hooks replay: 3 decisions match ${recorded}\n`);
    expect(replayed.code).toBe(0);
  });

  it('a changed hook is a difference: exit 1 with a diff naming the decision and the fields', async () => {
    const expectation = join(scratch, 'allow-all.jsonl');
    writeFileSync(
      expectation,
      [
        '{"type":"hook_decision","hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"t1","decision":"none","hooks":[{"name":"no-rm","source":"config","decision":"none","outcome":"ok"}]}',
        '{"type":"hook_decision","hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"t2","decision":"none","hooks":[{"name":"no-rm","source":"config","decision":"none","outcome":"ok"}]}',
        '',
      ].join('\n'),
    );
    const replayed = await cli(['replay', events, ...isolated, '--config', config, '--expect', expectation]);
    expect(replayed.code).toBe(1);
    const lines = replayed.stderr.split('\n');
    expect(lines.slice(0, 4)).toStrictEqual([
      '#2 PreToolUse session s tool_use_id t2:',
      '  decision: expected "none", got "block"',
      '  hooks: expected [{"name":"no-rm","source":"config","decision":"none","outcome":"ok"}], got [{"name":"no-rm","source":"config","decision":"block","outcome":"ok"}]',
      '  reason: expected (absent), got "no rm"',
    ]);
    expect(lines[4]).toBe('#3 hook_error line 3: not expected');
    expect(replayed.stderr).toContain(
      `cosh-hooks replay: the decisions differ from ${expectation} (expected 2, got 3)\n`,
    );
  });

  it('usage problems: --update without --expect, a missing file, an invalid config', async () => {
    const update = await cli(['replay', events, ...isolated, '--update']);
    expect(update.code).toBe(1);
    expect(update.stderr).toBe('cosh-hooks replay: --update needs --expect FILE to write\n');
    const missing = await cli(['replay', join(scratch, 'none.jsonl'), ...isolated]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cosh-hooks replay: cannot read ${join(scratch, 'none.jsonl')}:`);
    const bad = join(scratch, 'bad.toml');
    writeFileSync(bad, '[hooks]\nstop_loop_limit = 0\n');
    const invalid = await cli(['replay', events, ...isolated, '--config', bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('hooks.stop_loop_limit: expected an integer 1..1000, got 0');
  });

  it('the Stop-loop guard takes [hooks] stop_loop_limit from the config file', async () => {
    const loop = join(scratch, 'loop.toml');
    writeFileSync(
      loop,
      '[hooks]\nstop_loop_limit = 2\n\n[[hooks.Stop]]\nname = "always-block"\ncommand = "echo \'{\\"decision\\":\\"block\\",\\"reason\\":\\"keep going\\"}\'"\n',
    );
    const stops = join(scratch, 'stops.jsonl');
    const stop = { hook_event_name: 'Stop', session_id: 's' };
    writeFileSync(stops, jsonl(stop, stop, stop, stop));
    const replayed = await cli(['replay', stops, ...isolated, '--config', loop]);
    expect(replayed.code).toBe(0);
    const decisions = replayed.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(decisions.map((line) => line['decision'])).toStrictEqual(['block', 'block', 'none', 'block']);
    expect(decisions[2]?.['stop_loop_guard']).toStrictEqual({
      limit: 2,
      blocked: 2,
      overridden: { decision: 'block', reason: 'keep going' },
    });
  });
});
