// docs/cli.md against the built command: every flag the page names exists in some command's
// `--help`, every flag a `--help` prints is on the page, and the defaults the page states are the
// ones `--help` prints.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

const page = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
const COMMANDS = ['run', 'validate', 'list', 'doctor', 'fire', 'replay', 'trust', 'import', 'mcp-proxy'];

const flagsIn = (text: string): Set<string> =>
  new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]));

let help = '';
beforeAll(async () => {
  const outputs = await Promise.all(
    [[], ...COMMANDS.map((command) => [command])].map((args) => cli([...args, '--help'])),
  );
  for (const output of outputs) expect(output.code).toBe(0);
  help = outputs.map((output) => output.stdout).join('\n');
});

describe('docs/cli.md and the command', () => {
  it('names only flags that exist', () => {
    const missing = [...flagsIn(page)].filter((flag) => !flagsIn(help).has(flag));
    expect(missing).toStrictEqual([]);
  });

  it('names every flag of every command', () => {
    const undocumented = [...flagsIn(help)].filter((flag) => !flagsIn(page).has(flag));
    expect(undocumented).toStrictEqual([]);
  });

  it('states the defaults --help prints', () => {
    expect(help).toMatch(/--max-processes <n>[^(]*\(default: 32\)/);
    expect(page).toContain('`--max-processes N` (default 32)');
    expect(help).toMatch(/--max-line-bytes <n>[^(]*\(default: 33554432\)/);
    expect(page).toContain('(default 33554432, 32 MiB)');
    expect(help).toMatch(/--observer-queue <n>[^(]*\(default: 64\)/);
    expect(page).toContain('events one observer may hold (default 64)');
    expect(help).toMatch(/--session <id>[^(]*\(default: cosh-hooks-fire\)/);
    expect(page).toContain('`session_id` (default `cosh-hooks-fire`)');
  });
});
