/*
 * Which names are secret: JSON keys (`isSecretKey`, cosh-core's `is_sensitive_key`) and the names
 * of `KEY=value` / `key: value` assignments in text (`isSecretName`). Pure.
 */

/**
 * cosh-core's newest `is_sensitive_key` list (`redaction.rs`; normalized: ASCII letters and digits,
 * lower case), plus a few from HTTP headers and environment dumps.
 */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'password',
  'passwd',
  'passphrase',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'sessiontoken',
  'authtoken',
  'secret',
  'secretkey',
  'secretaccesskey',
  'clientsecret',
  'privatekey',
  'apikey',
  'accesskey',
  'accesskeyid',
  'accesskeysecret',
  'securitytoken',
  'awssecretaccesskey',
  'awsaccesskeyid',
  'openaiapikey',
  'dashscopeapikey',
  'githubtoken',
  'credentials',
  'credential',
  'bearer',
  'authorization',
  'cookie',
  'setcookie',
  // Not in cosh-core's list: common in HTTP and environment dumps.
  'proxyauthorization',
  'xapikey',
  'apitoken',
]);

/**
 * A key ending in one of these is secret too (`DATABASE_PASSWORD`, `webhook_secret`, `PGPASSWORD`,
 * `slack_token`). `max_tokens` and `tokenizer` end otherwise.
 */
const SECRET_KEY_ENDINGS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'accesskey',
  'accesskeyid',
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
  ['pass', 'secret', 'token', 'key', 'auth', 'cookie', 'cred', 'bearer']
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

/** What the words of a secret name, joined, end with (`PG` + `PASSWORD`, `AWS_ACCESS_KEY_ID`). */
const NAME_ENDINGS = [...SECRET_KEY_ENDINGS, 'encryptionkey', 'signingkey', 'credential', 'bearer'];

/**
 * Words after the secret part that make the name describe a secret rather than hold one:
 * `POSTGRES_PASSWORD_FILE` holds a path, `credential.helper` a program, `TOKEN_URL` an address.
 * Redacting those would hide what a reader must see (a program to run, a file to read).
 */
const DESCRIBING_WORDS: ReadonlySet<string> = new Set([
  'file',
  'path',
  'dir',
  'helper',
  'cmd',
  'command',
  'program',
  'prog',
  'script',
  'exec',
  'url',
  'uri',
  'endpoint',
  'host',
  'name',
  'type',
  'len',
  'length',
  'size',
  'count',
  'ttl',
  'expiry',
  'expires',
  'expiration',
  'timeout',
  'env',
  'var',
  'header',
  'field',
  'mode',
  'format',
  'prompt',
  'policy',
  'store',
  'cache',
  'source',
]);

/** At most this many words may follow the secret part (`DB_PASSWORD_PROD_EU`). */
const MAX_SUFFIX_WORDS = 2;

/**
 * Whether `name`, written before `=` or `:` in text, names a secret: its words (split at `_`, `-`
 * and `.`), joined, end with a secret word, possibly followed by up to two more words that do not
 * describe it (`PGPASSWORD`, `DB_PASSWORD`, `WEBHOOK_SECRET`, `DB_PASSWORD_PROD`, `MYSQL_PWD`; not
 * `POSTGRES_PASSWORD_FILE`, `max_tokens`, `tokenizer`).
 */
export const isSecretName = (name: string): boolean => {
  const words = name
    .toLowerCase()
    .split(/[_.-]+/)
    .filter((word) => word !== '');
  for (let end = words.length; end >= Math.max(1, words.length - MAX_SUFFIX_WORDS); end -= 1) {
    const suffix = words.slice(end);
    if (suffix.some((word) => DESCRIBING_WORDS.has(word) || !/^[a-z0-9]+$/.test(word))) continue;
    const last = words[end - 1] ?? '';
    // `MYSQL_PWD`: `pwd` alone is the working directory, never a secret.
    if (last === 'pwd' && end > 1) return true;
    const joined = words.slice(0, end).join('');
    if (NAME_ENDINGS.some((ending) => joined.endsWith(ending))) return true;
  }
  return false;
};
