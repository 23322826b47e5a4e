import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, finished, jsonl, jsonLines, prints, start } from './helpers.js';

/** `run --watch` never opens a guard: a tampered trusted guard blocks as in a plain run. */
let root: string;
let home: string;
let ws: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-cli-watch-')));
  home = join(root, 'home');
  ws = join(root, 'repo');
  mkdirSync(ws, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const flags = () => ['--home', home, '--workspace', ws, '--no-system-config'];
const event = (id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_use_id: id,
  cwd: ws,
  tool_input: { command: 'rm -rf /' },
});

describe('cosh-hooks run --watch', () => {
  it('a trusted fail_closed guard whose script gains a line blocks, as in run; stderr and the audit say why', async () => {
    const script = join(ws, '.copilot-shell', 'guard.sh');
    const project = join(ws, '.copilot-shell', 'config.toml');
    write(script, `${prints({ decision: 'allow', reason: 'checked' })}\n`);
    write(
      project,
      '[[hooks.PreToolUse]]\nname = "guard"\ncommand = \'sh "$COSH_WORKSPACE_PATH/.copilot-shell/guard.sh"\'\nfail_closed = true\n',
    );
    expect((await cli(['trust', ...flags()])).code).toBe(0);
    const audit = join(root, 'audit.jsonl');
    const child = start(['run', '--watch', ...flags(), '--audit', audit]);
    const done = finished(child);
    let out = '';
    let err = '';
    const waiters: (() => void)[] = [];
    const wake = () => waiters.splice(0).forEach((resolve) => resolve());
    child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), wake()));
    child.stderr.on('data', (chunk: Buffer) => ((err += chunk.toString()), wake()));
    const until = async (ready: () => boolean) => {
      while (!ready()) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    const decisions = () => jsonLines(out).filter((line) => line['type'] === 'hook_decision');
    child.stdin.write(jsonl(event('t1')));
    await until(() => decisions().length === 1);
    appendFileSync(script, 'rm -rf "$HOME"\n');
    await until(() => err.includes('configuration changed: reloaded'));
    child.stdin.end(jsonl(event('t2')));
    const result = await done;
    expect(result.code).toBe(0);
    expect(decisions().map((line) => line['decision'])).toEqual(['allow', 'block']);
    expect(err).toContain(
      `${project}:1: hooks.PreToolUse[0]: project hook "guard" changed since it was trusted`,
    );
    const kept = jsonLines(readFileSync(audit, 'utf8')).filter(
      (record) => record['subject'] === 'reload_kept_hook',
    );
    expect(kept.map((record) => record['file'])).toEqual([`${project}:1`]);
  });
});
