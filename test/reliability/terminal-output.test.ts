import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { printable, printableJson, printableLine } from '../../src/cli/format.js';
import { cli, hookTable, prints, sandbox } from '../cli/helpers.js';

/**
 * Issue 10 class 11 (spec §6): `list` and `fire` print text from hooks and configs with control
 * characters escaped, so a hook cannot retitle the terminal, rewrite what is shown, or reorder it
 * with bidirectional controls.
 */

const RETITLE = '\u001b]0;pwned\u0007';
const ESCAPED = '\\x1b]0;pwned\\x07';

/** Characters that must never reach the terminal raw from hook or config text. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const box = sandbox(
  hookTable('PreToolUse', {
    name: `guard${RETITLE}`,
    description: `describes${RETITLE}`,
    matcher: '^shell$|x\u001b\\[2J',
    command: prints({
      decision: 'block',
      reason: `denied${RETITLE}\r\u009b31m overwritten\u2028next\u202eelbisiv`,
      systemMessage: `two\nlines\u0007`,
      hookSpecificOutput: { note: `c1\u009b and ${'\u2029'}` },
    }),
  }),
);
afterAll(() => box.remove());

describe('printable, printableLine, printableJson', () => {
  it('escape ESC, BEL, CR, DEL, C1, U+2028/U+2029 and bidi controls; printable keeps newlines and tabs', () => {
    expect(printable(`a${RETITLE}\r\u007f\u0085\u009b\u2028\u2029\u202e\u2066\u200f\n\tb`)).toBe(
      `a${ESCAPED}\\r\\x7f\\x85\\x9b\\u2028\\u2029\\u202e\\u2066\\u200f\n\tb`,
    );
    expect(printableLine(`a\nb\tc\u0000`)).toBe('a\\nb\\tc\\x00');
    expect(printable('plain text, accents é, CJK 漢字, emoji 🙂')).toBe(
      'plain text, accents é, CJK 漢字, emoji 🙂',
    );
  });

  it('printableJson keeps the document the same JSON', () => {
    const value = { text: `x\u009by\u2028z\u202e`, nested: [`\u001b`] };
    const json = printableJson(JSON.stringify(value, null, 2));
    expect(RAW.test(json)).toBe(false);
    expect(JSON.parse(json)).toStrictEqual(value);
  });
});

describe('list and fire show hook text escaped', () => {
  it('fire: the hook name, reason, message and output are escaped; nothing raw reaches stdout', async () => {
    const { code, stdout, stderr } = await cli(['fire', 'PreToolUse', '--tool', 'shell', ...box.flags]);
    expect([code, stderr]).toStrictEqual([0, '']);
    expect(RAW.test(stdout)).toBe(false);
    expect(stdout).toContain(`╭─ guard${ESCAPED} · PreToolUse · block`);
    expect(stdout).toContain(
      `decision BLOCK  denied${ESCAPED}\\r\\x9b31m overwritten\\u2028next\\u202eelbisiv`,
    );
    expect(stdout).toContain('  message  two\nlines\\x07');
    expect(stdout).toContain('  output   {"note":"c1\\u009b and \\u2029"}');
  });

  it('fire --tool with escapes in the tool name and the session: escaped in the headline', async () => {
    const { stdout } = await cli([
      'fire',
      'PreToolUse',
      '--tool',
      `sh${RETITLE}`,
      '--session',
      `s\u202e1`,
      ...box.flags,
    ]);
    expect(RAW.test(stdout)).toBe(false);
    expect(stdout.split('\n')[0]).toBe(`PreToolUse  tool sh${ESCAPED} · session s\\u202e1`);
  });

  it('fire --json: valid JSON with nothing raw', async () => {
    const { code, stdout } = await cli(['fire', 'PreToolUse', '--tool', 'shell', '--json', ...box.flags]);
    expect(code).toBe(0);
    expect(RAW.test(stdout)).toBe(false);
    const parsed = JSON.parse(stdout) as { decision: { reason: string } };
    expect(parsed.decision.reason).toBe(`denied${RETITLE}\r\u009b31m overwritten\u2028next\u202eelbisiv`);
  });

  it('list and list --json: name and matcher escaped, nothing raw', async () => {
    const listed = await cli(['list', ...box.flags]);
    expect(listed.code).toBe(0);
    expect(RAW.test(listed.stdout)).toBe(false);
    expect(listed.stdout).toContain(
      `1  guard${ESCAPED}  config  ^shell$|x\\x1b\\[2J  5000 ms  no           no`,
    );
    const json = await cli(['list', '--json', ...box.flags]);
    expect(RAW.test(json.stdout)).toBe(false);
    const parsed = JSON.parse(json.stdout) as {
      events: { PreToolUse: { name: string; description: string }[] };
    };
    expect(parsed.events.PreToolUse[0]).toMatchObject({
      name: `guard${RETITLE}`,
      description: `describes${RETITLE}`,
    });
  });

  it('validate: a problem quoting a hostile path is escaped', async () => {
    const { code, stdout } = await cli([
      'validate',
      '--config',
      box.path(`missing${RETITLE}.toml`),
      ...box.flags.slice(2),
    ]);
    expect(code).toBe(1);
    expect(RAW.test(stdout)).toBe(false);
    expect(stdout).toBe(`error: ${box.path(`missing${ESCAPED}.toml`)}: file not found\n1 error\n`);
  });
});

describe('diagnostics on stderr quote file names and contents escaped', () => {
  it('fire --event-file: a missing file with escapes in its name, and a file whose text is not JSON', async () => {
    const missing = await cli([
      'fire',
      'PreToolUse',
      '--event-file',
      box.path(`gone${RETITLE}.json`),
      ...box.flags,
    ]);
    expect(missing.code).toBe(1);
    expect(RAW.test(missing.stderr)).toBe(false);
    expect(missing.stderr).toContain(`cannot read ${box.path(`gone${ESCAPED}.json`)}: ENOENT`);
    const garbled = box.write(`event${RETITLE}.json`, `{"tool_name":${RETITLE}\u2028}`);
    const bad = await cli(['fire', 'PreToolUse', '--event-file', garbled, ...box.flags]);
    expect(bad.code).toBe(1);
    expect(RAW.test(bad.stderr)).toBe(false);
    expect(bad.stderr.split('\n')).toHaveLength(2);
    expect(bad.stderr).toMatch(
      /^cosh-hooks: .*event\\x1b\]0;pwned\\x07\.json is not JSON: .*\\x1b\]0;pwned\\x07/,
    );
  });

  it('fire --input that is not JSON, and import of a missing file: escaped, one line', async () => {
    const input = await cli(['fire', 'PreToolUse', '--input', `{"a":${RETITLE}\n`, ...box.flags]);
    expect(input.code).toBe(1);
    expect(RAW.test(input.stderr)).toBe(false);
    expect(input.stderr.split('\n')).toHaveLength(2);
    const imported = await cli(['import', 'claude', box.path(`gone${RETITLE}\nx.json`)]);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe(`cosh-hooks: ${box.path(`gone${ESCAPED}\\nx.json`)}: file not found\n`);
  });
});

describe('import writes TOML with nothing raw', () => {
  it('a command, name and file path with C1, U+2028 and bidi controls: escaped in the TOML, the same strings when read back', async () => {
    const command = `echo \u009b31m\u2028next\u202eelbisiv${RETITLE}`;
    const file = box.write(
      `settings\u2029.json`,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, name: `n\u2028` }] }] },
      }),
    );
    const { code, stdout } = await cli(['import', 'claude', file]);
    expect(code).toBe(0);
    expect(RAW.test(stdout)).toBe(false);
    expect(stdout).toContain('\\u009b31m\\u2028next\\u202e');
    const parsed = parse(stdout) as { imported_hooks: { event: string; name: string; command: string }[] };
    expect(parsed.imported_hooks[0]).toMatchObject({ event: 'PreToolUse', name: `n\u2028`, command });
  });
});
