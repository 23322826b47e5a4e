import { createRequire } from 'node:module';
import { err, ok, type Result } from '../result.js';

/*
 * The simple commands of a shell command line, for `Bash(...)` rules (docs/configuration.md,
 * Policy). Parsed by mvdan/sh (the `mvdan-sh` package, its parser built for JavaScript): a full
 * POSIX and bash parser, so a pipe, a list, a subshell, `$(…)`, backticks, a heredoc or a quoted
 * argument is read as bash reads it, never guessed by a word splitter. Pure.
 */

/** One simple command: its words as the shell passes them, and whether its name is known. */
export interface SimpleCommand {
  /** Words as text; a word with an expansion (`$x`, `$(…)`, a glob in the name) is its source text. */
  readonly words: readonly string[];
  /**
   * False when the program that runs cannot be read off the text: its name is an expansion
   * (`$x`, `$(…)`, `{a,b}`, `r?`), or it is `sh -c`/`eval` of a script that is not a literal.
   */
  readonly known: boolean;
}

/** Bounds past which a command line is not parsed (and so matches every deny rule). */
export const MAX_COMMAND_CHARS = 65_536;
/** Nesting of `(`, `$(`, `{`: the parser recurses, and deeper lines are not what agents write. */
export const MAX_NESTING = 32;
/** `sh -c` / `eval` scripts inside one another. */
export const MAX_SCRIPT_DEPTH = 8;

/** The few parts of mvdan-sh's API read here (its syntax tree is Go's, through GopherJS). */
interface ShNode {
  readonly Pos: () => { Offset: () => number };
  readonly End: () => { Offset: () => number };
  readonly [field: string]: unknown;
}
interface ShSyntax {
  NewParser(...options: unknown[]): { Parse(text: string, name: string): ShNode };
  Variant(lang: unknown): unknown;
  readonly LangBash: unknown;
  NodeType(node: ShNode): string;
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
}

/**
 * mvdan-sh (1.5 MB of code) is loaded when the first `Bash(...)` rule is compiled, at load time:
 * a configuration without one never pays for it.
 */
let syntax: ShSyntax | undefined;
const loadSyntax = (): ShSyntax =>
  (syntax ??= (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax);
let parser: ReturnType<ShSyntax['NewParser']> | undefined;

/** Loads the parser now (at load time), so that the first tool call does not pay for it. */
export const loadShellParser = (): void => {
  const sh = loadSyntax();
  parser ??= sh.NewParser(sh.Variant(sh.LangBash));
};

/** Programs that run the script given to `-c`. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'busybox']);
/**
 * Programs that run the command in their arguments: the command after the wrapper's options
 * (`sudo -u x rm` → `rm`) is a simple command too (for deny and ask rules).
 */
const WRAPPERS = new Set(['command', 'builtin', 'exec', 'nohup', 'time', 'sudo', 'doas', 'env', 'nice']);
/** Characters that make an unquoted command name a pattern the shell expands. */
const EXPANDING = /[*?[{~]/;

const basename = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/** The thrown value's message: a Go error from the parser, or a JavaScript one (a stack overflow). */
const messageOf = (thrown: unknown): string => {
  if (typeof thrown === 'object' && thrown !== null) {
    const go = (thrown as { Error?: unknown }).Error;
    if (typeof go === 'function') return String((go as () => unknown).call(thrown));
    if (thrown instanceof Error) return thrown.message;
  }
  return String(thrown);
};

/** The deepest nesting of `(` and `{` in `text`, quotes ignored: an over-count, never an under-count. */
const nesting = (text: string): number => {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 123) deepest = Math.max(deepest, ++depth);
    else if ((c === 41 || c === 125) && depth > 0) depth--;
  }
  return deepest;
};

/** Unquoted `\x` is `x`. */
const unescapeBare = (text: string): string => text.replace(/\\([\s\S])/g, '$1');
/** Inside double quotes only `\\`, `\"`, `\$` and `` \` `` lose their backslash. */
const unescapeQuoted = (text: string): string => text.replace(/\\([\\"$`])/g, '$1');

interface WordText {
  readonly text: string;
  /** Whether the text is what the shell passes: no expansion, no pattern. */
  readonly literal: boolean;
}

/** One word's text, read part by part; `source` is its text as written, for expansions. */
const wordText = (sh: ShSyntax, word: ShNode, source: string): WordText => {
  let text = '';
  let literal = true;
  const parts = (word['Parts'] as ShNode[] | undefined) ?? [];
  for (const part of parts) {
    const type = sh.NodeType(part);
    if (type === 'Lit') {
      const value = String(part['Value']);
      if (EXPANDING.test(value)) literal = false;
      text += unescapeBare(value);
    } else if (type === 'SglQuoted') {
      const value = String(part['Value']);
      // `$'\x72m'` is `rm`: ANSI-C escapes are not decoded here, so such a word is not literal.
      if (part['Dollar'] === true && value.includes('\\')) literal = false;
      text += value;
    } else if (type === 'DblQuoted') {
      for (const inner of (part['Parts'] as ShNode[] | undefined) ?? []) {
        if (sh.NodeType(inner) === 'Lit') text += unescapeQuoted(String(inner['Value']));
        else {
          literal = false;
          text += sliceBytes(source, inner);
        }
      }
    } else {
      literal = false;
      text += sliceBytes(source, part);
    }
  }
  return { text, literal };
};

/** Positions of mvdan-sh are byte offsets into the UTF-8 text. */
const sliceBytes = (source: string, node: ShNode): string =>
  Buffer.from(source, 'utf8').subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');

/** The script `sh -c` runs: the word after the option group with `c`, or undefined when there is none. */
const dashCScript = (words: readonly WordText[]): WordText | undefined => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (!word.literal || !/^-[A-Za-z]+$/.test(word.text)) return undefined;
    if (word.text.includes('c')) return words[i + 1] ?? { text: '', literal: true };
  }
  return undefined;
};

/** The command a wrapper runs: after its options (`-u root`) and, for `env`, its `NAME=value` words. */
const wrapped = (words: readonly WordText[]): readonly WordText[] | undefined => {
  const name = basename(words[0]!.text);
  let i = 1;
  while (i < words.length) {
    const word = words[i]!.text;
    if (word === '--') {
      i++;
      break;
    }
    if (word.startsWith('-') || (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) {
      // An option's argument (`sudo -u root`, `nice -n 5`, `timeout`) is skipped with it when it
      // cannot be a command: a number or a user name after `-u`/`-g`/`-n`.
      const next = words[i + 1]?.text;
      i += /^-[ugnC]$/.test(word) && next !== undefined ? 2 : 1;
      continue;
    }
    break;
  }
  return i < words.length ? words.slice(i) : undefined;
};

type Found = SimpleCommand[];

/**
 * Every simple command of `text` (depth = scripts around it), added to `found`; an error string
 * when the text cannot be parsed.
 */
const collect = (text: string, depth: number, found: Found): string | undefined => {
  if (depth > MAX_SCRIPT_DEPTH) return `scripts nested deeper than ${MAX_SCRIPT_DEPTH} (sh -c, eval)`;
  if (text.length > MAX_COMMAND_CHARS) return `longer than ${MAX_COMMAND_CHARS} characters`;
  if (nesting(text) > MAX_NESTING) return `nested deeper than ${MAX_NESTING} levels`;
  const plain = plainCommand(text, depth, found);
  if (plain !== false) return plain;
  loadShellParser();
  const sh = syntax!;
  // Every simple command is the `Cmd` of a statement, which also holds its redirections.
  const statements: ShNode[] = [];
  try {
    sh.Walk(parser!.Parse(text, ''), (node) => {
      if (node !== null && sh.NodeType(node) === 'Stmt') statements.push(node);
      return true;
    });
  } catch (thrown) {
    // A syntax error from the parser, or a JavaScript one (a stack overflow): never parsed.
    return messageOf(thrown);
  }
  for (const statement of statements) {
    const command = statement['Cmd'] as ShNode | null;
    if (command === null) continue;
    const type = sh.NodeType(command);
    if (type === 'DeclClause') {
      // `export`, `declare`, `local`, `readonly`: a command of their own (their arguments are
      // assignments, whose substitutions the walk has found).
      const variant = command['Variant'] as ShNode | null;
      found.push({ words: [String(variant?.['Value'] ?? 'declare')], known: true });
      continue;
    }
    if (type !== 'CallExpr') continue;
    const args = (command['Args'] as ShNode[] | undefined) ?? [];
    if (args.length === 0) continue; // only assignments: `A=$(…)`, whose substitution is walked
    const words = args.map((word) => wordText(sh, word, text));
    const problem = addCommand(words, depth, found) ?? shellInput(sh, words, statement, text, depth, found);
    if (problem !== undefined) return problem;
  }
  return undefined;
};

/** `<<` and `<<-` (a heredoc) and `<<<` (a here-string), as mvdan/sh numbers redirection operators. */
const HEREDOC_OPS = new Set([61, 62]);
const HERESTRING_OP = 63;

/**
 * A shell given no `-c` script reads one: from a heredoc or here-string in the line (read here as
 * commands), or from a file or a pipe, which cannot be read here (an unknown program).
 */
const shellInput = (
  sh: ShSyntax,
  words: readonly WordText[],
  statement: ShNode,
  source: string,
  depth: number,
  found: Found,
): string | undefined => {
  const name = words[0]!;
  if (!name.literal || !SHELLS.has(basename(name.text)) || dashCScript(words) !== undefined) return undefined;
  for (const redirect of (statement['Redirs'] as ShNode[] | undefined) ?? []) {
    const op = Number(redirect['Op']);
    const body = HEREDOC_OPS.has(op)
      ? (redirect['Hdoc'] as ShNode | null)
      : op === HERESTRING_OP
        ? (redirect['Word'] as ShNode | null)
        : null;
    if (body === null) continue;
    const script = wordText(sh, body, source);
    if (!script.literal) found.push({ words: [script.text], known: false });
    else return collect(script.text, depth + 1, found);
    return undefined;
  }
  // `bash script.sh` runs a file, like any program; `curl … | sh`, `sh -s` or `sh < f` run text
  // that is not in the line.
  const operands = words.slice(1).filter((word) => !word.text.startsWith('-'));
  if (operands.length === 0)
    found.push({ words: [`${name.text} (its script is read from input)`], known: false });
  return undefined;
};

/** One simple command, the script it runs (`sh -c`, `eval`) and the command it wraps. */
const addCommand = (words: readonly WordText[], depth: number, found: Found): string | undefined => {
  const name = words[0]!;
  found.push({ words: words.map((word) => word.text), known: name.literal });
  if (!name.literal) return undefined;
  const program = basename(name.text);
  if (SHELLS.has(program)) {
    const script = dashCScript(words);
    if (script === undefined) return undefined;
    if (!script.literal) found.push({ words: [script.text], known: false });
    else return collect(script.text, depth + 1, found);
  } else if (program === 'eval') {
    const rest = words.slice(1);
    if (rest.some((word) => !word.literal))
      found.push({ words: rest.map((word) => word.text), known: false });
    else return collect(rest.map((word) => word.text).join(' '), depth + 1, found);
  } else if (WRAPPERS.has(program)) {
    const inner = wrapped(words);
    if (inner !== undefined) return addCommand(inner, depth, found);
  }
  return undefined;
};

/**
 * The simple commands of a command line, each once per place it appears, `sh -c`/`eval` scripts
 * and wrapped commands (`sudo rm`) included; or why the line cannot be parsed: a syntax error
 * (an unterminated quote or heredoc), more than 65,536 characters, nesting deeper than 32, or
 * scripts inside scripts deeper than 8.
 */
export const simpleCommands = (text: string): Result<readonly SimpleCommand[]> => {
  const known = cache.get(text);
  if (known !== undefined) return known;
  const found: Found = [];
  const problem = collect(text, 0, found);
  const result = problem === undefined ? ok(found) : err(problem);
  if (text.length <= CACHE_KEY_CHARS) {
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(text, result);
  }
  return result;
};

// Agents repeat commands (`git status`, `npm test`): readings are kept per text, bounded in
// entries and in key length; a reading is immutable, so sharing it is safe.
const CACHE_ENTRIES = 512;
const CACHE_KEY_CHARS = 4096;
const cache = new Map<string, Result<readonly SimpleCommand[]>>();

/**
 * Text bash reads as one simple command split on blanks: no quote, escape, expansion, pattern,
 * operator, redirection, comment or newline can be in it. Such a line (most of what agents run)
 * skips the parser: ~1 µs instead of a parse and a walk of its tree through GopherJS.
 */
const PLAIN = /^[A-Za-z0-9 \t_\-./=:,@%+]*$/;
/** Words that make a plain line a compound command or a syntax error: the parser reads those. */
const RESERVED = new Set(
  'if then else elif fi do done case esac while until for select function time coproc in'.split(' '),
);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The simple command of a plain line (`PLAIN`), or undefined when the parser must read it. */
const plainCommand = (text: string, depth: number, found: Found): string | undefined | false => {
  if (!PLAIN.test(text)) return false;
  const words = text.split(/[ \t]+/).filter((word) => word !== '');
  // Leading `NAME=value` words are assignments, not the command (`A=1 rm -rf /` runs rm).
  const start = words.findIndex((word) => !ASSIGNMENT.test(word));
  if (start === -1) return undefined;
  if (RESERVED.has(words[start]!)) return false;
  return addCommand(
    words.slice(start).map((word) => ({ text: word, literal: true })),
    depth,
    found,
  );
};
