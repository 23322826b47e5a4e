import { accessSync, constants, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { firstSimpleCommand, type Lookup, type Word } from './shell-words.js';

/**
 * Whether a hook's command can start, checked at load time without running anything
 * (docs/configuration.md, "Checks at load"): the program of its first simple command resolves to
 * an executable file as `/bin/sh` would find it, and when that program is an interpreter given a
 * script (`python3 /x/y.py`, `node hook.mjs`, `sh ./a.sh`), the script is a readable file.
 * `sh -c 'text'` is checked again on its text, a few levels deep. Reads the file system (stat and
 * access), never executes.
 */

/** Where and with what a command would run: the values the check must use as sh would. */
export interface CommandContext {
  /** Variables certain before the hook runs: the host's environment, the hook's `env`, fixed engine variables. */
  readonly lookup: Lookup;
  /** Folder relative paths are read against: the workspace (hooks run in the event's `cwd`, usually it). */
  readonly cwd: string;
}

/** More `PATH` entries than this are not searched (a stat each): such a command is not checked. */
const MAX_PATH_ENTRIES = 1024;

/** `/bin/sh`'s search path when `PATH` is unset (dash's default). */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Builtins of sh (dash and bash): found without a PATH search, so there is nothing to check. */
const BUILTINS = new Set([
  ':',
  '.',
  'source',
  'alias',
  'bg',
  'break',
  'builtin',
  'cd',
  'chdir',
  'command',
  'continue',
  'declare',
  'echo',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'fc',
  'fg',
  'getopts',
  'hash',
  'jobs',
  'kill',
  'let',
  'local',
  'printf',
  'pwd',
  'read',
  'readonly',
  'return',
  'set',
  'shift',
  'test',
  '[',
  'times',
  'trap',
  'true',
  'type',
  'typeset',
  'ulimit',
  'umask',
  'unalias',
  'unset',
  'wait',
]);

/** How an interpreter takes its script: options that end the search, options that take a value. */
interface Interpreter {
  /** Options after which there is no script file (code given inline, a module, stdin). */
  readonly noScript: ReadonlySet<string>;
  /** Options whose value is the next word. */
  readonly withValue: ReadonlySet<string>;
}

const SHELL: Interpreter = {
  noScript: new Set(['-s', '-i', '--help', '--version']),
  withValue: new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']),
};
const PYTHON: Interpreter = {
  noScript: new Set(['-c', '-m', '-', '-h', '--help', '-V', '--version']),
  withValue: new Set(['-W', '-X', '--check-hash-based-pycs']),
};
const NODE: Interpreter = {
  noScript: new Set([
    '-e',
    '--eval',
    '-p',
    '--print',
    '-',
    '-i',
    '--interactive',
    '-h',
    '--help',
    '-v',
    '--version',
  ]),
  withValue: new Set([
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-C',
    '--conditions',
    '--input-type',
    '--env-file',
    '--title',
    '--watch-path',
    '--test-reporter',
    '--test-reporter-destination',
    '--test-name-pattern',
    '--inspect-port',
    '--stack-size',
  ]),
};
const RUBY: Interpreter = {
  noScript: new Set(['-e', '-', '-h', '--help', '-v', '--version']),
  withValue: new Set(['-r', '-I', '-C', '-E', '-F']),
};
const PERL: Interpreter = {
  noScript: new Set(['-e', '-E', '-', '-h', '-v']),
  withValue: new Set(['-I', '-M', '-m']),
};

const interpreterOf = (program: string): Interpreter | undefined => {
  const name = basename(program);
  if (/^(?:sh|bash|dash|zsh|ksh|mksh|ash)$/.test(name)) return SHELL;
  if (/^(?:python|pypy)(?:[0-9]+(?:\.[0-9]+)?)?$/.test(name)) return PYTHON;
  if (/^(?:node|nodejs)$/.test(name)) return NODE;
  if (/^ruby(?:[0-9.]+)?$/.test(name)) return RUBY;
  if (/^perl(?:[0-9.]+)?$/.test(name)) return PERL;
  return undefined;
};

const isShell = (program: string): boolean => interpreterOf(program) === SHELL;

/** What the file at `path` is, for a program (executable) or a script (readable). */
const fileProblem = (path: string, need: 'execute' | 'read'): string | undefined => {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'not found' : `cannot be read (${code ?? 'error'})`;
  }
  if (!isFile) return 'is not a regular file';
  try {
    accessSync(path, need === 'execute' ? constants.X_OK : constants.R_OK);
  } catch {
    return need === 'execute'
      ? 'is not executable (Permission denied)'
      : 'is not readable (Permission denied)';
  }
  return undefined;
};

/** `./a.sh` against the folder the hook runs in; sh reads an absolute path as it is. */
const placed = (path: string, cwd: string): string => (isAbsolute(path) ? path : resolve(cwd, path));

const relativeNote = (path: string, cwd: string): string =>
  isAbsolute(path) ? '' : ` (a relative path: looked for in ${cwd}; the hook runs in the event's cwd)`;

/** The file sh would execute for `program`, why there is none, or undefined when not searched. */
const findProgram = (
  program: string,
  path: string | undefined,
  cwd: string,
): { found: string } | { problem: string } | undefined => {
  if (program.includes('/')) {
    const problem = fileProblem(placed(program, cwd), 'execute');
    return problem === undefined
      ? { found: placed(program, cwd) }
      : { problem: `program ${JSON.stringify(program)} ${problem}${relativeNote(program, cwd)}` };
  }
  let denied: string | undefined;
  const dirs = (path ?? DEFAULT_PATH).split(':');
  if (dirs.length > MAX_PATH_ENTRIES) return undefined;
  for (const dir of dirs) {
    const candidate = join(dir === '' ? cwd : placed(dir, cwd), program);
    const problem = fileProblem(candidate, 'execute');
    if (problem === undefined) return { found: candidate };
    if (problem !== 'not found' && problem !== 'is not a regular file') denied ??= candidate;
  }
  return denied !== undefined
    ? { problem: `program ${JSON.stringify(program)} is not executable: ${denied} (Permission denied)` }
    : {
        problem: `program ${JSON.stringify(program)} not found in PATH${path === undefined ? ' (unset: sh searches its default path)' : ''}`,
      };
};

const textOf = (word: Word | undefined): string | undefined =>
  word !== undefined && 'text' in word ? word.text : undefined;

/** The words after an interpreter: the script, `{ inline }` for `sh -c TEXT`, or nothing certain. */
const scriptOf = (
  interpreter: Interpreter,
  shell: boolean,
  args: readonly Word[],
): { script: string } | { inline: string } | undefined => {
  for (let i = 0; i < args.length; i += 1) {
    const arg = textOf(args[i]);
    if (arg === undefined) return undefined;
    if (arg === '--') {
      const script = textOf(args[i + 1]);
      return script === undefined ? undefined : { script };
    }
    if (shell && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) {
      const inline = textOf(args[i + 1]);
      return inline === undefined ? undefined : { inline };
    }
    if (interpreter.noScript.has(arg)) return undefined;
    if (interpreter.withValue.has(arg)) {
      i += 1;
      continue;
    }
    if (arg.startsWith('-') || (shell && arg.startsWith('+'))) {
      // `-c` glued to other letters was handled above; an inline-code option glued to its value
      // (`-ccode`, `--eval=…`) ends the search as the separate one does.
      const flag = arg.startsWith('--') ? (arg.split('=')[0] ?? arg) : arg.slice(0, 2);
      if (interpreter.noScript.has(flag)) return undefined;
      continue;
    }
    return { script: arg };
  }
  return undefined;
};

/** Commands that run the next word as the program: `exec python3 x.py`, `env A=1 node x.mjs`. */
const unwrap = (words: readonly Word[]): readonly Word[] => {
  const first = textOf(words[0]);
  if (first === 'exec' || first === 'command') {
    const next = textOf(words[1]);
    return next === undefined || next.startsWith('-') ? [] : words.slice(1);
  }
  if (first !== undefined && basename(first) === 'env' && first !== 'env=') {
    let i = 1;
    for (; i < words.length; i += 1) {
      const word = textOf(words[i]);
      if (word === undefined) return [];
      if (word === '-u' || word === '-C' || word === '--chdir' || word === '-S') return [];
      if (word.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
      break;
    }
    return i < words.length ? words.slice(i) : [];
  }
  return words;
};

const MAX_DEPTH = 3;

/**
 * Problems that keep `command` from starting, found without running it: an empty list when it
 * would start, or when what it runs cannot be known before the run (shell syntax, variables only
 * the run sets); docs/configuration.md lists what is checked and what is not.
 */
export const commandProblems = (command: string, context: CommandContext, depth = 0): string[] => {
  const read = firstSimpleCommand(command, context.lookup);
  if (!read.ok) return [];
  const { assignments, words: given } = read.command;
  // `PATH=/opt/bin tool`: the assignment is the PATH the program is looked up in.
  const pathAssignment = assignments.findLast((assignment) => assignment.name === 'PATH');
  if (pathAssignment !== undefined && pathAssignment.value === undefined) return [];
  const path = pathAssignment?.value ?? context.lookup('PATH');
  const words = unwrap(given);
  const program = textOf(words[0]);
  if (program === undefined || program === '') return [];
  if (!program.includes('/') && BUILTINS.has(program)) {
    if (program !== '.' && program !== 'source') return [];
    const script = textOf(words[1]);
    if (script === undefined) return [];
    const problem = fileProblem(placed(script, context.cwd), 'read');
    return problem === undefined
      ? []
      : [`script ${JSON.stringify(script)} ${problem}${relativeNote(script, context.cwd)}`];
  }
  const found = findProgram(program, path, context.cwd);
  if (found === undefined) return [];
  if ('problem' in found) return [found.problem];
  const interpreter = interpreterOf(program);
  if (interpreter === undefined) return [];
  const args = words.slice(1);
  // A truncated argument list may hide the script behind an unknown word; scriptOf stops there.
  const target = scriptOf(interpreter, isShell(program), args);
  if (target === undefined) return [];
  if ('inline' in target) {
    return depth >= MAX_DEPTH ? [] : commandProblems(target.inline, context, depth + 1);
  }
  const problem = fileProblem(placed(target.script, context.cwd), 'read');
  return problem === undefined
    ? []
    : [`script ${JSON.stringify(target.script)} ${problem}${relativeNote(target.script, context.cwd)}`];
};
