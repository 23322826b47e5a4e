/**
 * The first simple command of a hook's `command`, read the way `/bin/sh` reads it, without running
 * anything: for the load-time check that its program exists (docs/configuration.md, "Checks at
 * load"). Pure.
 *
 * Only what can be known for certain is returned. A word holding a command substitution, an
 * arithmetic expansion, a special parameter (`$1`, `$@`), a `${…}` with an operator, a variable the
 * caller cannot vouch for, or an unquoted glob is `unknown`: its text depends on something only
 * the run knows. After a command substitution or a word that field splitting could cut, the rest of
 * the command is not read at all (`truncated`). A command that starts with a compound command
 * (`if`, `{`, `(`, `for`, a function definition) has no first program to check.
 */

/** One word of the first simple command: its text after expansion and quote removal, when certain. */
export type Word = { readonly text: string } | { readonly unknown: string };

/** `NAME=value` words before the program: they set the program's environment (`PATH=… cmd`). */
export interface Assignment {
  readonly name: string;
  /** Undefined when the value is not certain. */
  readonly value: string | undefined;
}

export interface SimpleCommand {
  readonly assignments: readonly Assignment[];
  /** The program, then its arguments. Empty for a command made only of assignments or redirections. */
  readonly words: readonly Word[];
  /** True when reading stopped early: words after the last one here may exist. */
  readonly truncated: boolean;
}

export type FirstCommand =
  { readonly ok: true; readonly command: SimpleCommand } | { readonly ok: false; readonly why: string };

/** What a variable expands to, or undefined when that is not certain before the hook runs. */
export type Lookup = (name: string) => string | undefined;

/** Words that start a compound command or a pipeline negation when they come first. */
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'function',
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'time',
  'coproc',
  'in',
]);

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const BLANK = /[ \t]/;
/** Characters that end a word and the simple command with it. */
const ENDS_COMMAND = /[\n;&|]/;
/** Field splitting (default IFS) and pathname expansion would act on these in an unquoted expansion. */
const SPLITS_OR_GLOBS = /[ \t\n*?[]/;

/** Longest command text read; a command longer than this is not checked (it is far past any real one). */
const MAX_COMMAND_CHARS = 64 * 1024;

class Reader {
  i = 0;
  readonly words: Word[] = [];
  readonly assignments: Assignment[] = [];
  truncated = false;
  /** A here-document was opened: its body starts on the next line, which is not a command. */
  heredoc = false;

  constructor(
    private readonly text: string,
    private readonly lookup: Lookup,
  ) {}

  peek(offset = 0): string | undefined {
    return this.text[this.i + offset];
  }

  /** `$NAME` or `${NAME}` at `this.i` (just past the `$`): the value, `null` if uncertain; advances. */
  dollar(): { value: string | null; stop: boolean } {
    const next = this.peek();
    if (next === '{') {
      const close = this.text.indexOf('}', this.i);
      const inner = close < 0 ? '' : this.text.slice(this.i + 1, close);
      if (close >= 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(inner)) {
        this.i = close + 1;
        return { value: this.lookup(inner) ?? null, stop: false };
      }
      // `${X:-y}`, `${#X}`, `${1}`, nested braces: too much grammar to follow; stop reading here.
      return { value: null, stop: true };
    }
    if (next !== undefined && NAME_START.test(next)) {
      let end = this.i;
      while (end < this.text.length && NAME_CHAR.test(this.text[end] as string)) end += 1;
      const name = this.text.slice(this.i, end);
      this.i = end;
      return { value: this.lookup(name) ?? null, stop: false };
    }
    if (next === '(') return { value: null, stop: true }; // $( ) and $(( ))
    if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.i += 1;
      return { value: null, stop: false }; // special parameters: the run decides
    }
    return { value: '$', stop: false }; // a lone `$` is itself
  }

  /**
   * One word from `this.i` (which is not blank): its text, whether certain, and whether reading
   * must stop after it. Returns undefined at an operator that ends the command.
   */
  word(): { text: string; certain: boolean; stop: boolean; raw: string } {
    const start = this.i;
    let text = '';
    let certain = true;
    let stop = false;
    while (this.i < this.text.length && !stop) {
      const char = this.text[this.i] as string;
      if (BLANK.test(char) || ENDS_COMMAND.test(char) || char === '<' || char === '>') break;
      if (char === '(' || char === ')') break;
      this.i += 1;
      if (char === '\\') {
        const escaped = this.peek();
        this.i += 1;
        if (escaped === '\n' || escaped === undefined) continue; // line continuation
        text += escaped;
      } else if (char === "'") {
        const close = this.text.indexOf("'", this.i);
        if (close < 0) return { text, certain: false, stop: true, raw: this.text.slice(start) };
        text += this.text.slice(this.i, close);
        this.i = close + 1;
      } else if (char === '"') {
        for (;;) {
          const inner = this.text[this.i];
          if (inner === undefined) return { text, certain: false, stop: true, raw: this.text.slice(start) };
          this.i += 1;
          if (inner === '"') break;
          if (inner === '\\') {
            const escaped = this.text[this.i];
            if (escaped !== undefined && '$`"\\\n'.includes(escaped)) {
              this.i += 1;
              if (escaped !== '\n') text += escaped;
            } else text += '\\';
          } else if (inner === '`') {
            return { text, certain: false, stop: true, raw: this.text.slice(start, this.i) };
          } else if (inner === '$') {
            const expanded = this.dollar();
            if (expanded.stop)
              return { text, certain: false, stop: true, raw: this.text.slice(start, this.i) };
            if (expanded.value === null) certain = false;
            else text += expanded.value; // quoted: no splitting, no globbing
          } else text += inner;
        }
      } else if (char === '`') {
        return { text, certain: false, stop: true, raw: this.text.slice(start, this.i) };
      } else if (char === '$') {
        const expanded = this.dollar();
        if (expanded.stop) return { text, certain: false, stop: true, raw: this.text.slice(start, this.i) };
        if (expanded.value === null) certain = false;
        else if (SPLITS_OR_GLOBS.test(expanded.value)) {
          // Unquoted: split into fields and globbed. The word count after it is unknown.
          certain = false;
          stop = true;
        } else text += expanded.value;
      } else if (char === '~' && this.i - 1 === start) {
        const rest = /^[^/ \t\n;&|<>()]*/.exec(this.text.slice(this.i))?.[0] ?? '';
        if (rest !== '') certain = false; // ~user
        const home = this.lookup('HOME');
        if (home === undefined) certain = false;
        else text += home;
      } else if (char === '*' || char === '?' || char === '[') {
        certain = false; // a glob: what it matches is the file system's business at run time
        text += char;
      } else text += char;
    }
    return { text, certain, stop, raw: this.text.slice(start, this.i) };
  }

  skipBlanks(): void {
    while (this.i < this.text.length && BLANK.test(this.text[this.i] as string)) this.i += 1;
  }

  /** A redirection operator at `this.i` (an fd number before it was already taken as a word). */
  redirection(): void {
    if (this.text.startsWith('<<', this.i)) this.heredoc = true;
    while (this.i < this.text.length && /[<>&|-]/.test(this.text[this.i] as string)) this.i += 1;
    this.skipBlanks();
    const next = this.peek();
    if (next !== undefined && !ENDS_COMMAND.test(next)) {
      const target = this.word();
      if (target.stop) this.truncated = true;
    }
  }
}

/**
 * Reads the first simple command of `command` (docs/configuration.md). `lookup` gives the value
 * of a variable when it is certain (the hook's `env`, the engine's fixed variables, the host's
 * environment); anything it does not vouch for makes the word that uses it `unknown`.
 */
export const firstSimpleCommand = (command: string, lookup: Lookup): FirstCommand => {
  if (command.length > MAX_COMMAND_CHARS) return { ok: false, why: 'the command is too long to read' };
  const reader = new Reader(command, lookup);
  const text = command;
  while (reader.i < text.length) {
    reader.skipBlanks();
    const char = reader.peek();
    if (char === undefined) break;
    const empty = reader.words.length === 0 && reader.assignments.length === 0;
    if (char === '#') {
      const end = text.indexOf('\n', reader.i);
      if (end < 0) break;
      reader.i = end;
      continue;
    }
    if (char === '\n' && empty) {
      if (reader.heredoc) return { ok: false, why: 'it starts with a here-document' };
      reader.i += 1; // blank or comment lines before the first command
      continue;
    }
    if (ENDS_COMMAND.test(char)) break;
    if (char === '(' || char === ')') {
      if (empty) return { ok: false, why: 'it starts with a subshell' };
      if (reader.words.length === 1) return { ok: false, why: 'it defines a function' };
      return { ok: false, why: 'it uses shell syntax that cannot be read statically' };
    }
    if (char === '<' || char === '>') {
      reader.redirection();
      if (reader.truncated) break;
      continue;
    }
    const word = reader.word();
    const next = reader.peek();
    // `2>file`: a number right before a redirection is its file descriptor, not a word.
    if ((next === '<' || next === '>') && /^[0-9]+$/.test(word.raw)) {
      reader.redirection();
      if (reader.truncated) break;
      continue;
    }
    if (reader.words.length === 0 && ASSIGNMENT.test(word.raw)) {
      const name = word.raw.slice(0, word.raw.indexOf('='));
      reader.assignments.push({ name, value: word.certain ? word.text.slice(name.length + 1) : undefined });
    } else {
      if (reader.words.length === 0 && word.certain && word.raw === word.text && RESERVED.has(word.text)) {
        return { ok: false, why: `it starts with the shell keyword ${JSON.stringify(word.text)}` };
      }
      reader.words.push(word.certain ? { text: word.text } : { unknown: word.raw });
    }
    if (word.stop) {
      reader.truncated = true;
      break;
    }
  }
  return {
    ok: true,
    command: { assignments: reader.assignments, words: reader.words, truncated: reader.truncated },
  };
};
