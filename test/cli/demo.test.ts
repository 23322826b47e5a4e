import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { finished } from './helpers.js';

const DEMO = fileURLToPath(new URL('../../dist/examples/demo.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm start (the demo session)', () => {
  it('runs the session through the real hooks, obeys the block, and exits 0', async () => {
    expect(existsSync(DEMO)).toBe(true);
    // The demo keeps its audit log in a temp folder for the user to look at; here that goes away.
    const tmp = mkdtempSync(join(tmpdir(), 'cosh-demo-test-'));
    const result = await finished(
      spawn(process.execPath, [DEMO], { cwd: ROOT, env: { ...process.env, TMPDIR: tmp } }),
    ).finally(() => rmSync(tmp, { recursive: true, force: true }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).not.toContain('\u001b['); // not a terminal: no colours
    for (const event of [
      'SessionStart',
      'UserPromptSubmit',
      'BeforeModel',
      'AfterModel',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'Stop',
    ]) {
      expect(out).toContain(`▶ ${event}  `);
    }
    expect(out).toContain('│ Command blocked by security policy');
    expect(out).toMatch(/decision BLOCK {2}Dangerous rm -rf command/);
    expect(out).toMatch(/decision ASK {4}A force-push rewrites shared history/);
    expect(out).toMatch(/decision ALLOW {2}\(security-guard allow/);
    expect(out).toContain('context  Workspace ');
    expect(out).toContain('agent  not running rm -rf /: blocked: Dangerous rm -rf command');
    expect(out).toContain('tools run (simulated): ls -la, rm -rf ./build, git push --force origin main');
    expect(out).toContain('refused: rm -rf /');
    // The audit logger is an observer: it logs every event, the blocked call included.
    expect(out).toMatch(/audit log: 20 records in /);
    // The audit stream of the blocked call: the guard's verdict, the decision, the observer after it.
    expect(out).toMatch(/Audit of the blocked call \(seq \d+, from audit\$\)/);
    expect(out).toContain('event_received  PreToolUse shell  chain: security-guard; observers: audit-log');
    expect(out).toMatch(/hook_result {5}security-guard block "Dangerous rm -rf command[^"]*" \d+ ms/);
    expect(out).toContain('decision        block by security-guard');
    expect(out).toMatch(/observer_result audit-log none \d+ ms/);
  });
});
