import type { HookOutput } from './output.js';
import type { HookResult } from './result.js';

/*
 * Secret redaction (SPEC §4.7), pure. The key list and the text shapes follow cosh-core's
 * `redaction.rs`; the patterns are written again for a backtracking engine, so that no input can
 * make them slow:
 *
 * - every gap between a keyword and its value is bounded (`[ \t]{0,16}`, `{0,31}`), so a failed
 *   attempt costs a constant;
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

/** Every secret key holds one of these (case-insensitively): most keys are rejected by this test alone. */
const KEY_HINT = /pass|secret|token|key|auth|cookie|cred/i;

/** Whether the value of a JSON key with this name is a secret, whatever it holds. */
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

const isSpace = (code: number): boolean =>
  code <= 0x20 ||
  code === 0x85 ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/** Characters that end an unquoted value, besides white space: shell operators and quotes. */
const VALUE_STOP = new Set([...';&|()<>"\''].map((char) => char.charCodeAt(0)));
const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/**
 * Where the value starting at `start` ends: one quoted string (to its closing quote, backslash
 * escapes honoured in double quotes; to the end of the text when it is not closed: fail closed),
 * or a shell word of unquoted and backslash-escaped characters. A loop, not a regex: one pass,
 * no backtracking, no stack.
 */
const valueEnd = (text: string, start: number): number => {
  const length = text.length;
  const first = text.charCodeAt(start);
  if (first === SINGLE_QUOTE) {
    const close = text.indexOf("'", start + 1);
    return close < 0 ? length : close + 1;
  }
  let at = start;
  if (first === DOUBLE_QUOTE) {
    at += 1;
    while (at < length) {
      const code = text.charCodeAt(at);
      if (code === DOUBLE_QUOTE) return at + 1;
      at += code === BACKSLASH ? 2 : 1;
    }
    return length;
  }
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at += 2;
    else if (isSpace(code) || VALUE_STOP.has(code)) break;
    else at += 1;
  }
  return Math.min(at, length);
};

/** Replaces the value after each match of `prefix` (a global regex) with `<redacted>`. */
const redactValuesAfter = (prefix: RegExp, text: string): string => {
  const parts: string[] = [];
  let from = 0;
  prefix.lastIndex = 0;
  for (let match = prefix.exec(text); match !== null; match = prefix.exec(text)) {
    const start = match.index + match[0].length;
    const end = valueEnd(text, start);
    if (end === start || text.startsWith(REDACTED, start)) continue;
    parts.push(text.slice(from, start), REDACTED);
    from = end;
    prefix.lastIndex = end;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
};

/** The last word of a secret name; up to three `word_`/`word-` parts may come before it. */
const SECRET_WORD = String.raw`(?:password|passwd|passphrase|token|secret|credentials?|api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|private[_-]?key)`;

/** Flags also name the header (`--authorization x`, `--bearer x`); in text the header rule does. */
const FLAG_WORD = String.raw`(?:${SECRET_WORD}|authorization|bearer)`;

const isLetter = (code: number): boolean => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** `+`, `-`, `.`: the other characters of a URL scheme. */
const isSchemeChar = (code: number): boolean =>
  isLetter(code) || isDigit(code) || code === 0x2b || code === 0x2d || code === 0x2e;
const isWordChar = (code: number): boolean => isLetter(code) || isDigit(code) || code === 0x5f;
const SLASH = 0x2f;
const AT = 0x40;

/**
 * `scheme://user:password@` → `scheme://user:<redacted>@`. By hand: find each `://`, look back at
 * most 32 characters for the scheme, and forward over the authority (which stops at `/`, white
 * space or `@`, so the scans of two `://` never overlap).
 */
const redactUrlPasswords = (text: string): string => {
  const parts: string[] = [];
  let from = 0;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    let scheme = at;
    while (scheme > from && at - scheme < 32 && isSchemeChar(text.charCodeAt(scheme - 1))) scheme -= 1;
    if (scheme === at || !isLetter(text.charCodeAt(scheme))) continue;
    if (scheme > 0 && isWordChar(text.charCodeAt(scheme - 1))) continue;
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

const RULES: readonly Rule[] = [
  {
    name: 'cookie header',
    needle: /cookie/i,
    apply: replacing(
      /\b((?:set-)?cookie["']?[ \t]{0,16}:[ \t]{0,16})[^\r\n"'<>]+/gi,
      (_match, prefix) => `${prefix ?? ''}${REDACTED}`,
    ),
  },
  {
    name: 'authorization header',
    needle: /authorization/i,
    apply: replacing(
      /\b((?:proxy-)?authorization["']?[ \t]{0,16}[:=][ \t]{0,16}["']?)(?:(bearer|basic|token|digest)[ \t]{1,16})?(?:<redacted>|[^\s,;&"'<>]+)/gi,
      (_match, prefix, scheme) => `${prefix ?? ''}${scheme === undefined ? '' : `${scheme} `}${REDACTED}`,
    ),
  },
  {
    name: 'bearer token',
    needle: /bearer/i,
    apply: replacing(
      /\b(bearer[ \t]{1,16})[A-Za-z0-9._~+/=-]+/gi,
      (_match, prefix) => `${prefix ?? ''}${REDACTED}`,
    ),
  },
  { name: 'password in a URL', needle: /:\/\//, apply: redactUrlPasswords },
  {
    name: 'secret command-line flag',
    needle: /--/,
    apply: (text) =>
      redactValuesAfter(
        new RegExp(String.raw`(?<!\S)--(?:[a-z0-9]{1,32}[_-]){0,3}${FLAG_WORD}(?:=|[ \t]{1,16})`, 'gi'),
        text,
      ),
  },
  {
    name: 'secret assignment',
    needle: /pass|token|secret|cred|key/i,
    apply: (text) =>
      redactValuesAfter(
        new RegExp(
          String.raw`(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,32}[_.-]){0,4}${SECRET_WORD}["']?[ \t]{0,16}[:=][ \t]{0,16}`,
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
  {
    name: 'API key',
    needle: /sk[-_]|glpat-|npm_|hf_|AIza|xox[baprs]-/,
    apply: replacing(
      /\b(sk-|sk_live_|sk_test_|glpat-|npm_|hf_|AIza|xox[baprs]-)[A-Za-z0-9_-]*/g,
      (match, prefix = '') => {
        const minimum = prefix === 'npm_' || prefix === 'hf_' || prefix === 'AIza' ? 20 : 10;
        return match.length - prefix.length >= minimum ? REDACTED : match;
      },
    ),
  },
  {
    name: 'JSON web token',
    needle: /eyJ/,
    apply: replacing(/\beyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}/g, (match) => {
      const parts = match.split('.');
      return parts.length === 3 && (parts[0] ?? '').length >= 8 && parts.every((part) => part.length >= 5)
        ? REDACTED
        : match;
    }),
  },
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

const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/gi;
const PRIVATE_KEY_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/gi;

/** PEM private key blocks, BEGIN to END (or to the end of the text when END is missing). */
const redactPrivateKeys = (text: string): string => {
  if (!/PRIVATE KEY/i.test(text)) return text;
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    PRIVATE_KEY_BEGIN.lastIndex = from;
    const begin = PRIVATE_KEY_BEGIN.exec(text);
    if (begin === null) break;
    parts.push(text.slice(from, begin.index), REDACTED_PRIVATE_KEY);
    PRIVATE_KEY_END.lastIndex = PRIVATE_KEY_BEGIN.lastIndex;
    const end = PRIVATE_KEY_END.exec(text);
    if (end === null) return parts.join('');
    from = PRIVATE_KEY_END.lastIndex;
  }
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
