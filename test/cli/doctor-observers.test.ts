import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, hookTable, sandbox } from './helpers.js';

/** `doctor` and `fire` cover observers; `doctor` reads a hook's answer in another agent's words. */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cosh-doctor-'));
  mkdirSync(join(home, 'none'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const examples = () => [
  '--config',
  join(REPO, 'examples', 'config.toml'),
  '--home',
  home,
  '--no-system-config',
  '--system-extensions-dir',
  join(home, 'none'),
];

describe('doctor and fire with observers', () => {
  it('doctor passes on examples/config.toml: observers dry-run too, relative commands from the folder run uses', async () => {
    const log = join(home, 'audit.jsonl');
    const doctor = await cli(['doctor', '--json', ...examples()], { cwd: REPO, env: { AUDIT_LOG: log } });
    const report = JSON.parse(doctor.stdout) as {
      ok: boolean;
      hooks: { event: string; name: string; answered: boolean; observer?: boolean }[];
    };
    expect(report.hooks.filter((run) => !run.answered)).toEqual([]);
    expect(report.hooks.filter((run) => run.observer === true).map((run) => run.event)).toEqual([
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'UserPromptSubmit',
      'SessionStart',
      'Stop',
      'BeforeModel',
      'AfterModel',
    ]);
    expect(report.ok).toBe(true);
    expect(doctor.code).toBe(0);
    // The observers really ran: the audit logger wrote one line per sample event.
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(8);
  });

  it('fire shows what observers ran', async () => {
    const log = join(home, 'audit.jsonl');
    const fire = await cli(
      ['fire', 'PreToolUse', '--tool', 'shell', '--input', '{"command":"ls"}', '--json', ...examples()],
      {
        cwd: REPO,
        env: { AUDIT_LOG: log },
      },
    );
    expect(fire.code).toBe(0);
    const shown = JSON.parse(fire.stdout) as { observers?: { name: string; outcome: string }[] };
    expect(shown.observers).toEqual([expect.objectContaining({ name: 'audit-log', outcome: 'ok' })]);
    const text = await cli(
      ['fire', 'PreToolUse', '--tool', 'shell', '--input', '{"command":"ls"}', ...examples()],
      {
        cwd: REPO,
        env: { AUDIT_LOG: log },
      },
    );
    expect(text.stdout).toMatch(/observer audit-log: ok/);
  });

  it("doctor reports a hook without dialect that answers in another agent's words", async () => {
    const box = sandbox(
      hookTable('PreToolUse', { name: 'claude-style', command: "echo 'not allowed' >&2; exit 2" }),
    );
    try {
      const doctor = await cli(['doctor', ...box.flags]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain(
        `${box.path('config.toml')}:1: hook "claude-style" (PreToolUse, no dialect) answered in another agent's words`,
      );
    } finally {
      box.remove();
    }
  });
});
