import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initCommand } from '../../../src/cli/init.js';

// Issue 38, class 4: `init --workspace` in a checkout whose `.copilot-shell` is a link (to the
// user's own `~/.copilot-shell`) wrote the project starter into the user's config, where its
// hooks run the scripts of whatever workspace the agent is in. Every component below the
// workspace is checked; nothing is written through a link or outside the workspace.

let root: string;
let ws: string;
let home: string;
let stderr: string[];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-init-links-')));
  ws = join(root, 'checkout');
  home = join(root, 'home');
  mkdirSync(ws);
  mkdirSync(join(home, '.copilot-shell'), { recursive: true });
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
    stderr.push(String(text));
    return true;
  });
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

const init = () => initCommand({ workspace: ws, home });

describe('init --workspace never writes through a link or outside the workspace', () => {
  it("a .copilot-shell linked to the user's ~/.copilot-shell: refused, the user's folder untouched", () => {
    symlinkSync(join(home, '.copilot-shell'), join(ws, '.copilot-shell'));
    expect(init()).toBe(1);
    expect(readdirSync(join(home, '.copilot-shell'))).toEqual([]);
    expect(stderr.join('')).toBe(
      `cosh-hooks init: ${join(ws, '.copilot-shell')}: is a symbolic link: init --workspace writes only into a real folder inside the workspace; remove the link\n`,
    );
  });

  it('a .copilot-shell linked to another folder of the same workspace: refused too', () => {
    mkdirSync(join(ws, 'config'));
    symlinkSync(join(ws, 'config'), join(ws, '.copilot-shell'));
    expect(init()).toBe(1);
    expect(readdirSync(join(ws, 'config'))).toEqual([]);
    expect(stderr.join('')).toContain('is a symbolic link');
  });

  it('a dangling .copilot-shell link: refused, nothing created where it points', () => {
    symlinkSync(join(home, 'nowhere'), join(ws, '.copilot-shell'));
    expect(init()).toBe(1);
    expect(existsSync(join(home, 'nowhere'))).toBe(false);
    expect(stderr.join('')).toContain('is a symbolic link');
  });

  it('a .copilot-shell that is a file: refused with what it is', () => {
    writeFileSync(join(ws, '.copilot-shell'), '');
    expect(init()).toBe(1);
    expect(stderr.join('')).toContain(`${join(ws, '.copilot-shell')}: is a file, not a folder`);
  });

  it('a script name taken by a link to a file outside: refused before any write', () => {
    mkdirSync(join(ws, '.copilot-shell'));
    writeFileSync(join(home, 'victim.sh'), 'mine');
    symlinkSync(join(home, 'victim.sh'), join(ws, '.copilot-shell', 'no-rm-rf.sh'));
    expect(init()).toBe(1);
    expect(existsSync(join(ws, '.copilot-shell', 'config.toml'))).toBe(false);
    expect(stderr.join('')).toContain('is a symbolic link');
  });

  it('a real folder, or none yet: written inside the workspace', () => {
    expect(init()).toBe(0);
    expect(readdirSync(join(ws, '.copilot-shell')).sort()).toEqual([
      'config.toml',
      'event-log.sh',
      'no-rm-rf.sh',
    ]);
  });
});
