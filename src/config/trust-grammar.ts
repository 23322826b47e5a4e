import type { Dialect } from '../registry/dialect.js';

/**
 * The command forms `cosh-hooks trust` accepts for a project hook (docs/configuration.md, trust):
 * an allow-list, so that trust can name every file the command runs and loads. Everything else is
 * refused with the reason and the accepted form; nothing is guessed. Pure.
 *
 * Accepted: ONE simple command of words made of literal text and double-quoted workspace variables:
 * - a script run by path: `"$COSH_WORKSPACE_PATH/.copilot-shell/guard.sh" args…` (its `#!` line
 *   is read by `shebangOf`);
 * - a known interpreter, flags that load no code, a script by path, then arguments:
 *   `python3 -I "$COSH_WORKSPACE_PATH/.copilot-shell/guard.py" --strict`;
 * - `echo`, `printf`, `true`, `false`: builtins that run no file.
 * Arguments after the script (or of a builtin) may also hold double-quoted variables (`"$NAME"`):
 * data for the reviewed script.
 */

/** The form `trust` names when it refuses a command. */
export const ACCEPTED_FORM = 'sh "$COSH_WORKSPACE_PATH/.copilot-shell/hook.sh"';

/** Longest command read: commands are at most 128 KiB (docs/configuration.md). */
const MAX_COMMAND_CHARS = 128 * 1024;

/** One piece of a word: literal text, or a double-quoted `$NAME` / `${NAME}`. */
type Part = { readonly text: string } | { readonly variable: string };

interface Word {
  readonly parts: readonly Part[];
  /** The word as written (for messages and the assignment check). */
  readonly raw: string;
}

/** What trust makes of a command. */
export type CommandForm =
  | { readonly kind: 'refused'; readonly reason: string }
  /** A builtin that runs no file. */
  | { readonly kind: 'builtin'; readonly name: string }
  /**
   * `interpreter` (a bare name, found on PATH, or an absolute path) runs `script`, the path as the
   * command names it (workspace variables replaced, never normalized).
   */
  | { readonly kind: 'interpreted'; readonly interpreter: string; readonly script: string }
  /** `script` is executed directly: its `#!` line says what runs it. */
  | { readonly kind: 'direct'; readonly script: string };

const refused = (reason: string): CommandForm => ({ kind: 'refused', reason });

/** Characters that mean nothing to sh outside quotes (`=` is checked in the first word). */
const PLAIN = /^[A-Za-z0-9_./,:@%+=-]$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

const unquotedReason = (c: string): string => {
  if (';&|'.includes(c)) return `an operator (${c}): trust accepts one command only`;
  if ('<>'.includes(c)) return `a redirection (${c})`;
  if ('(){}'.includes(c)) return `a group or subshell (${c})`;
  if (c === '$')
    return 'an unquoted expansion ($…): sh splits and globs its value; write it in double quotes, "$COSH_WORKSPACE_PATH/…"';
  if (c === '`') return 'a command substitution (`…`)';
  if ('*?[]'.includes(c)) return `a glob (${c})`;
  if (c === '~') return 'a tilde (~): it expands to a home folder; name the file from "$COSH_WORKSPACE_PATH"';
  if (c === '#') return 'a comment (#)';
  if (c === '\\') return 'a backslash outside quotes: write the word in quotes';
  return `the character ${JSON.stringify(c)} outside quotes`;
};

/** Control characters (line breaks included): one line of printable text only. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The words of a command, or why it is not one simple command of literal words and double-quoted
 * variables. Linear in the command's length.
 */
export const commandWords = (command: string): readonly Word[] | { readonly refused: string } => {
  if (command.length > MAX_COMMAND_CHARS) return { refused: 'a command longer than 128 KiB' };
  if (CONTROL.test(command)) return { refused: 'a line break or control character: one command only' };
  const words: Word[] = [];
  let parts: Part[] = [];
  let literal = '';
  let start = -1;
  const flush = () => {
    if (literal !== '') parts.push({ text: literal });
    literal = '';
  };
  let i = 0;
  const end = () => {
    flush();
    if (start !== -1) words.push({ parts, raw: command.slice(start, i) });
    parts = [];
    start = -1;
  };
  while (i < command.length) {
    const c = command[i]!;
    if (c === ' ' || c === '\t') {
      end();
      i += 1;
      continue;
    }
    if (start === -1) start = i;
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close === -1) return { refused: 'an unclosed quote' };
      literal += command.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      i += 1;
      for (;;) {
        const d = command[i];
        if (d === undefined) return { refused: 'an unclosed quote' };
        if (d === '"') break;
        if (d === '\\' && '$`"\\'.includes(command[i + 1] ?? '')) {
          literal += command[i + 1];
          i += 2;
        } else if (d === '$') {
          const braced = command[i + 1] === '{';
          const from = i + (braced ? 2 : 1);
          const name = NAME.exec(command.slice(from, from + 128))?.[0];
          if (name === undefined || (braced && command[from + name.length] !== '}'))
            return {
              refused: 'an expansion other than "$NAME" or "${NAME}" (a substitution, a parameter operator)',
            };
          flush();
          parts.push({ variable: name });
          i = from + name.length + (braced ? 1 : 0);
        } else if (d === '`') return { refused: 'a command substitution (`…`)' };
        else {
          literal += d;
          i += 1;
        }
      }
      i += 1;
    } else if (PLAIN.test(c)) {
      literal += c;
      i += 1;
    } else return { refused: unquotedReason(c) };
  }
  end();
  return words;
};

/** Interpreters trust accepts, by bare name: each with the flags that load no code. */
interface Interpreter {
  readonly family: 'shell' | 'python' | 'node' | 'ruby' | 'perl';
  /** Whether one word before the script is an accepted flag. */
  readonly flag: (word: string) => boolean;
  /** The accepted flags, for the message. */
  readonly flags: string;
  /** Why a script path cannot be pinned for this interpreter (undefined: it can). */
  readonly script?: (path: string) => string | undefined;
}

const SHELL: Interpreter = {
  family: 'shell',
  flag: (word) => /^-[euxvnf]+$/.test(word),
  flags: '-e -u -x -v -n -f (combined or not)',
};
const INTERPRETERS: readonly (readonly [RegExp, Interpreter])[] = [
  [/^(?:sh|bash|dash|zsh(?:-?[0-9.]+)?)$/, SHELL],
  [
    /^python(?:3(?:\.[0-9]+)?)?$/,
    { family: 'python', flag: (word) => /^-[uBEIsSOqb]+$/.test(word), flags: '-u -B -E -I -s -S -O -q -b' },
  ],
  [
    /^node(?:js)?$/,
    {
      family: 'node',
      flag: (word) => word === '--no-warnings' || word === '--no-deprecation',
      flags: '--no-warnings --no-deprecation',
      // A `.js` (or extensionless) file is CommonJS or an ES module by the nearest package.json,
      // which trust does not pin; `.node` would be native code.
      script: (path) =>
        /\.[cm]js$/.test(path)
          ? undefined
          : 'node runs a .mjs or .cjs file here: how it reads any other file depends on the nearest package.json, which trust does not pin',
    },
  ],
  [/^ruby(?:[0-9.]+)?$/, { family: 'ruby', flag: (word) => /^-[wv]+$/.test(word), flags: '-w -v' }],
  [/^perl(?:5[0-9.]*)?$/, { family: 'perl', flag: (word) => /^-[wTt]+$/.test(word), flags: '-w -T -t' }],
];

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The interpreter named `program` (a bare name or a path), if trust accepts it. */
export const interpreterOf = (program: string): Interpreter | undefined =>
  INTERPRETERS.find(([name]) => name.test(baseName(program)))?.[1];

/** Builtins of sh that run no file and read nothing but their arguments. */
const SAFE_BUILTINS = new Set(['echo', 'printf', 'true', 'false']);

/** Programs that run another program or file, or read code: named in the refusal. */
const RUNS_ANOTHER = new Set([
  '.',
  ':',
  'source',
  'exec',
  'command',
  'builtin',
  'eval',
  'env',
  'timeout',
  'nice',
  'nohup',
  'xargs',
  'sudo',
  'doas',
  'su',
  'stdbuf',
  'setsid',
  'ionice',
  'chrt',
  'taskset',
  'time',
  'watch',
  'flock',
  'busybox',
  'trap',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'make',
  'git',
  'uv',
  'uvx',
  'deno',
  'bun',
]);

/** Why python must run isolated (`-I`): what it reads otherwise, before the script. */
const PYTHON_UNISOLATED =
  "python puts the script's own folder first on its import path (a json.py beside it replaces the standard one) and reads PYTHON* variables";

/** The workspace variables a hook of `dialect` gets with the workspace as value. */
export const workspaceVariables = (dialect: Dialect | undefined): readonly string[] =>
  dialect === 'gemini'
    ? ['COSH_WORKSPACE_PATH', 'GEMINI_PROJECT_DIR', 'CLAUDE_PROJECT_DIR']
    : dialect === 'claude'
      ? ['COSH_WORKSPACE_PATH', 'CLAUDE_PROJECT_DIR']
      : ['COSH_WORKSPACE_PATH'];

/**
 * The path a program or script word names: literal text, or a workspace variable followed by
 * literal text, with no `.` or `..` segment (the kernel resolves `..` after following links, so
 * the path is kept as written and never normalized). A string is the reason it is not one.
 */
const pathOf = (
  word: Word,
  workspace: string,
  variables: readonly string[],
): { readonly path: string } | string => {
  let path = '';
  for (const [i, part] of word.parts.entries()) {
    if ('text' in part) path += part.text;
    else if (i === 0 && variables.includes(part.variable)) path += workspace;
    else
      return variables.includes(part.variable)
        ? `${word.raw}: a workspace variable is only accepted at the start of a path`
        : `${word.raw}: $${part.variable} is not a workspace variable of this hook (${variables.map((v) => `$${v}`).join(', ')}): trust cannot know its value`;
  }
  if (!path.startsWith('/'))
    return `${word.raw}: a relative path runs from the event's cwd; write "$COSH_WORKSPACE_PATH/${path}"`;
  if (path.split('/').some((segment, i) => segment === '.' || segment === '..' || (segment === '' && i > 0)))
    return `${word.raw}: a path with a "." or ".." segment or "//"; name the file by its plain path`;
  return { path };
};

const literalOf = (word: Word): string | undefined =>
  word.parts.every((part) => 'text' in part)
    ? word.parts.map((part) => ('text' in part ? part.text : '')).join('')
    : undefined;

const withForm = (reason: string): CommandForm =>
  refused(
    `${reason}; trust accepts a script run by path or by a known interpreter, such as ${ACCEPTED_FORM}`,
  );

/**
 * What a project hook's command runs, as far as trust accepts it: `workspace` is the value of
 * the workspace variables (`COSH_WORKSPACE_PATH`, and for a `claude`/`gemini` hook its agent's).
 */
export const commandForm = (command: string, workspace: string, dialect?: Dialect): CommandForm => {
  const read = commandWords(command);
  if ('refused' in read) return withForm(read.refused);
  const [program, ...rest] = read;
  if (program === undefined) return withForm('an empty command');
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program.raw))
    return withForm("an inline assignment (NAME=…): set variables in the hook's env table");
  const variables = workspaceVariables(dialect);
  const name = literalOf(program);
  if (name !== undefined && !name.includes('/')) {
    if (SAFE_BUILTINS.has(name)) return { kind: 'builtin', name };
    if (interpreterOf(name) === undefined)
      return withForm(
        RUNS_ANOTHER.has(name)
          ? `${name} runs another program or reads code that trust cannot pin`
          : `${JSON.stringify(name)} is found on PATH, and trust cannot tell which files it runs or reads`,
      );
  }
  const interpreter = name !== undefined && !name.includes('/') ? name : undefined;
  const programPath = interpreter === undefined ? pathOf(program, workspace, variables) : undefined;
  if (typeof programPath === 'string') return withForm(programPath);
  const named = interpreter ?? programPath!.path;
  const spec = interpreterOf(named);
  if (spec === undefined) return { kind: 'direct', script: named };
  let at = 0;
  const isFlag = (word: Word | undefined): boolean => {
    const first = word?.parts[0];
    return first !== undefined && 'text' in first && first.text.startsWith('-');
  };
  while (isFlag(rest[at])) {
    const flag = literalOf(rest[at]!);
    at += 1;
    if (flag === '--') break;
    if (flag === undefined || !spec.flag(flag))
      return withForm(
        `${baseName(named)} ${rest[at - 1]!.raw}: a flag trust does not accept (it may load code or take a value); accepted: ${spec.flags}`,
      );
  }
  const scriptWord = rest[at];
  if (scriptWord === undefined)
    return withForm(`${baseName(named)} with no script: it would read its program from stdin`);
  if (
    spec.family === 'python' &&
    !rest.slice(0, at).some((word) => /^-[A-Za-z]*I/.test(literalOf(word) ?? ''))
  )
    return withForm(`${baseName(named)} without -I: ${PYTHON_UNISOLATED}; write ${baseName(named)} -I`);
  const script = pathOf(scriptWord, workspace, variables);
  if (typeof script === 'string') return withForm(script);
  const unpinned = spec.script?.(script.path);
  if (unpinned !== undefined) return withForm(unpinned);
  return { kind: 'interpreted', interpreter: named, script: script.path };
};

/**
 * What a script's `#!` line runs: `programs` to check (the interpreter's path, or `env`'s path and
 * the bare interpreter name it finds on PATH), the last of them the interpreter; or why not.
 */
export type Shebang = { readonly programs: readonly string[] } | { readonly refused: string };

/**
 * Reads the `#!` line at the start of a script's first bytes (`head`) as Linux does: the
 * interpreter's path up to the first blank, then at most one argument (the rest of the line).
 * Accepted: a known interpreter by absolute path with no argument or one accepted flag, or
 * `/usr/bin/env` with a bare interpreter name and nothing else (`env -S`, flags and assignments
 * are refused). A file with no `#!` line is refused: how it runs (sh, or a binary's loader and
 * libraries) is not for trust to guess.
 */
export const shebangOf = (head: string, script: string): Shebang => {
  if (!head.startsWith('#!'))
    return { refused: `${script} has no #! line: write one that names its interpreter (#!/bin/sh)` };
  const end = head.indexOf('\n');
  if (end === -1) return { refused: `${script}: its #! line is too long to read` };
  const line = head.slice(2, end).replace(/^[ \t]+/, '');
  if (CONTROL.test(line) || line.includes('\r'))
    return { refused: `${script}: its #! line holds a control character` };
  const blank = line.search(/[ \t]/);
  const interpreter = blank === -1 ? line : line.slice(0, blank);
  const argument = blank === -1 ? '' : line.slice(blank).trim();
  const why = (reason: string) => ({ refused: `${script}: its #! line ${JSON.stringify(line)} ${reason}` });
  if (!interpreter.startsWith('/') || interpreter.split('/').some((s) => s === '.' || s === '..'))
    return why('does not name its interpreter by a plain absolute path');
  if (baseName(interpreter) === 'env') {
    if (argument === '' || /[ \t]/.test(argument) || interpreterOf(argument) === undefined)
      return why('runs env with something other than one known interpreter name (no -S, flags or NAME=)');
    if (argument.includes('/')) return why('runs env with a path');
    if (interpreterOf(argument)?.family === 'python')
      return why(`runs python without -I: ${PYTHON_UNISOLATED}; write #!/usr/bin/python3 -I`);
    return { programs: [interpreter, argument] };
  }
  const spec = interpreterOf(interpreter);
  if (spec === undefined) return why('names an interpreter trust does not accept');
  if (argument !== '' && !spec.flag(argument))
    return why(`passes a flag trust does not accept; accepted: ${spec.flags}`);
  if (spec.family === 'python' && !argument.includes('I'))
    return why(`runs python without -I: ${PYTHON_UNISOLATED}; write #!${interpreter} -I`);
  return { programs: [interpreter] };
};

/** A UTF-8 byte order mark as latin1 text: perl and ruby read a `#!` line after one. */
const BOM = '\u00ef\u00bb\u00bf';

/**
 * Why a script given to `interpreter` (the interpreted form) cannot be pinned for its `#!` line,
 * or undefined: perl runs the program a `#!` line names when the line does not say perl, ruby
 * then skips to a later `#!…ruby` line, and both read flags from it; so a script that starts with
 * a `#!` line (after a byte order mark or not) must name the same family of interpreter, with no
 * flag trust does not accept. Checked alike for every interpreter trust accepts. `head` is the
 * script's first bytes as latin1.
 */
export const ownShebangRefusal = (head: string, script: string, interpreter: string): string | undefined => {
  const text = head.startsWith(BOM) ? head.slice(BOM.length) : head;
  if (!text.startsWith('#!')) return undefined;
  const runner = interpreterOf(interpreter);
  const line = text.slice(0, Math.max(0, text.indexOf('\n'))) || text;
  const named = /^#![ \t]*(\S*)(?:[ \t]+(\S+))?/.exec(line);
  const program =
    named?.[1] !== undefined && baseName(named[1]) === 'env' ? (named[2] ?? '') : (named?.[1] ?? '');
  if (runner === undefined || interpreterOf(program)?.family !== runner.family)
    return `${script}: its #! line ${JSON.stringify(line.slice(2).trim())} names ${JSON.stringify(program)}, not the interpreter that runs it (${baseName(interpreter)}): perl and ruby run or skip to what a #! line names`;
  const shebang = shebangOf(text, script);
  if ('refused' in shebang && !shebang.refused.includes('without -I')) return shebang.refused;
  return undefined;
};

/** Why a script run by `interpreter` (its `#!` line) cannot be pinned, if it cannot. */
export const scriptRefusal = (interpreter: string, script: string): string | undefined =>
  interpreterOf(interpreter)?.script?.(script);
