import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'cosh-cli-init-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The README's "Next steps" block, line by line (comments are sh comments and stay). */
const nextSteps = (): string[] => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Next steps'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '');
};

describe('cosh-hooks init, then the README: edit, validate, fire', () => {
  it('runs the README sequence as written in a scratch HOME, and fire shows the edited guard blocking', () => {
    const home = join(scratch, 'home');
    const workspace = join(scratch, 'workspace');
    const bin = join(scratch, 'bin');
    for (const dir of [home, workspace, bin]) mkdirSync(dir);
    // `npx cosh-hooks …` is the built command; $EDITOR makes the edit the README's comment asks for.
    writeFileSync(
      join(bin, 'npx'),
      `#!/bin/sh\nshift\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
    );
    writeFileSync(
      join(bin, 'edit'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -e 'const fs = require("fs"); const f = process.argv[1]; fs.writeFileSync(f, fs.readFileSync(f, "utf8").replaceAll("rm -rf", "git push --force"))' "$1"\n`,
    );
    chmodSync(join(bin, 'npx'), 0o755);
    chmodSync(join(bin, 'edit'), 0o755);
    const env = {
      ...process.env,
      HOME: home,
      EDITOR: join(bin, 'edit'),
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    };
    const lines = nextSteps();
    expect(lines.map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'npx cosh-hooks',
      '$EDITOR ~/.copilot-shell/config.toml',
      'npx cosh-hooks',
      'npx cosh-hooks',
    ]);
    const outputs = lines.map((line) =>
      execFileSync('/bin/sh', ['-c', line], { cwd: workspace, env, encoding: 'utf8' }),
    );
    const config = readFileSync(join(home, '.copilot-shell', 'config.toml'), 'utf8');
    expect(config).toMatch(/^#:schema file:\/\/.*\/config\.schema\.json\n/);
    expect(config).toContain("*'git push --force'*");
    expect(outputs[0]).toContain(`wrote ${join(home, '.copilot-shell', 'config.toml')}`);
    expect(outputs[3]).toMatch(/decision BLOCK\s+git push --force is not allowed here/);
  });
});

describe('cosh-hooks init never writes over anything', () => {
  const home = join(scratch, 'taken');
  const target = join(home, '.copilot-shell', 'config.toml');
  mkdirSync(join(home, '.copilot-shell'), { recursive: true });

  it('an existing file is kept as it is, and the message says what to do', async () => {
    writeFileSync(target, '# mine\n');
    const run = await cli(['init', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cosh-hooks init: ${target}: already exists: init never overwrites a config; edit it, or move it away and run init again\n`,
    );
    expect(readFileSync(target, 'utf8')).toBe('# mine\n');
    rmSync(target);
  });

  it('a symbolic link (even a dangling one) is refused, not followed', async () => {
    const elsewhere = join(scratch, 'elsewhere.toml');
    symlinkSync(elsewhere, target);
    const run = await cli(['init', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cosh-hooks init: ${target}: is a symbolic link: init writes a new regular file only; remove it or give another path with --config\n`,
    );
    expect(existsSync(elsewhere)).toBe(false);
    rmSync(target);
  });

  it('a FIFO is refused without blocking', async () => {
    execFileSync('mkfifo', [target]);
    const run = await cli(['init', '--home', home]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cosh-hooks init: ${target}: is a FIFO: init writes a new regular file only; remove it or give another path with --config\n`,
    );
    rmSync(target);
  });

  it('--workspace writes the project config and its scripts; a taken script stops it before any write', async () => {
    const workspace = join(scratch, 'project');
    mkdirSync(join(workspace, '.copilot-shell'), { recursive: true });
    writeFileSync(join(workspace, '.copilot-shell', 'event-log.sh'), 'mine');
    const refused = await cli(['init', '--workspace', workspace]);
    expect(refused.code).toBe(1);
    expect(existsSync(join(workspace, '.copilot-shell', 'config.toml'))).toBe(false);
    rmSync(join(workspace, '.copilot-shell', 'event-log.sh'));
    const written = await cli(['init', '--workspace', workspace]);
    expect(written.code).toBe(0);
    const config = readFileSync(join(workspace, '.copilot-shell', 'config.toml'), 'utf8');
    expect(config).toContain('command = "sh \\"$COSH_WORKSPACE_PATH/.copilot-shell/no-rm-rf.sh\\""');
    const trust = await cli([
      'trust',
      '--dry-run',
      '--workspace',
      workspace,
      '--home',
      join(scratch, 'home2'),
    ]);
    expect(trust.stdout).toContain('would be trusted');
    expect(trust.stdout).not.toContain('refuse');
  });
});
