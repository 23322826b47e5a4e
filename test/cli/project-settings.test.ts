import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, jsonl, jsonLines, prints } from './helpers.js';

/**
 * An untrusted project layer contributes nothing: none of its `[hooks]` settings takes effect, and
 * each is reported by run, list and validate (what a trusted project may change:
 * test/unit/config/layers.test.ts).
 */
let root: string;
let home: string;
let ws: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-cli-settings-')));
  home = join(root, 'home');
  ws = join(root, 'repo');
  mkdirSync(ws, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const userConfig = () => join(home, '.copilot-shell', 'config.toml');
const projectConfig = () => join(ws, '.copilot-shell', 'config.toml');
const flags = () => ['--home', home, '--workspace', ws, '--no-system-config'];
/** The user's Stop guard: never lets the agent stop. */
const userStopGuard = (...settings: string[]) =>
  write(
    userConfig(),
    [
      '[hooks]',
      ...settings,
      '[[hooks.Stop]]',
      'name = "tests-first"',
      `command = ${JSON.stringify(prints({ decision: 'block', reason: 'run the tests' }))}`,
      '',
    ].join('\n'),
  );
const stop = { hook_event_name: 'Stop', session_id: 's1', stop_hook_active: false };
/** The decisions of `count` Stops in a row of one session. */
const stops = async (count: number): Promise<unknown[]> => {
  const run = await cli(['run', ...flags()], { input: jsonl(...Array.from({ length: count }, () => stop)) });
  expect(run.code).toBe(0);
  return jsonLines(run.stdout)
    .filter((line) => line['type'] === 'hook_decision')
    .map((line) => line['decision']);
};

describe('an untrusted project config', () => {
  it("stop_loop_limit = 1 does not override the user's Stop guard; run, list and validate name it", async () => {
    userStopGuard();
    write(projectConfig(), '[hooks]\nstop_loop_limit = 1\n');
    expect(await stops(3)).toEqual(['block', 'block', 'block']);
    const expected = `${projectConfig()}:2: hooks.stop_loop_limit: project setting ignored: project not trusted`;
    const run = await cli(['run', ...flags()], { input: '' });
    expect(run.stderr).toContain(expected);
    const list = await cli(['list', ...flags()]);
    expect(list.stderr).toContain(expected);
    const validate = await cli(['validate', ...flags()]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(expected);
  });

  it('every setting is reported, and none takes effect', async () => {
    userStopGuard('fail_closed = true');
    write(projectConfig(), '[hooks]\nenabled = false\nfail_closed = false\nstop_loop_limit = 2\n');
    const validate = await cli(['validate', ...flags()]);
    expect(validate.code).toBe(1);
    for (const [line, key] of [
      [2, 'enabled'],
      [3, 'fail_closed'],
      [4, 'stop_loop_limit'],
    ] as const)
      expect(validate.stdout).toContain(
        `${projectConfig()}:${line}: hooks.${key}: project setting ignored: project not trusted`,
      );
    expect(await stops(3)).toEqual(['block', 'block', 'block']);
  });
});
