import type { HookOutput } from './output.js';
import type { HookResult } from './result.js';

/*
 * Secret redaction (SPEC §4.7), pure. The key list and the text shapes follow cosh-core's
 * `redaction.rs`; the patterns are written again for a backtracking engine, so that no input can
 * make them slow:
 *
 * - a gap between a keyword and its value is white space, which no keyword holds, so a failed
 *   attempt scans only the gap after its own keyword; name parts are bounded (`{1,32}`, `{0,4}`);
 * - every unbounded part is the *tail* of a pattern and cannot fail (`*` with nothing after it):
 *   the attempt then succeeds and the search resumes after what it consumed, so each character is
 *   scanned a bounded number of times. Whether a consumed run really is a secret (length, parts)
 *   is decided in the replacer, not by making the regex fail and retry elsewhere;
 * - each rule runs only when a literal it needs is present (`needle`).
 *
 * `test/reliability/redaction.property.test.ts` runs every rule on hostile inputs of 10 MB.
 */

/** What a secret is replaced with. */
export const REDACTED = '<redacted>';
/** What a PEM private key block is replaced with, as in cosh-core. */
export const REDACTED_PRIVATE_KEY = '<redacted private key block>';

/** Values nested deeper than this are replaced whole: events and outputs are at most 512 deep. */
export const MAX_REDACTION_DEPTH = 512;

// ----- keys

/** cosh-core's `is_sensitive_key` list (normalized: ASCII letters and digits, lower case), plus a few. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'passphrase',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'secret',
  'clientsecret',
  'apikey',
  'accesskeyid',
  'accesskeysecret',
  'securitytoken',
  'awssecretaccesskey',
  'openaiapikey',
  'dashscopeapikey',
  'githubtoken',
  'authorization',
  'cookie',
  'setcookie',
  // Not in cosh-core's list; named by SPEC §4.7 or common in HTTP and environment dumps.
  'credential',
  'credentials',
  'privatekey',
  'proxyauthorization',
  'xapikey',
  'apitoken',
  'authtoken',
  'sessiontoken',
  'secretkey',
  'secretaccesskey',
]);

/** A key ending in one of these is secret too (`DATABASE_PASSWORD`, `webhook_secret`). */
const SECRET_KEY_ENDINGS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'accesstoken',
  'refreshtoken',
  'authtoken',
  'sessiontoken',
  'privatekey',
  'secretkey',
  'credentials',
];

/**
 * Every secret key holds one of these words once normalized (`TO_KEN` holds `token`): the pattern
 * lets anything but a letter or digit stand between their letters, so most keys (plain
 * identifiers) are rejected by this one test, before any copy is made.
 */
const KEY_HINT = new RegExp(
  ['pass', 'secret', 'token', 'key', 'auth', 'cookie', 'cred']
    .map((word) => [...word].join('[^A-Za-z0-9]*'))
    .join('|'),
  'i',
);

/**
 * Whether the value of a JSON key with this name is a secret, whatever it holds. As in cosh-core,
 * every character that is not an ASCII letter or digit is dropped first (`TO_KEN` is `token`).
 */
export const isSecretKey = (key: string): boolean => {
  if (!KEY_HINT.test(key)) return false;
  const normalized = key.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return SECRET_KEYS.has(normalized) || SECRET_KEY_ENDINGS.some((ending) => normalized.endsWith(ending));
};

// ----- text

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

/** Characters that end an unquoted value, besides white space: shell operators and quotes. */
const VALUE_STOP = new Set([...';&|()<>"\''].map((char) => char.charCodeAt(0)));
/** What ends a value right after a closing quote: JSON punctuation. */
const CLOSES_JSON = new Set([...',}]'].map((char) => char.charCodeAt(0)));
const BACKSLASH = 0x5c;
const EQUALS = 0x3d;
const LESS = 0x3c;
const GREATER = 0x3e;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/**
 * Where the value starting at `start` ends, as in cosh-core: one shell word, made of quoted strings
 * (to the closing quote, backslash escapes honoured in double quotes; to the end of the text when
 * it is not closed: fail closed), backslash-escaped characters and unquoted characters, in any
 * order (`abc"def ghi"'x'`). One difference: `,`, `}` or `]` right after a closing quote ends the
 * value, so JSON in a string keeps its shape (`{"token": "x", "user": "bob"}`). A loop, not a
 * regex: one pass, no backtracking, no stack.
 */
const valueEnd = (text: string, start: number): number => {
  const length = text.length;
  let at = start;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === SINGLE_QUOTE) {
      const close = text.indexOf("'", at + 1);
      if (close < 0) return length;
      at = close + 1;
      if (CLOSES_JSON.has(text.charCodeAt(at))) break;
    } else if (code === DOUBLE_QUOTE) {
      at += 1;
      for (;;) {
        if (at >= length) return length;
        const inner = text.charCodeAt(at);
        if (inner === DOUBLE_QUOTE) break;
        at += inner === BACKSLASH ? 2 : 1;
      }
      at += 1;
      if (CLOSES_JSON.has(text.charCodeAt(at))) break;
    } else if (code === BACKSLASH) at += 2;
    else if (isSpace(code) || VALUE_STOP.has(code)) break;
    else at += 1;
  }
  return Math.min(at, length);
};

/** Replaces the value after each match of `prefix` (a global regex) with `<redacted>`. */
const redactValuesAfter = (
  prefix: RegExp,
  text: string,
  end: (text: string, start: number) => number = valueEnd,
): string => {
  const parts: string[] = [];
  let from = 0;
  prefix.lastIndex = 0;
  for (let match = prefix.exec(text); match !== null; match = prefix.exec(text)) {
    const start = match.index + match[0].length;
    const stop = end(text, start);
    if (stop === start || text.startsWith(REDACTED, start)) continue;
    parts.push(text.slice(from, start), REDACTED);
    from = stop;
    prefix.lastIndex = stop;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
};

const isLineBreak = (code: number): boolean => code === 0x0a || code === 0x0d;

/**
 * Where a cookie header's value starting at `start` ends: at the line end, a quote (the end of
 * `-H "Cookie: …"`), `<` or `>`; a quoted string right after `=` is a quoted cookie value
 * (RFC 6265: `sid="abc"`) and belongs to it when it closes on the same line. A value never starts
 * with white space (the gap is the prefix's, so a second pass finds `<redacted>` there and changes
 * nothing). A loop: each quote is scanned past once.
 */
const cookieValueEnd = (text: string, start: number): number => {
  const length = text.length;
  if (start >= length || isSpace(text.charCodeAt(start))) return start;
  let at = start;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (isLineBreak(code) || code === SINGLE_QUOTE || code === LESS || code === GREATER) break;
    if (code === DOUBLE_QUOTE) {
      if (at === start || text.charCodeAt(at - 1) !== EQUALS) break;
      let close = at + 1;
      while (
        close < length &&
        text.charCodeAt(close) !== DOUBLE_QUOTE &&
        !isLineBreak(text.charCodeAt(close))
      )
        close += 1;
      if (close >= length || text.charCodeAt(close) !== DOUBLE_QUOTE) break;
      at = close + 1;
    } else at += 1;
  }
  return at;
};

/** Secret names as a pattern: the words of a name may be joined by `_`, `-` or nothing (`ACCESSTOKEN`). */
const namesPattern = (names: readonly string[]): string =>
  names.map((name) => name.split('_').join('[_-]?')).join('|');

/**
 * The names cosh-core redacts in `KEY=value` and `key: value` (its `sensitive_assignment_pattern`),
 * plus `access_key`.
 */
const ASSIGNMENT_NAMES = [
  'alibaba_cloud_access_key_id',
  'aws_access_key_id',
  'access_key_id',
  'aws_secret_access_key',
  'access_key_secret',
  'secret_access_key',
  'secret_key',
  'private_key',
  'auth_token',
  'session_token',
  'credentials',
  'credential',
  'bearer',
  'dashscope_api_key',
  'openai_api_key',
  'client_secret',
  'security_token',
  'refresh_token',
  'access_token',
  'github_token',
  'id_token',
  'password',
  'passphrase',
  'passwd',
  'api_key',
  'token',
  'secret',
  'access_key',
];

/** The names cosh-core redacts in `--flag value` (its `sensitive_flag_pattern`), plus `access_key_id`. */
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

/**
 * The last word of a secret name in `KEY=value`; up to four `word_` parts may come before it
 * (`DB_PASSWORD`), where cosh-core wants the name to start the word.
 */
const SECRET_WORD = `(?:${namesPattern(ASSIGNMENT_NAMES)})`;

/** The name of a secret flag; up to three `word-` parts may come before it (`--db-password`). */
const FLAG_WORD = `(?:${namesPattern(FLAG_NAMES)})`;

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
 * the run of scheme characters before it starts a word (it follows a character that is not a
 * word character, or it starts the text).
 */
const schemeEndsAt = (text: string, end: number, from: number): boolean => {
  let found = false;
  for (let at = end - 1; at >= from && isSchemeChar(text.charCodeAt(at)); at -= 1) {
    if (isLetter(text.charCodeAt(at)) && (at === 0 || !isWordChar(text.charCodeAt(at - 1)))) found = true;
  }
  return found;
};

/**
 * `scheme://user:password@` → `scheme://user:<redacted>@`. By hand: find each `://`, look back
 * over the scheme, and forward over the authority (which stops at `/`, white space or `@`). A run
 * of scheme characters holds no `:`, and an authority no `/`, so no character is scanned for two
 * `://`.
 */
const redactUrlPasswords = (text: string): string => {
  const parts: string[] = [];
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
    parts.push(text.slice(from, colon + 1), REDACTED);
    from = end;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
};

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
  const parts: string[] = [];
  let from = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const end = secretEnd(match);
    if (end > match.index) {
      parts.push(text.slice(from, match.index), REDACTED);
      from = end;
      pattern.lastIndex = end;
    } else {
      pattern.lastIndex = Math.max(match.index + 1, Math.min(resume(match), match.index + match[0].length));
    }
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
};

/** Whether a word boundary (`\b`, ASCII) lies before index `at` of `text`. */
const isBoundary = (text: string, at: number): boolean =>
  (at > 0 && isWordChar(text.charCodeAt(at - 1))) !== (at < text.length && isWordChar(text.charCodeAt(at)));

/**
 * API keys, with cosh-core's prefixes, characters and minimum lengths: `sk-` + 10 of
 * `[A-Za-z0-9_-]`, `sk_live_`/`sk_test_` + 10 letters or digits, `glpat-` + 10, `npm_` and `hf_`
 * + 20 letters or digits, `AIza` + 20, `xox[baprs]-` + 10 of `[A-Za-z0-9-]`, ending at a word
 * boundary: a key that runs into a `_` ends at the last boundary before it
 * (`xoxb-1234567890-abc_def` is `xoxb-1234567890-`), or is no key, and the search resumes one
 * character into it (`xoxb-glpat-abcdefghij_k` holds a `glpat-` key). The last boundary of a run
 * is found once per run end, whatever number of keys start in it: linear.
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
 * cannot hold a token that starts in its first part (it would have the same later parts and a
 * shorter first one), so the search resumes at its second part (`eyJaaaa.<a JWT>`): each part is
 * scanned at most three times.
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

const RULES: readonly Rule[] = [
  {
    name: 'cookie header',
    needle: /cookie/i,
    apply: (text) =>
      redactValuesAfter(
        new RegExp(String.raw`\b(?:set-)?cookie["']?${BLANK}*:${BLANK}*["']?`, 'gi'),
        text,
        cookieValueEnd,
      ),
  },
  {
    name: 'authorization header',
    needle: /authorization/i,
    apply: replacing(
      new RegExp(
        String.raw`\b((?:proxy-)?authorization["']?${BLANK}*[:=]${BLANK}*["']?)(?:(bearer|basic|token|digest)${BLANK}+)?(?:<redacted>|[^${SPACE},;&"'<>]+)`,
        'gi',
      ),
      (_match, prefix, scheme) => `${prefix ?? ''}${scheme === undefined ? '' : `${scheme} `}${REDACTED}`,
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
  {
    name: 'secret assignment',
    needle: /pass|token|secret|cred|key|bearer/i,
    apply: (text) =>
      redactValuesAfter(
        new RegExp(
          String.raw`(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,32}[_.-]){0,4}${SECRET_WORD}["']?${BLANK}*[:=]${BLANK}*`,
          'gi',
        ),
        text,
      ),
  },
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
  /cookie|authorization|bearer|:\/\/|--|pass|token|secret|cred|key|gh[pousr]_|github_pat_|sk[-_]|glpat-|npm_|hf_|AIza|xox[baprs]-|eyJ|AKIA|ASIA|LTAI|PRIVATE KEY/i;

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
 */
const redactPrivateKeys = (text: string): string => {
  if (!/PRIVATE KEY-----/i.test(text)) return text;
  const begins = forwardSearch(/-----BEGIN /gi, text);
  const ends = forwardSearch(/-----END /gi, text);
  const marks = forwardSearch(/PRIVATE KEY-----/gi, text);
  const newlines = forwardSearch(/\n/g, text);
  /** The index of the `\n` that ends the line holding `at`, or the length of the text. */
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

/** `text` with every secret-shaped part replaced by `<redacted>`; the same string when there is none. */
export const redactText = (text: string): string => {
  if (!ANY_NEEDLE.test(text)) return text;
  let redacted = redactPrivateKeys(text);
  for (const rule of RULES) {
    if (rule.needle.test(redacted)) redacted = rule.apply(redacted);
  }
  return redacted;
};

/** The names of the text rules, in the order they apply (for docs and tests). */
export const TEXT_RULES: readonly string[] = ['PEM private key', ...RULES.map((rule) => rule.name)];

// ----- JSON values

type Mode = 'keys' | 'text';

/** A fresh object with `entries`; `__proto__` and friends stay ordinary keys. */
const objectOf = (entries: readonly (readonly [string, unknown])[]): Record<string, unknown> => {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
};

/**
 * `value` redacted: in `keys` mode a secret-named key's value becomes `<redacted>`, and strings
 * get the text rules; in `text` mode (tool schemas) only the text rules apply, so a property named
 * `token` survives. Copy on write: an unchanged subtree is returned as is.
 */
const redactTree = (value: unknown, mode: Mode, depth: number, special?: SpecialKeys): unknown => {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTION_DEPTH) return REDACTED;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item: unknown) => {
      const redacted = redactTree(item, mode, depth + 1);
      if (redacted !== item) changed = true;
      return redacted;
    });
    return changed ? items : value;
  }
  const object = value as Readonly<Record<string, unknown>>;
  let entries: [string, unknown][] | undefined;
  let index = 0;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const item = object[key];
    const redacted =
      special !== undefined && Object.hasOwn(special, key)
        ? (special[key] as SpecialHandler)(item, depth + 1)
        : mode === 'keys' && isSecretKey(key)
          ? REDACTED
          : redactTree(item, mode, depth + 1);
    if (redacted !== item && entries === undefined) {
      // First change: copy the keys before this one, then collect the rest.
      entries = Object.keys(object)
        .slice(0, index)
        .map((earlier): [string, unknown] => [earlier, object[earlier]]);
    }
    entries?.push([key, redacted]);
    index += 1;
  }
  return entries === undefined ? value : objectOf(entries);
};

type SpecialHandler = (value: unknown, depth: number) => unknown;
type SpecialKeys = Readonly<Record<string, SpecialHandler>>;

const textOnly = (value: unknown, depth: number): unknown => redactTree(value, 'text', depth);

/** `llm_request.tools` and `llm_request.config.tools` hold JSON Schema: text rules only (cosh-core). */
const LLM_REQUEST: SpecialKeys = {
  tools: textOnly,
  config: (value, depth) => redactTree(value, 'keys', depth, { tools: textOnly }),
};
const TOP_LEVEL: SpecialKeys = {
  llm_request: (value, depth) => redactTree(value, 'keys', depth, LLM_REQUEST),
};

/**
 * A JSON value (an event, a hook's `hookSpecificOutput`) with its secrets redacted: secret-named
 * keys and secret-shaped text, except in tool schemas, which get the text rules only. Never
 * mutates; returns `value` itself when nothing was redacted.
 */
export const redactJson = <A>(value: A): A => redactTree(value, 'keys', 0, TOP_LEVEL) as A;

const redactedEvents = new WeakMap<object, object>();

/**
 * The event as hooks see it, redacted once: the copy is kept (weakly, by identity) for every
 * later hook of the same event's chain. The event must not be mutated afterwards; the engine
 * never does.
 */
export const redactedEvent = <A extends object>(event: A): A => {
  const cached = redactedEvents.get(event);
  if (cached !== undefined) return cached as A;
  const redacted = redactJson(event);
  redactedEvents.set(event, redacted);
  return redacted;
};

/** A hook's parsed output with its secrets redacted (reason, systemMessage, hookSpecificOutput). */
export const redactOutput = (output: HookOutput): HookOutput => {
  const reason = output.reason === undefined ? undefined : redactText(output.reason);
  const systemMessage = output.systemMessage === undefined ? undefined : redactText(output.systemMessage);
  const specific =
    output.hookSpecificOutput === undefined ? undefined : redactJson(output.hookSpecificOutput);
  if (
    reason === output.reason &&
    systemMessage === output.systemMessage &&
    specific === output.hookSpecificOutput
  ) {
    return output;
  }
  return {
    ...output,
    ...(reason !== undefined && { reason }),
    ...(systemMessage !== undefined && { systemMessage }),
    ...(specific !== undefined && { hookSpecificOutput: specific }),
  };
};

/**
 * A hook's result as it may leave the engine: its output redacted, or, for a failure, its message
 * (which may quote stdout or stderr) and its stderr (the fail_closed reason) redacted.
 */
export const redactResult = (result: HookResult): HookResult => {
  if (result.outcome === 'ok') {
    const output = redactOutput(result.output);
    return output === result.output ? result : { ...result, output };
  }
  const message = redactText(result.message);
  const stderr = result.stderr === undefined ? undefined : redactText(result.stderr);
  if (message === result.message && stderr === result.stderr) return result;
  return { ...result, message, ...(stderr !== undefined && { stderr }) };
};
