// docs/recipes.md, the credential guard: shown verbatim from examples/hooks/, and run as a user
// runs it, through the built `cosh-hooks run` with the config table of the page.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, jsonl, jsonLines, sandbox } from '../cli/helpers.js';

const file = fileURLToPath(new URL('../../examples/hooks/credential-guard.mjs', import.meta.url));
const recipes = readFileSync(fileURLToPath(new URL('../../docs/recipes.md', import.meta.url)), 'utf8');

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const table = (extra = '') =>
  ['[[hooks.UserPromptSubmit]]', 'name = "credential-guard"', `command = "node ${file}"`, extra, ''].join(
    '\n',
  );
const box = sandbox(table());
const copy = sandbox(table('redact = true'));
afterAll(() => {
  box.remove();
  copy.remove();
});

const prompt = (text: string) => ({ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: text });

describe('docs/recipes.md: the credential guard', () => {
  it('is shown verbatim', () => {
    expect(recipes).toContain(readFileSync(file, 'utf8'));
    expect(recipes).toContain(
      `name = "credential-guard"\ncommand = "node /path/to/examples/hooks/credential-guard.mjs"`,
    );
  });

  it('holds back a prompt with a token, lets a plain one through; the token never leaves the engine', async () => {
    const result = await cli(['run', ...box.flags], {
      input: jsonl(
        prompt(`deploy with ${TOKEN} please`),
        prompt('deploy please'),
        prompt('key AKIA1234567890ABCDEF'),
      ),
    });
    expect(result.code).toBe(0);
    const decisions = jsonLines(result.stdout).filter((line) => line['type'] === 'hook_decision');
    expect(decisions.map((line) => [line['decision'], line['reason'] ?? null])).toEqual([
      ['block', 'The prompt contains what looks like a credential'],
      ['none', null],
      ['block', 'The prompt contains what looks like a credential'],
    ]);
    expect(result.stdout).not.toContain(TOKEN);
    expect(result.stdout).not.toContain('AKIA1234567890ABCDEF');
  });

  it('with redact = true it sees <redacted> and never fires: why the page says to leave it unset', async () => {
    const result = await cli(['run', ...copy.flags], { input: jsonl(prompt(`deploy with ${TOKEN} please`)) });
    expect(jsonLines(result.stdout).map((line) => line['decision'])).toEqual(['none']);
  });
});
