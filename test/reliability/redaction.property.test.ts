import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHookOutputValue } from '../../src/protocol/decode-output.js';
import { REDACTED, redactJson, redactOutput, redactText } from '../../src/protocol/redact/index.js';

/*
 * Secret redaction (spec §4.7) under random and hostile input. No timing assertions: a pattern
 * that backtracks catastrophically would not finish a 10 MB input in this test's timeout (it would
 * take hours), and one that recursed or looped per character would overflow the stack.
 */

const token = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** [text holding a secret, the secret]: each shape spec §4.7 names. */
const planted = fc.oneof(
  token(ALNUM, 12, 40).map((s) => [`Authorization: Bearer ${s}`, s]),
  token(ALNUM, 12, 40).map((s) => [`bearer ${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`Cookie: sid=${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`Set-Cookie: "${s}"`, s]),
  token(ALNUM, 6, 30).map((s) => [`ACCESSTOKEN=${s}`, s]),
  token(ALNUM, 12, 40).map((s) => [`sk-${s}`, `sk-${s}`]),
  token(UPPER_DIGITS, 16, 16).map((s) => [`AKIA${s}`, s]),
  token(ALNUM, 12, 32).map((s) => [`LTAI${s}`, `LTAI${s}`]),
  token(ALNUM, 20, 40).map((s) => [`ghp_${s}`, `ghp_${s}`]),
  token(ALNUM, 20, 40).map((s) => [`github_pat_${s}`, `github_pat_${s}`]),
  fc.tuple(token(ALNUM, 8, 20), token(ALNUM, 8, 20)).map(([a, b]) => [`eyJ${a}.${b}.${a}${b}`, `${a}.${b}`]),
  token(ALNUM, 6, 30).map((s) => [`--password ${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`--api-key="${s}"`, s]),
  token(ALNUM, 6, 30).map((s) => [`PGPASSWORD=${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`WEBHOOK_SECRET=${s}`, s]),
  fc.tuple(token(ALNUM, 3, 10), token(ALNUM, 6, 30)).map(([u, s]) => [`curl -u ${u}:${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`{"aws_access_key_id": "${s}"}`, s]),
  token(ALNUM, 6, 30).map((s) => [`DB_PASSWORD=${s}`, s]),
  token(ALNUM, 6, 30).map((s) => [`client_secret: '${s}'`, s]),
  token(ALNUM, 6, 30).map((s) => [`https://user:${s}@example.com/x`, s]),
  token(ALNUM, 6, 30).map((s) => [`-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----`, s]),
);

/** Text around a secret: words, punctuation and white space, never touching it without a space. */
const filler = fc.string({ unit: fc.constantFrom(...'abc xyz,.;:/\n\t()[]{}"\'-_=') });

describe('redactText under random input', () => {
  it('a planted secret never survives, whatever surrounds it (5,000 cases)', () => {
    fc.assert(
      fc.property(filler, planted, filler, (before, [text, secret], after) => {
        const redacted = redactText(`${before} ${text} ${after}`);
        expect(redacted).not.toContain(secret);
        expect(redacted).toContain('<redacted');
      }),
      { numRuns: 5_000 },
    );
  });

  it('is idempotent and never throws, on any string (10,000 cases)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.tuple(filler, planted, filler).map(([a, [b], c]) => a + b + c),
        ),
        (text) => {
          const once = redactText(text);
          expect(redactText(once)).toBe(once);
        },
      ),
      { numRuns: 10_000 },
    );
  });
});

describe('redactJson under random input', () => {
  it('keeps the shape: same keys, same array lengths, and only secret-named values or strings change (5,000 cases)', () => {
    const sameShape = (before: unknown, after: unknown): void => {
      if (typeof before === 'string') return expect(typeof after).toBe('string');
      if (Array.isArray(before)) {
        expect(Array.isArray(after) && after.length).toBe(before.length);
        before.forEach((item, i) => sameShape(item, (after as unknown[])[i]));
        return;
      }
      if (typeof before === 'object' && before !== null) {
        const object = after as Record<string, unknown>;
        expect(Object.keys(object)).toEqual(Object.keys(before));
        for (const [key, value] of Object.entries(before)) {
          if (object[key] !== REDACTED) sameShape(value, object[key]);
        }
        return;
      }
      expect(after).toBe(before);
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const redacted = redactJson(value);
        expect(JSON.stringify(JSON.parse(JSON.stringify(redacted)))).toBe(JSON.stringify(redacted));
        sameShape(value, redacted);
      }),
      { numRuns: 5_000 },
    );
  });

  it('never turns a valid hook output invalid: it decodes to the same decision (5,000 cases)', () => {
    const output = fc.record(
      {
        decision: fc.constantFrom('allow', 'block', 'ask', 'none'),
        reason: fc.oneof(
          fc.string(),
          planted.map(([text]) => text),
        ),
        systemMessage: fc.oneof(
          fc.string(),
          planted.map(([text]) => text),
        ),
        hookSpecificOutput: fc.dictionary(
          fc.oneof(fc.string(), fc.constantFrom('token', 'additional_context', 'tool_input', 'llm_request')),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: ['decision'] },
    );
    fc.assert(
      fc.property(output, (raw) => {
        const decoded = decodeHookOutputValue(raw);
        if (!decoded.ok) return;
        const redacted = redactOutput(decoded.value);
        const again = decodeHookOutputValue(JSON.parse(JSON.stringify(redacted)));
        expect(again.ok && again.value.decision).toBe(decoded.value.decision);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('redaction of hostile 10 MB strings (no catastrophic backtracking, no stack overflow)', () => {
  const MB10 = 10 * 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(MB10 / unit.length)).slice(0, MB10);

  it.each([
    ['letters', fill('a'), false],
    ['dotted words (scheme starts everywhere)', fill('a.b-c+'), false],
    ['":// without @', fill('a://b'), false],
    ['eyJ runs joined by -', fill('eyJ-'), false],
    ['eyJ parts too short', fill('eyJaa.'), false],
    ['sk- runs', fill('sk-'), true],
    ['an unclosed quoted password (no single token: left whole)', `--password "${fill('a\\')}`, false],
    ['a bare password', `--password ${fill('a')}`, true],
    ['flags without values', fill('--password '), true],
    ['assignments', fill('password='), true],
    ['keywords followed by spaces only', fill('password                    '), false],
    ['identifier parts', fill('a_b_c_d_e_f_'), false],
    ['bearer words', fill('bearer '), true],
    ['authorization words', fill('authorization: '), true],
    ['cookie words without a colon', fill('cookie '), false],
    ['PEM BEGIN markers without END', fill('-----BEGIN RSA '), false],
    ['quotes after keys', fill('token="'), true],
    // Added with cosh-core's catalogs, gaps of any width, shell words and PEM labels (issue 12 audit).
    ['joined key names, each an empty shell assignment', fill('accesstoken= '), false],
    ['joined key names with values', fill('accesstoken=x '), true],
    ['one secret name whose value runs 10 MB into a $', `${fill('token=')}$`, false],
    ['quoted values, each followed by more', fill('password: "a" '), true],
    ['curl users', fill('-u a:b '), true],
    ['secrets as names of secrets', fill('PGPASSWORD='), true],
    ['a cookie of 10 MB of =" (quoted values never closed)', `Cookie: a${fill('="')}`, true],
    ['cookie headers, each with a quoted value holding a space (left whole)', fill('Cookie: a="b '), false],
    ['cookie pairs', `Cookie: ${fill('a=b; ')}`, true],
    ['one cookie value of 10 MB', `Cookie: ${fill('a')}`, true],
    ['one cookie value of 10 MB of quoted values', `Cookie: ${fill('a="b"')}`, true],
    ['one Authorization value of 10 MB', `Authorization: Basic ${fill('a')}`, true],
    ['one bearer token of 10 MB', `Bearer ${fill('a')}`, true],
    ['refused eyJ parts, each search resumed inside the last', fill('eyJaaaa.'), false],
    ['refused API keys, each search resumed inside the last', fill('AIza-sk-abc '), false],
    ['Slack keys sharing one run that ends in _', `${fill('xoxb-1234567890-')}_`, true],
    ['one 10 MB Slack run that ends in _ (no boundary to end on)', `xoxb-${fill('a')}_`, false],
    ['one 10 MB gap after a keyword, no =', `password${fill(' ')}x`, false],
    ['one 10 MB gap after Authorization:, no value', `Authorization:${fill(' ')},`, false],
    ['one 10 MB gap after Bearer, no token', `Bearer${fill(' ')},`, false],
    ['a value of 10 MB of quoted parts', `--password ${fill('"a"b')}`, true],
    ['one 10 MB run of scheme characters before ://', `${fill('a.')}://u:p@h`, true],
    ['schemes without a password everywhere', fill('.a://x'), false],
    ['BEGIN lines, one PRIVATE KEY----- at the very end', `${fill('-----BEGIN x\n')}PRIVATE KEY-----`, true],
    [
      'END lines without a marker after a BEGIN',
      `-----BEGIN PRIVATE KEY-----\n${fill('-----END x\n')}`,
      true,
    ],
    // Password options of known programs (issue 29).
    ['program names without options', fill('mysql '), false],
    ['mysql passwords', fill('mysql -pa '), true],
    ['one mysql command of 10 MB of separate -p (no password)', `mysql ${fill('-p ')}`, false],
    ['one sshpass command of 10 MB of -p', `sshpass ${fill('-p ')}`, true],
    ['program commands, each with an unclosed quote', fill(`mysql -p" `), false],
    ['one command with 10 MB of quotes never closed', `mysql ${fill(`'"`)}`, false],
    ['smbclient users without %', fill('smbclient -U a '), false],
    ['one smbclient -U value of 10 MB without %', `smbclient -U ${fill('a')}`, false],
    ['one htpasswd -b command of 10 MB of positionals', `htpasswd -b ${fill('a ')}`, true],
    ['programs after programs', fill('sshpass mysql '), false],
    ['programs by path', fill('/mysql '), false],
    ['one docker command of 10 MB of options before its subcommand', `docker ${fill('-x ')}`, false],
    [
      'blocks that end on the line where the next begins',
      fill('-----BEGIN PRIVATE KEY----- -----END PRIVATE KEY-----'),
      true,
    ],
  ])(
    '%s',
    (_name, text, changes) => {
      const redacted = redactText(text);
      expect(redacted !== text).toBe(changes);
      expect(redactText(redacted)).toBe(redacted);
    },
    120_000,
  );

  it('keys of 10 MB: separators inside a secret word are dropped as in cosh-core, in linear time', () => {
    const secretKey = `to${fill('_')}ken`;
    const plainKey = `p${fill('-')}x`;
    expect(redactJson({ [secretKey]: 'v', [plainKey]: 'w', [fill('k_e_')]: 'z' })).toEqual({
      [secretKey]: REDACTED,
      [plainKey]: 'w',
      [fill('k_e_')]: 'z',
    });
  }, 120_000);

  it('an event 512 levels deep with a 10 MB string inside', () => {
    let value: unknown = { command: `curl -H 'Authorization: Bearer ${fill('x')}'` };
    for (let i = 0; i < 510; i += 1) value = { nested: value };
    const redacted = redactJson({ tool_input: value });
    expect(JSON.stringify(redacted)).toContain("Bearer <redacted>'");
    expect(JSON.stringify(redacted).length).toBeLessThan(100_000);
  }, 120_000);
});
