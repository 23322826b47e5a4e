// The trust recipe of docs/recipes.md, run as written: the shell block is taken from the page and
// run by bash in a scratch folder with the built `cosh-hooks` on PATH; what it prints must be the
// page's text block.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../cli/helpers.js';

const recipes = readFileSync(fileURLToPath(new URL('../../docs/recipes.md', import.meta.url)), 'utf8');
const section = recipes.slice(recipes.indexOf("## Trusting a project's hooks"));
/** The first fenced block of this kind in the section, without its fences. */
const block = (fence: string): string => {
  const open = `\`\`\`${fence}\n`;
  const start = section.indexOf(open) + open.length;
  return section.slice(start, section.indexOf('\n```', start) + 1);
};

const root = realpathSync(mkdtempSync(join(tmpdir(), 'cosh-trust-recipe-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("recipes: trusting a project's hooks", () => {
  it('prints what the page says: not run, then blocking once trusted, then not run after the script changed', () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // The machine's own /etc/copilot-shell/config.toml must not change the result.
    writeFileSync(
      join(bin, 'cosh-hooks'),
      `#!/bin/sh\ncmd="$1"; shift\nexec "${process.execPath}" "${BIN}" "$cmd" --no-system-config "$@"\n`,
    );
    chmodSync(join(bin, 'cosh-hooks'), 0o755);
    const printed = execFileSync('bash', ['-e', '-c', block('sh')], {
      cwd: root,
      env: {
        ...process.env,
        HOME: join(root, 'home'),
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        NO_COLOR: '1',
      },
      encoding: 'utf8',
    });
    expect(printed.replaceAll(join(root, 'repo'), '/repo')).toBe(block('text'));
  });
});
