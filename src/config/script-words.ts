/**
 * Which files a hook command runs, read from its text without running anything
 * (docs/configuration.md, trust). The command is split into words as `/bin/sh` would split a simple
 * command: quotes, backslashes and white space. Where the shell would need to expand something to
 * know a word (`$VAR` other than the workspace variables, `$(…)`, backquotes, globs), that word is
 * not determined: trust then covers the command text only, and `trust` says so.
 */

/** Variables whose value the engine knows at load time: each is the workspace folder. */
const WORKSPACE_VARIABLES = ['COSH_WORKSPACE_PATH', 'CLAUDE_PROJECT_DIR', 'GEMINI_PROJECT_DIR'] as const;

/** Longest command read for words: commands are at most 128 KiB (docs/configuration.md). */
const MAX_COMMAND_CHARS = 128 * 1024;
/** Most words looked at as possible scripts. */
export const MAX_SCRIPT_WORDS = 16;

/** One word of a command; `undetermined` says why the shell alone could tell what it is. */
export interface CommandWord {
  readonly text: string;
  readonly undetermined?: string;
}

const OPERATORS = new Set([';', '&', '|', '<', '>', '(', ')', '\n']);
const GLOB = new Set(['*', '?', '[']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * The words of a command, in order, with operators (`;`, `&&`, `|`, redirections) as words of
 * their own so callers can see where a new command starts. Linear in the command's length, no
 * recursion. `workspace` is the value of the workspace variables.
 */
export const commandWords = (command: string, workspace: string): CommandWord[] => {
  const text = command.length > MAX_COMMAND_CHARS ? command.slice(0, MAX_COMMAND_CHARS) : command;
  const words: CommandWord[] = [];
  let current = '';
  let started = false;
  let undetermined: string | undefined;
  const end = () => {
    if (started) words.push(undetermined === undefined ? { text: current } : { text: current, undetermined });
    current = '';
    started = false;
    undetermined = undefined;
  };
  /** `$NAME` or `${NAME}` at `i` (just after `$`): the workspace, or undetermined. Returns the next index. */
  const dollar = (i: number): number => {
    started = true;
    const braced = text[i] === '{';
    const rest = text.slice(braced ? i + 1 : i, (braced ? i + 1 : i) + 64);
    const name = NAME.exec(rest)?.[0];
    const closes = !braced || text[i + 1 + (name?.length ?? 0)] === '}';
    if (name !== undefined && closes && (WORKSPACE_VARIABLES as readonly string[]).includes(name)) {
      current += workspace;
      return i + name.length + (braced ? 2 : 0);
    }
    undetermined ??= 'a shell expansion';
    current += '$';
    return i;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      end();
      i += 1;
    } else if (OPERATORS.has(c)) {
      end();
      words.push({ text: c });
      i += 1;
    } else if (c === '\\') {
      started = true;
      if (text[i + 1] !== '\n') current += text[i + 1] ?? '';
      i += 2;
    } else if (c === "'") {
      started = true;
      const close = text.indexOf("'", i + 1);
      if (close === -1) {
        undetermined ??= 'an unclosed quote';
        current += text.slice(i + 1);
        i = text.length;
      } else {
        current += text.slice(i + 1, close);
        i = close + 1;
      }
    } else if (c === '"') {
      started = true;
      i += 1;
      while (i < text.length && text[i] !== '"') {
        const d = text[i]!;
        if (d === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') current += text[i + 1];
          i += 2;
        } else if (d === '$') i = dollar(i + 1);
        else if (d === '`') {
          undetermined ??= 'a command substitution';
          current += d;
          i += 1;
        } else {
          current += d;
          i += 1;
        }
      }
      if (i >= text.length) undetermined ??= 'an unclosed quote';
      i += 1;
    } else if (c === '$') i = dollar(i + 1);
    else if (c === '`') {
      started = true;
      undetermined ??= 'a command substitution';
      current += c;
      i += 1;
    } else {
      started = true;
      if (GLOB.has(c)) undetermined ??= 'a glob';
      if (c === '~' && current === '') undetermined ??= 'a tilde expansion';
      current += c;
      i += 1;
    }
  }
  end();
  return words;
};

/** Interpreters whose first non-option argument is the script they run. */
const INTERPRETERS =
  /^(?:sh|bash|dash|zsh|ksh|fish|python[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua|Rscript|tclsh|pwsh)$/;

/** What a command runs, as far as its text tells. */
export interface ScriptWords {
  /** Words naming a file the command runs or reads as code, as written (relative or absolute). */
  readonly paths: readonly string[];
  /** Why some word could not be known without running the shell; absent when every word is literal. */
  readonly undetermined?: string;
}

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * The files a command runs: in each simple command (split at `;`, `&`, `|`, `(`, `)`, newlines),
 * the program when it is written as a path (it holds a `/`), and, after a known interpreter
 * (`python3`, `sh`, `node`, … also behind `env`), every argument that holds a `/` or is a file
 * name with an extension (a script, or a module it is given). Words after a redirection are
 * skipped. At most `MAX_SCRIPT_WORDS`.
 */
export const scriptWords = (command: string, workspace: string): ScriptWords => {
  const paths: string[] = [];
  let undetermined: string | undefined;
  /** `program`: the next literal word is the program; `args`: its arguments. */
  let state: 'program' | 'args' = 'program';
  let interpreted = false;
  let redirect = false;
  for (const word of commandWords(command, workspace)) {
    if (word.undetermined === undefined && OPERATORS.has(word.text)) {
      redirect = word.text === '<' || word.text === '>';
      if (!redirect) [state, interpreted] = ['program', false];
      continue;
    }
    if (redirect) {
      redirect = false;
      continue;
    }
    if (word.undetermined !== undefined) {
      undetermined ??= `${word.undetermined} in ${JSON.stringify(word.text)}`;
      if (state === 'program') state = 'args';
      continue;
    }
    if (state === 'program') {
      // `NAME=value cmd` and `env [-i] [NAME=value] cmd`: the program comes later.
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text) || baseName(word.text) === 'env') continue;
      if (word.text.startsWith('-')) continue;
      if (word.text.includes('/')) paths.push(word.text);
      interpreted = INTERPRETERS.test(baseName(word.text));
      state = 'args';
    } else if (
      interpreted &&
      !word.text.startsWith('-') &&
      (word.text.includes('/') || /\.[A-Za-z0-9]+$/.test(word.text))
    )
      paths.push(word.text);
    if (paths.length >= MAX_SCRIPT_WORDS) break;
  }
  return { paths: [...new Set(paths)], ...(undetermined !== undefined && { undetermined }) };
};
