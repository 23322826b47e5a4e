import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { configSchema, configSchemaText } from '../../../src/config/schema.js';
import { starterFiles } from '../../../src/config/starter.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const validate = new Ajv({ allErrors: true }).compile(configSchema());
/** The schema's verdict on a TOML text: its problems as `path: message`, none when it passes. */
const schemaProblems = (text: string): string[] =>
  validate(parse(text))
    ? []
    : (validate.errors ?? []).map((error) => `${error.dataPath}: ${error.message ?? ''}`);

const starters = {
  user: starterFiles({ schemaUrl: 'file:///opt/cosh-hooks/config.schema.json', logFile: '/tmp/log' }).config,
  project: starterFiles({ logFile: '/w/.copilot-shell/hook-events.jsonl', project: true }).config,
};

describe("config.schema.json: the JSON Schema of config.toml, from the loader's codecs", () => {
  it('the committed file is the generated one (regenerate with `npm run schema`)', () => {
    expect(read('config.schema.json')).toBe(configSchemaText());
  });

  it.each([
    ['examples/config.toml', read('examples/config.toml')],
    ['the user starter', starters.user],
    ['the project starter', starters.project],
  ])('%s passes the schema and the loader', (_, text) => {
    expect(schemaProblems(text)).toEqual([]);
    expect(decodeConfigText(text, 'config.toml').errors).toEqual([]);
  });

  it('what the loader refuses by shape, the schema refuses too', () => {
    const hook = ['[[hooks.PreToolUse]]', 'name = "a"', 'command = "true"'];
    expect(schemaProblems([...hook, 'timeout = "5s"'].join('\n'))).toEqual([
      '.hooks.PreToolUse[0].timeout: should be integer',
    ]);
    expect(schemaProblems([...hook, 'failClosed = true'].join('\n'))).toEqual([
      '.hooks.PreToolUse[0]: should NOT have additional properties',
    ]);
    expect(schemaProblems('[[hooks.PreToolUze]]\ncommand = "true"')).toEqual([
      '.hooks: should NOT have additional properties',
    ]);
    expect(schemaProblems('[[hooks.any]]\nevents = ["Stop", "Nope"]\ncommand = "true"')).toContain(
      '.hooks.any[0].events[1]: should be equal to one of the allowed values',
    );
    // A hook table needs `command` or rules.
    expect(schemaProblems('[[hooks.Stop]]\nname = "a"')).toEqual([
      ".hooks.Stop[0]: should have required property 'command'",
      ".hooks.Stop[0]: should have required property 'deny'",
      ".hooks.Stop[0]: should have required property 'ask'",
      ".hooks.Stop[0]: should have required property 'allow'",
      '.hooks.Stop[0]: should match some schema in anyOf',
    ]);
    expect(schemaProblems('[[hooks.PreToolUse]]\nname = "a"\ndeny = ["Bash(rm:*)"]')).toEqual([]);
  });

  it('the user starter names the schema on its first line, the way Taplo and Even Better TOML read it', () => {
    expect(starters.user.split('\n')[0]).toBe('#:schema file:///opt/cosh-hooks/config.schema.json');
  });
});
