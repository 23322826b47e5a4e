import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandProblems, type CommandContext } from '../../../src/config/command-check.js';
import { firstSimpleCommand } from '../../../src/config/shell-words.js';

const vars: Record<string, string> = { HOME: '/home/u', EXT: '/opt/ext', SPACED: 'a b' };
const lookup = (name: string) => vars[name];
const words = (command: string) => {
  const read = firstSimpleCommand(command, lookup);
  if (!read.ok) return read.why;
  return read.command.words.map((word) => ('text' in word ? word.text : `?${word.unknown}`));
};

describe('firstSimpleCommand: the first simple command as sh reads it', () => {
  it.each([
    ['python3 /x/y.py --strict', ['python3', '/x/y.py', '--strict']],
    [`'/a b/c' "d e" f\\ g`, ['/a b/c', 'd e', 'f g']],
    ['"$EXT"/hooks/a.sh ${EXT}/b', ['/opt/ext/hooks/a.sh', '/opt/ext/b']],
    ['~/bin/guard', ['/home/u/bin/guard']],
    ['FOO=1 PATH=/p tool arg', ['tool', 'arg']],
    ['2>/dev/null guard --x >>log <in', ['guard', '--x']],
    ['guard 2>&1 | tee log; other', ['guard']],
    ['guard && other || third & bg', ['guard']],
    ['# a comment\n\n  guard a # trailing', ['guard', 'a']],
    ['cat <<EOF\nnot-a-command\nEOF', ['cat']],
    ['guard "$(whoami)" next', ['guard', '?"$']],
    ['`which guard` x', ['?`']],
    ['$UNKNOWN/guard x', ['?$UNKNOWN/guard', 'x']],
    ['$SPACED x', ['?$SPACED']],
    ['"$SPACED" x', ['a b', 'x']],
    ['./*.sh x', ['?./*.sh', 'x']],
    ['node ${X:-default}.mjs more', ['node', '?$']],
    ['g\\\nuard', ['guard']],
    ["echo 'unterminated", ['echo', "?'unterminated"]],
  ])('%j → %j', (command, expected) => {
    expect(words(command)).toEqual(expected);
  });

  it.each([
    ['if true; then x; fi', 'it starts with the shell keyword "if"'],
    ['{ guard; }', 'it starts with the shell keyword "{"'],
    ['(cd /x && guard)', 'it starts with a subshell'],
    ['f() { x; }; f', 'it defines a function'],
    ['! guard', 'it starts with the shell keyword "!"'],
    ['<<EOF\nbody\nEOF', 'it starts with a here-document'],
  ])('%j has no first program to check: %s', (command, why) => {
    expect(words(command)).toBe(why);
  });

  it('keeps control characters and non-ASCII as word text', () => {
    expect(words('/x/\u0001\u202eé')).toEqual(['/x/\u0001\u202eé']);
  });

  it('does not read an absurdly long command', () => {
    expect(words(`guard ${'a'.repeat(70_000)}`)).toBe('the command is too long to read');
  });
});

describe('commandProblems: the program and its script, as /bin/sh would find them', () => {
  let root: string;
  let bin: string;
  let context: CommandContext;
  const env: Record<string, string> = {};

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cosh-command-check-'));
    bin = join(root, 'bin');
    mkdirSync(bin);
    mkdirSync(join(root, 'hooks'));
    mkdirSync(join(root, 'a dir'));
    for (const [name, mode] of [
      ['bin/guard', 0o755],
      ['bin/plain', 0o644],
      ['hooks/scan.py', 0o644],
      ['hooks/check.mjs', 0o644],
      ['hooks/run.sh', 0o644],
      ['a dir/x y.py', 0o644],
    ] as const) {
      writeFileSync(join(root, name), '#!/bin/sh\n');
      chmodSync(join(root, name), mode);
    }
    execFileSync('mkfifo', [join(root, 'hooks', 'fifo.py')]);
    Object.assign(env, { PATH: `${bin}:/usr/bin:/bin`, ROOT: root, HOME: root });
    context = { lookup: (name) => env[name], cwd: root };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const problems = (command: string) => commandProblems(command, context);

  it.each([
    'guard --strict',
    'sh -c "exit 0"',
    'python3 hooks/scan.py',
    'python3 -u -W ignore "$ROOT/hooks/scan.py"',
    'node --import tsx ./hooks/check.mjs',
    "python3 '$ROOT/a dir/x y.py'".replace('$ROOT', ''), // quoting checked below with a real path
    'sh ./hooks/run.sh',
    'bash -eu -o pipefail hooks/run.sh',
    'exec guard',
    '/usr/bin/env python3 hooks/scan.py',
    '. ./hooks/run.sh',
    'echo \'{"decision":"block"}\'',
    'python3 -c "import sys"',
    'node -e "1"',
    'python3 -m json.tool',
    'guard "$(cat /etc/hostname)"',
    '$NOT_SET_ANYWHERE/guard',
    'cd /nowhere && missing-program',
    'if missing-program; then :; fi',
  ])('%j would start (or cannot be known): no problem', (command) => {
    if (command.startsWith("python3 '")) {
      expect(problems(`python3 '${root}/a dir/x y.py'`)).toEqual([]);
      return;
    }
    expect(problems(command)).toEqual([]);
  });

  it.each([
    ['missing-guard --strict', 'program "missing-guard" not found in PATH'],
    ['/nonexistent/guard', 'program "/nonexistent/guard" not found'],
    [
      'plain',
      expect.stringMatching(/^program "plain" is not executable: .*bin\/plain \(Permission denied\)$/),
    ],
    [
      './bin',
      expect.stringMatching(/^program "\.\/bin" is not a regular file \(a relative path: looked for in /),
    ],
    ['python3 /x/y.py', 'script "/x/y.py" not found'],
    [
      'python3 -u hooks/nope.py',
      expect.stringMatching(/^script "hooks\/nope\.py" not found \(a relative path/),
    ],
    ['node hooks/missing.mjs', expect.stringMatching(/^script "hooks\/missing\.mjs" not found/)],
    ['sh ./a.sh', expect.stringMatching(/^script "\.\/a\.sh" not found/)],
    ['python3 hooks/fifo.py', expect.stringMatching(/^script "hooks\/fifo\.py" is not a regular file/)],
    ['python3 "$ROOT/a dir/x z.py"', expect.stringMatching(/^script ".*\/a dir\/x z\.py" not found$/)],
    ['exec missing-guard', 'program "missing-guard" not found in PATH'],
    ['env A=1 missing-guard', 'program "missing-guard" not found in PATH'],
    ['sh -c "python3 /x/y.py"', 'script "/x/y.py" not found'],
    ['bash -ec \'missing-guard "$1"\' x', 'program "missing-guard" not found in PATH'],
    ['2>/dev/null missing-guard', 'program "missing-guard" not found in PATH'],
    ['PATH=/nowhere guard', 'program "guard" not found in PATH'],
    ['. ./nope.sh', expect.stringMatching(/^script "\.\/nope\.sh" not found/)],
    ['python3 /x/y.py; rm -rf /', 'script "/x/y.py" not found'],
  ])('%j cannot start: %s', (command, message) => {
    expect(problems(command)).toEqual([message]);
  });

  it('looks the program up in the PATH it is given (the hook env wins over the host)', () => {
    expect(
      commandProblems('guard', { lookup: (name) => (name === 'PATH' ? '/usr/bin' : undefined), cwd: root }),
    ).toEqual(['program "guard" not found in PATH']);
  });

  it('uses sh default search path when PATH is unset', () => {
    expect(commandProblems('sh -c :', { lookup: () => undefined, cwd: root })).toEqual([]);
    expect(commandProblems('no-such-tool', { lookup: () => undefined, cwd: root })).toEqual([
      'program "no-such-tool" not found in PATH (unset: sh searches its default path)',
    ]);
  });

  it('does not search an absurd PATH (a stat per entry)', () => {
    const path = Array.from({ length: 2000 }, (_, i) => `/nowhere/${i}`).join(':');
    expect(
      commandProblems('missing-guard', { lookup: (name) => (name === 'PATH' ? path : undefined), cwd: root }),
    ).toEqual([]);
    const short = Array.from({ length: 1000 }, (_, i) => `/nowhere/${i}`).join(':');
    expect(
      commandProblems('missing-guard', {
        lookup: (name) => (name === 'PATH' ? short : undefined),
        cwd: root,
      }),
    ).toEqual(['program "missing-guard" not found in PATH']);
  });

  it('stops descending into sh -c after a few levels', () => {
    const nested = `sh -c ${JSON.stringify(`sh -c ${JSON.stringify(`sh -c ${JSON.stringify('sh -c missing-guard')}`)}`)}`;
    expect(problems(nested)).toEqual([]);
    expect(problems('sh -c "sh -c missing-guard"')).toEqual(['program "missing-guard" not found in PATH']);
  });
});
