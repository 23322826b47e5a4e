import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, finished, jsonl, jsonLines, prints, start } from './helpers.js';

let root: string;
let home: string;
let ws: string;
let system: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-cli-layers-')));
  home = join(root, 'home');
  ws = join(root, 'repo');
  system = join(root, 'etc', 'config.toml');
  mkdirSync(ws, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const table = (event: string, name: string, command: string) =>
  `[[hooks.${event}]]\nname = "${name}"\ncommand = ${JSON.stringify(command)}\n`;
const flags = (...more: string[]) => ['--home', home, '--workspace', ws, '--system-config', system, ...more];
const event = (id: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  tool_name: 'shell',
  tool_use_id: id,
  cwd: ws,
  tool_input: { command: 'ls' },
});
const guardScript = () => join(ws, '.copilot-shell', 'guard.sh');
const projectGuard = () => {
  write(guardScript(), `${prints({ decision: 'block', reason: 'project says no' })}\n`);
  write(
    join(ws, '.copilot-shell', 'config.toml'),
    table('PreToolUse', 'guard', 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/guard.sh"'),
  );
};
const decisionOf = (stdout: string) => jsonLines(stdout).find((line) => line['type'] === 'hook_decision');

describe('untrusted project hooks in the audit', () => {
  it('run --audit records each project hook that does not run, with its file:line and the reason', async () => {
    write(system, '');
    projectGuard();
    const audit = join(root, 'audit.jsonl');
    const run = await cli(['run', ...flags(), '--audit', audit], { input: jsonl(event('t1')) });
    expect(decisionOf(run.stdout)).toMatchObject({ decision: 'none', hooks: [] });
    const records = jsonLines(readFileSync(audit, 'utf8')).filter((record) => record['record'] === 'config');
    expect(records).toEqual([
      expect.objectContaining({
        type: 'audit',
        record: 'config',
        subject: 'untrusted_hook',
        hook: 'guard',
        file: `${join(ws, '.copilot-shell', 'config.toml')}:1`,
        message: 'project hook does not run: project not trusted (run cosh-hooks trust)',
      }),
    ]);
  });
});

describe('cosh-hooks trust', () => {
  it('shows each project hook with its command and script digests, records them, and the hook then runs', async () => {
    write(system, '');
    projectGuard();
    const before = await cli(['run', ...flags()], { input: jsonl(event('t1')) });
    expect(decisionOf(before.stdout)).toMatchObject({ decision: 'none', hooks: [] });
    expect(before.stderr).toContain(
      `warning: ${ws}/.copilot-shell/config.toml:1: hooks.PreToolUse[0]: project hook "guard" does not run: project not trusted (run cosh-hooks trust)`,
    );

    const shown = await cli(['trust', ...flags(), '--json']);
    expect(shown.code).toBe(0);
    const report = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      workspace: ws,
      recorded: [{ event: 'PreToolUse', name: 'guard' }],
      dry_run: false,
      hooks: [
        {
          event: 'PreToolUse',
          name: 'guard',
          line: 1,
          command: 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/guard.sh"',
          scripts: [
            { path: guardScript(), sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
            // The hook folder the script is in: every file beside it is pinned too.
            {
              path: `${join(ws, '.copilot-shell')}/`,
              sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
            },
          ],
        },
      ],
    });
    const store = join(home, '.copilot-shell', 'states', 'trust.json');
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store, 'utf8'))).toMatchObject({
      version: 1,
      workspaces: { [ws]: { hooks: [{ name: 'guard' }] } },
    });

    const after = await cli(['run', ...flags()], { input: jsonl(event('t2')) });
    expect(decisionOf(after.stdout)).toMatchObject({ decision: 'block', reason: 'project says no' });
    expect(after.stderr).toBe('');
  });

  it('one byte appended to the script: run does not run it and says why; list and validate mark it', async () => {
    write(system, '');
    projectGuard();
    expect((await cli(['trust', ...flags()])).code).toBe(0);
    appendFileSync(guardScript(), ' ');
    const reason = `script ${guardScript()} changed since it was trusted (run cosh-hooks trust)`;
    const run = await cli(['run', ...flags()], { input: jsonl(event('t1')) });
    expect(decisionOf(run.stdout)).toMatchObject({ decision: 'none', hooks: [] });
    expect(run.stderr).toContain(`project hook "guard" does not run: ${reason}`);

    const list = await cli(['list', ...flags(), '--json']);
    const listed = JSON.parse(list.stdout) as { events: Record<string, Record<string, unknown>[]> };
    expect(listed.events['PreToolUse']).toMatchObject([
      { name: 'guard', source: 'config:project', enabled: false, untrusted: reason },
    ]);
    const text = await cli(['list', ...flags()], { env: { NO_COLOR: '1' } });
    expect(text.stdout).toContain(`untrusted: ${reason}`);
    const validate = await cli(['validate', ...flags()]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(reason);
  });

  it('--dry-run records nothing; --revoke forgets; nothing to trust is exit 1', async () => {
    write(system, '');
    expect((await cli(['trust', ...flags()])).code).toBe(1);
    projectGuard();
    const dry = await cli(['trust', ...flags(), '--dry-run'], { env: { NO_COLOR: '1' } });
    expect(dry.stdout).toContain('dry run: nothing recorded (1 hook(s) would be trusted)');
    expect(dry.stdout).toContain(`script ${guardScript()}  sha256:`);
    expect((await cli(['run', ...flags()], { input: jsonl(event('t')) })).stdout).toContain(
      '"decision":"none"',
    );
    await cli(['trust', ...flags()]);
    const revoke = await cli(['trust', ...flags(), '--revoke']);
    expect(revoke.stdout).toBe(`revoked trust in ${ws}\n`);
    expect((await cli(['run', ...flags()], { input: jsonl(event('t')) })).stdout).toContain(
      '"decision":"none"',
    );
  });

  it('a system config with project_hooks = false: trust has nothing to do, run reads no project file', async () => {
    write(system, '[hooks]\nproject_hooks = false\n');
    write(join(ws, '.copilot-shell', 'config.toml'), 'not toml at all [');
    const trust = await cli(['trust', ...flags()]);
    expect(trust.code).toBe(1);
    expect(trust.stderr).toContain(
      'nothing to trust: the project layer is not read: project_hooks = false (system config)',
    );
    const run = await cli(['run', ...flags()], { input: jsonl(event('t')) });
    expect(run.code).toBe(0);
  });

  it('managed_only: only the system hooks run, whatever the user config says', async () => {
    write(
      system,
      `[hooks]\nmanaged_only = true\n${table('PreToolUse', 'corp', prints({ decision: 'block', reason: 'corp policy' }))}`,
    );
    write(join(home, '.copilot-shell', 'config.toml'), '[hooks]\nenabled = false\n');
    const run = await cli(['run', ...flags()], { input: jsonl(event('t')) });
    expect(decisionOf(run.stdout)).toMatchObject({
      decision: 'block',
      hooks: [{ name: 'corp', source: 'config:system' }],
    });
    const list = await cli(['list', ...flags()], { env: { NO_COLOR: '1' } });
    expect(list.stdout).toContain('managed      only system hooks and system extensions run');
  });
});

describe('a trusted project script replaced while run is going (no --watch)', () => {
  it('is checked again at each start: the changed script does not run (spawn), and fail_closed blocks', async () => {
    write(system, '');
    projectGuard();
    // fail_closed on the project hook: a guard that cannot run must not look like one that allowed.
    appendFileSync(join(ws, '.copilot-shell', 'config.toml'), 'fail_closed = true\n');
    expect((await cli(['trust', ...flags()])).code).toBe(0);
    const child = start(['run', ...flags()]);
    const done = finished(child);
    let out = '';
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      waiters.splice(0).forEach((resolve) => resolve());
    });
    const decisions = () => jsonLines(out).filter((line) => line['type'] === 'hook_decision');
    const ask = async (id: string) => {
      const count = decisions().length;
      child.stdin.write(jsonl(event(id)));
      while (decisions().length === count) await new Promise<void>((resolve) => waiters.push(resolve));
      return decisions().at(-1);
    };
    expect(await ask('t1')).toMatchObject({ decision: 'block', reason: 'project says no' });
    // The script now allows everything: it must not be run as the trusted guard.
    write(guardScript(), `${prints({ decision: 'allow', reason: 'swapped in' })}\n`);
    const second = await ask('t2');
    expect(second).toMatchObject({ decision: 'block', hooks: [{ name: 'guard', outcome: 'spawn' }] });
    expect(String(second?.['reason'])).toContain('changed since it was trusted');
    child.stdin.end();
    expect((await done).code).toBe(0);
  });
});

describe('cosh-hooks run --watch', () => {
  it('edits while events flow: each event answered once, on the configuration current when it started; an invalid edit keeps the last good one', async () => {
    write(system, '');
    const user = join(home, '.copilot-shell', 'config.toml');
    const allow = (reason: string) => table('PreToolUse', reason, prints({ decision: 'allow', reason }));
    write(user, allow('v1'));
    const child = start(['run', '--watch', ...flags()]);
    const done = finished(child);
    let out = '';
    let err = '';
    const waiters: (() => void)[] = [];
    const wake = () => waiters.splice(0).forEach((resolve) => resolve());
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      wake();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      wake();
    });
    const until = async (ready: () => boolean) => {
      while (!ready()) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    const decisions = () => jsonLines(out).filter((line) => line['type'] === 'hook_decision');
    const ask = async (id: string) => {
      const count = decisions().length;
      child.stdin.write(jsonl(event(id)));
      await until(() => decisions().length > count);
      return decisions().at(-1);
    };

    expect(await ask('t1')).toMatchObject({ reason: 'v1' });
    write(user, allow('v2'));
    await until(() => err.includes('configuration changed: reloaded'));
    expect(await ask('t2')).toMatchObject({ reason: 'v2' });
    write(user, `${allow('v3')}timeout = "soon"\n`);
    await until(() => err.includes('keeping the last good configuration'));
    expect(err).toContain(
      `${user}:4: hooks.PreToolUse[0].timeout: expected an integer 1..600000, got "soon"`,
    );
    expect(await ask('t3')).toMatchObject({ reason: 'v2' });
    child.stdin.end();
    const result = await done;
    expect(result.code).toBe(0);
    expect(decisions().map((line) => line['seq'])).toEqual([1, 2, 3]);
  });
});
