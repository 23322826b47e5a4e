import { describe, expect, it } from 'vitest';
import { excerpt } from '../../../src/protocol/excerpt.js';
import {
  isSecretKey,
  MAX_REDACTION_DEPTH,
  REDACTED,
  redactedEvent,
  redactJson,
  redactResult,
  redactText,
} from '../../../src/protocol/redact/index.js';
import { failure, success } from '../../../src/protocol/result.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

describe('redactText: secret shapes (cosh-core redaction.rs, spec §4.7)', () => {
  it.each([
    [
      'Authorization header',
      `curl -H 'Authorization: Bearer abc123def456' https://api.example`,
      `curl -H 'Authorization: Bearer <redacted>' https://api.example`,
    ],
    ['Authorization, no scheme', 'authorization=opaque-value&x=1', 'authorization=<redacted>&x=1'],
    [
      'Authorization in JSON text',
      '{"Authorization": "Basic dXNlcjpwYXNz"}',
      '{"Authorization": "Basic <redacted>"}',
    ],
    ['Bearer alone', 'token is Bearer abc.def-ghi', 'token is Bearer <redacted>'],
    [
      'Cookie header: each value',
      `curl -H 'Cookie: session=abc; id=1' x`,
      `curl -H 'Cookie: session=<redacted>; id=<redacted>' x`,
    ],
    [
      'Set-Cookie line: the cookie, not its attributes',
      'Set-Cookie: sid=xyz; HttpOnly\nnext',
      'Set-Cookie: sid=<redacted>; HttpOnly\nnext',
    ],
    ['OpenAI key', 'key sk-proj-abcdefghij1234 used', 'key <redacted> used'],
    ['Stripe live key', 'sk_live_abcdefghij12', '<redacted>'],
    ['GitLab token', 'glpat-abcdefghij12', '<redacted>'],
    ['Google API key', 'AIzaSyA-abcdefghijklmnopqrstu', '<redacted>'],
    ['Slack token', 'xoxb-1234567890-abc', '<redacted>'],
    ['npm token', 'npm_abcdefghijklmnopqrstuvwxyz', '<redacted>'],
    ['Hugging Face token', 'hf_abcdefghijklmnopqrstuvwxyz', '<redacted>'],
    ['AWS access key', 'id AKIA1234567890ABCDEF end', 'id AKIA<redacted> end'],
    ['AWS session key', 'ASIA1234567890ABCDEF', 'ASIA<redacted>'],
    ['Alibaba Cloud key', 'LTAI5tExampleAccessKey', '<redacted>'],
    ['GitHub classic token', 'ghp_abcdefghijklmnopqrstuvwxyz123456', '<redacted>'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghij', '<redacted>'],
    ['JWT', `id ${JWT}.`, 'id <redacted>.'],
    ['--password value', 'mysql --password hunter2 -u root', 'mysql --password <redacted> -u root'],
    ['--password=value', 'mysql --password=hunter2', 'mysql --password=<redacted>'],
    ['--flag with a quoted value', `tool --api-key "abc" --v`, 'tool --api-key "<redacted>" --v'],
    [
      '--flag with a prefixed name',
      'aws --aws-secret-access-key abc/def',
      'aws --aws-secret-access-key <redacted>',
    ],
    ['KEY=value', 'export OPENAI_API_KEY=sk-x1', 'export OPENAI_API_KEY=<redacted>'],
    [
      'KEY=value, env dump',
      'HOME=/root\nDATABASE_PASSWORD=hunter2\nPATH=/bin',
      'HOME=/root\nDATABASE_PASSWORD=<redacted>\nPATH=/bin',
    ],
    ['key: value', 'password: hunter2', 'password: <redacted>'],
    ['key in JSON text', '{"api_key": "abcdef", "user": "bob"}', '{"api_key": "<redacted>", "user": "bob"}'],
    ['single-quoted value', "secret='abc' rest", "secret='<redacted>' rest"],
    [
      'URL password',
      'git clone https://bob:s3cret@example.com/r.git',
      'git clone https://bob:<redacted>@example.com/r.git',
    ],
    ['URL password, other scheme', 'postgres://app:pw@db:5432/x', 'postgres://app:<redacted>@db:5432/x'],
    [
      'PEM block',
      'a\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\nb',
      'a\n<redacted private key block>\nb',
    ],
    ['PEM block without END', 'a -----BEGIN PRIVATE KEY-----\nMIIB...', 'a <redacted private key block>'],
    [
      'PEM block then more text',
      "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----' --token t1",
      "<redacted private key block>' --token <redacted>",
    ],
  ])('%s', (_name, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each([
    ['plain command', 'ls -la /tmp && git status'],
    ['URL without a password', 'https://example.com/a?b=c'],
    ['URL with a user only', 'ssh://git@github.com/x'],
    ['max_tokens is no token', 'max_tokens: 100'],
    ['--token-file names a file', 'gh --token-file /etc/t'],
    ['short sk- word', 'sk-short'],
    ['three parts too short for a JWT', 'eyJa.bb.cc'],
    ['public key block', '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----'],
    ['already redacted', 'password=<redacted> Bearer <redacted>'],
    // A replaced value is one token (docs/protocol.md): these are left whole.
    ['a quoted value with white space', `tool --api-key "a b \\" c" --v`],
    ['a key in JSON text whose value has a space', '{"api_key": "abc def", "user": "bob"}'],
    ['a single-quoted value with spaces', "secret='a b c' rest"],
    ['an unclosed quote', 'token="abc def'],
    ['single quotes, then an escaped space', "secret='a b'c\\ d next"],
    ['a shell assignment followed by a command', 'TOKEN= rm -rf /'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toBe(input);
  });

  it.each([
    'Cookie: a=b',
    'Set-Cookie:   sid=1; HttpOnly',
    'Cookie: "sid=abc"',
    'Authorization: Basic abc',
    'Authorization:   "abc"',
    'Bearer   abc',
  ])('is idempotent on %j (the gap before a header value is never redacted)', (text) => {
    const once = redactText(text);
    expect(once).toContain('<redacted>');
    expect(redactText(once)).toBe(once);
  });

  it('returns the very same string when there is nothing to redact', () => {
    const text = 'echo hello world';
    expect(redactText(text)).toBe(text);
  });
});

/*
 * Letter by letter against cosh-core's `redaction.rs` (issue 12 audit): each case is one that
 * cosh-core's patterns redact. Key catalogs with `[_-]?` (joined names), values that are shell
 * words of several quoted and unquoted parts, Rust's `\s` (no control characters, no U+FEFF; U+0085
 * is one), gaps of any width, schemes after `+`, `-` or `.`, and any PEM private key label.
 */
describe('redactText: what cosh-core redacts, redacted here too', () => {
  const SPACES = ' '.repeat(24);
  it.each([
    ...[
      'accesstoken',
      'refreshtoken',
      'idtoken',
      'clientsecret',
      'securitytoken',
      'sessiontoken',
      'authtoken',
      'accesskeysecret',
      'secretaccesskey',
      'access-keysecret',
    ].map((flag) => [
      `--${flag} (joined flag name)`,
      `cmd --${flag} abc123 -v`,
      `cmd --${flag} <redacted> -v`,
    ]),
    ...[
      'ACCESSTOKEN',
      'GITHUBTOKEN',
      'OPENAIAPIKEY',
      'dashscopeapikey',
      'clientsecret',
      'awssecretaccesskey',
      'AWSACCESSKEYID',
      'alibabacloudaccesskeyid',
      'authtoken',
      'sessiontoken',
      'securitytoken',
      'refreshtoken',
      'idtoken',
      'access_keysecret',
      'bearer',
    ].map((key) => [`${key}= (joined key name)`, `${key}=abc123 next`, `${key}=<redacted> next`]),
    ['bearer: value', 'bearer: abc123', 'bearer: <redacted>'],
    ['an API key right after a shorter would-be one', 'AIza-sk-abcdefghij1234 x', 'AIza-<redacted> x'],
    [
      'a Slack token that runs into _ ends where a word does, as in cosh-core',
      'xoxb-1234567890-abc_def',
      '<redacted>abc_def',
    ],
    [
      'a Slack prefix that runs into _ gives way to the key inside it',
      'xoxb-glpat-abcdefghij_klm rest',
      'xoxb-<redacted> rest',
    ],
    ['npm_ takes letters and digits only, as in cosh-core', 'npm_-sk-abcdefghij1234', 'npm_-<redacted>'],
    ['a JWT right after a too-short eyJ part', `eyJaaaa.${JWT} x`, 'eyJaaaa.<redacted> x'],
    ['a quoted cookie header', 'Cookie: "sid=abc123"', 'Cookie: "sid=<redacted>"'],
    [
      'a cookie whose values are quoted (RFC 6265)',
      'Cookie: sid="abc123"; theme="dark"',
      'Cookie: sid="<redacted>"; theme="<redacted>"',
    ],
    [
      'a cookie header inside quotes keeps the closing quote and what follows',
      'curl -H "Cookie: sid=abc123" https://x',
      'curl -H "Cookie: sid=<redacted>" https://x',
    ],
    ['a single-quoted Set-Cookie value', "Set-Cookie: 'x=1; Path=/'", "Set-Cookie: 'x=<redacted>; Path=/'"],
    [
      'a value of unquoted then quoted parts: the plain run',
      '--password=abc"def ghi" -v',
      '--password=<redacted>"def ghi" -v',
    ],
    ['a quoted part then an unquoted one', 'token="abc"def next', 'token="<redacted>"def next'],
    ['JSON text keeps its quotes and closing brace', '{"token": "abcdef"}', '{"token": "<redacted>"}'],
    ['a control character is no space', 'password=abc\u0001def next', 'password=<redacted> next'],
    ['U+FEFF is no space', 'token=abc\ufeffdef next', 'token=<redacted> next'],
    ['U+0085 is a space', 'token=abc\u0085def', 'token=<redacted>\u0085def'],
    [
      'a long gap after Authorization:',
      `Authorization:${SPACES}Basic dXNlcjpwYXNz`,
      `Authorization:${SPACES}Basic <redacted>`,
    ],
    ['a long gap after Bearer', `Bearer${SPACES}abcdefghijkl`, `Bearer${SPACES}<redacted>`],
    ['a long gap around =', `password${SPACES}=${SPACES}hunter2`, `password${SPACES}=${SPACES}<redacted>`],
    ['a long gap after a flag', `--token${SPACES}abc`, `--token${SPACES}<redacted>`],
    ['a long gap after Cookie:', `Cookie:${SPACES}sid=1`, `Cookie:${SPACES}sid=<redacted>`],
    ['a no-break space after a flag', '--token\u00a0abc', '--token\u00a0<redacted>'],
    ['a scheme after a dot', '1.https://user:pw@host/x', '1.https://user:<redacted>@host/x'],
    ['a scheme after a dash', 'x -https://user:pw@host', 'x -https://user:<redacted>@host'],
    ['a long scheme', `${'a'.repeat(40)}://user:pw@host`, `${'a'.repeat(40)}://user:<redacted>@host`],
    [
      'a PEM label with a dash',
      'a\n-----BEGIN RSA-PSS PRIVATE KEY-----\nMIIB\n-----END RSA-PSS PRIVATE KEY-----\nb',
      'a\n<redacted private key block>\nb',
    ],
    [
      'a PEM label longer than 40 characters',
      `-----BEGIN ${'X'.repeat(50)} PRIVATE KEY-----\nMIIB\n-----END ${'X'.repeat(50)} PRIVATE KEY-----`,
      '<redacted private key block>',
    ],
  ])('%s', (_name, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each([
    ['a key: at the end of a line keeps the next line (unlike cosh-core)', 'if token:\n    run(x)'],
    ['Bearer at the end of a line keeps the next line', 'scheme: Bearer\nNext steps'],
    ['max_tokens with a long gap', `max_tokens${' '.repeat(30)}= 100`],
    ['a PEM BEGIN line without PRIVATE KEY', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactText(input)).toBe(input);
  });
});

describe('isSecretKey', () => {
  it.each([
    'password',
    'Passwd',
    'passphrase',
    'token',
    'access_token',
    'refreshToken',
    'id-token',
    'secret',
    'client_secret',
    'api_key',
    'apiKey',
    'X-API-Key',
    'access_key_id',
    'AWS_SECRET_ACCESS_KEY',
    'OPENAI_API_KEY',
    'github_token',
    'Authorization',
    'Proxy-Authorization',
    'cookie',
    'Set-Cookie',
    'credential',
    'credentials',
    'private_key',
    'DATABASE_PASSWORD',
    'webhook_secret',
    // cosh-core drops every character that is not an ASCII letter or digit before comparing.
    'TO_KEN',
    'pa-ss-word',
    'sec ret',
    'a.p.i.k.e.y',
    'Cook.ie',
  ])('%s is secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each([
    'name',
    'command',
    'max_tokens',
    'tokens',
    'keyboard',
    'monkey',
    'author',
    'key',
    'session_id',
    'tool_input',
  ])('%s is not', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

describe('redactJson', () => {
  it('replaces secret-named values whole and redacts text everywhere else', () => {
    expect(
      redactJson({
        tool_input: {
          command: 'curl --token t0ps3cret x',
          headers: { Authorization: 'Bearer x', Accept: '*/*' },
        },
        env: [{ name: 'A', api_key: 12345 }],
        nested: { credentials: { user: 'u', pass: 'p' } },
      }),
    ).toEqual({
      tool_input: {
        command: 'curl --token <redacted> x',
        headers: { Authorization: REDACTED, Accept: '*/*' },
      },
      env: [{ name: 'A', api_key: REDACTED }],
      nested: { credentials: REDACTED },
    });
  });

  it('gives tool schemas (llm_request.config.tools, llm_request.tools) the text rules only', () => {
    const tool = {
      name: 'login',
      description: 'Logs in. Example: --password hunter2',
      parameters: { type: 'object', properties: { token: { type: 'string' }, password: { type: 'string' } } },
    };
    const event = {
      hook_event_name: 'BeforeModel',
      llm_request: { model: 'm', api_key: 'k', config: { tools: [tool], secret: 's' }, tools: [tool] },
    };
    const expectedTool = { ...tool, description: 'Logs in. Example: --password <redacted>' };
    expect(redactJson(event)).toEqual({
      hook_event_name: 'BeforeModel',
      llm_request: {
        model: 'm',
        api_key: REDACTED,
        config: { tools: [expectedTool], secret: REDACTED },
        tools: [expectedTool],
      },
    });
  });

  it('keys elsewhere named tools are redacted as usual', () => {
    expect(redactJson({ tool_input: { tools: [{ token: 'x' }] } })).toEqual({
      tool_input: { tools: [{ token: REDACTED }] },
    });
  });

  it('copies on write: untouched subtrees are the same objects, the input is never mutated', () => {
    const clean = { a: [1, 'two', { three: true }] };
    const input = { clean, dirty: { password: 'x' } };
    const output = redactJson(input);
    expect(output.clean).toBe(clean);
    expect(input.dirty.password).toBe('x');
    const none = { a: 'b', c: [1, 2] };
    expect(redactJson(none)).toBe(none);
  });

  it('keeps __proto__ and constructor as ordinary keys', () => {
    const input = JSON.parse('{"__proto__": {"token": "x"}, "constructor": "sk-abcdefghijkl"}') as Record<
      string,
      unknown
    >;
    const output = redactJson(input);
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(JSON.stringify(output)).toBe('{"__proto__":{"token":"<redacted>"},"constructor":"<redacted>"}');
  });

  it(`replaces what is nested deeper than ${MAX_REDACTION_DEPTH} levels whole, without recursing further`, () => {
    let deep: unknown = 'Bearer abc';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    const output = redactJson({ deep });
    let cursor: unknown = (output as { deep: unknown }).deep;
    let depth = 1;
    while (Array.isArray(cursor)) {
      cursor = cursor[0];
      depth += 1;
    }
    expect(cursor).toBe(REDACTED);
    expect(depth).toBe(MAX_REDACTION_DEPTH);
  });
});

describe('redactedEvent', () => {
  it('redacts once per event object and hands out the same copy', () => {
    const event = { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'my password: hunter2' };
    const first = redactedEvent(event);
    expect(first).toEqual({ ...event, prompt: 'my password: <redacted>' });
    expect(redactedEvent(event)).toBe(first);
  });
});

describe('redactResult', () => {
  it('redacts reason, systemMessage and hookSpecificOutput of an answer', () => {
    const result = success({
      decision: 'block',
      reason: 'found ghp_abcdefghijklmnopqrstuvwxyz123456 in the command',
      systemMessage: 'Bearer abcdefgh',
      hookSpecificOutput: { additional_context: 'api_key=xyz', tool_input: { token: 'raw' } },
    });
    expect(redactResult(result)).toEqual(
      success({
        decision: 'block',
        reason: 'found <redacted> in the command',
        systemMessage: 'Bearer <redacted>',
        hookSpecificOutput: { additional_context: 'api_key=<redacted>', tool_input: { token: REDACTED } },
      }),
    );
  });

  it('redacts a failure message and the stderr a fail_closed reason comes from', () => {
    expect(
      redactResult(
        failure('exit', 'exited with code 1: GITHUB_TOKEN=ghp_x', {
          stderr: 'password=p\nmore',
          exitCode: 1,
        }),
      ),
    ).toEqual(
      failure('exit', 'exited with code 1: GITHUB_TOKEN=<redacted>', {
        stderr: 'password=<redacted>\nmore',
        exitCode: 1,
      }),
    );
  });

  it('returns the same result when there is nothing to redact', () => {
    const ok = success({ decision: 'allow', reason: 'fine' });
    const failed = failure('timeout', 'timed out after 5 ms');
    expect(redactResult(ok)).toBe(ok);
    expect(redactResult(failed)).toBe(failed);
  });
});

describe('excerpt (what a failure message quotes of stdout)', () => {
  it.each([
    ['one short line', 'not json', 'not json'],
    [
      'only the first line of an env dump, redacted',
      'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz\nHOME=/root\nAWS_SECRET=x',
      'GITHUB_TOKEN=<redacted>…',
    ],
    [
      'redacted before it is cut',
      `${'x'.repeat(50)} Bearer ${'a'.repeat(40)}`,
      `${'x'.repeat(50)} Bearer <r…`,
    ],
    ['blank lines skipped', '\n\n  hello  \n', 'hello'],
  ])('%s', (_name, text, expected) => {
    expect(excerpt(text)).toBe(expected);
  });
});
