// What the built command line and library load only when a configuration needs it (re2js for
// matchers, the positional parsers for a problem's line): each lazy path taken, through the build a
// host runs, and the path that does not need them shown not to load them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, jsonl, jsonLines } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cosh-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Preloaded into the command: prints, at exit, the packages it loaded from node_modules. */
const PROBE = join(dir, 'loaded.cjs');
writeFileSync(
  PROBE,
  `process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((path) => path.includes('node_modules'));
  require('node:fs').writeSync(2, 'LOADED ' + JSON.stringify(loaded) + '\\n');
});
`,
);

/** The packages the run loaded, read from the probe's line on stderr. */
const loadedBy = (stderr: string): string[] => {
  const line = stderr.split('\n').find((text) => text.startsWith('LOADED '));
  if (line === undefined) throw new Error(`no probe line in: ${stderr}`);
  return JSON.parse(line.slice('LOADED '.length)) as string[];
};
const loads = (paths: readonly string[], name: string) =>
  paths.some((path) => path.includes(`/node_modules/${name}/`));

const home = join(dir, 'home');
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const flags = (config: string) => ['--config', config, '--home', home, '--workspace', dir];
const env = { NODE_OPTIONS: `--require ${PROBE}`, HOME: home };
const event = (tool: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 'lazy',
  cwd: dir,
  tool_name: tool,
  tool_input: { command: 'ls' },
});

describe('the command line loads re2js and the positional parsers only when a configuration needs them', () => {
  it('an empty configuration loads neither', async () => {
    const run = await cli(['run', ...flags(write('empty.toml', ''))], { input: jsonl(event('shell')), env });
    expect(run.code).toBe(0);
    expect(jsonLines(run.stdout)).toMatchObject([{ type: 'hook_decision', decision: 'none' }]);
    const loaded = loadedBy(run.stderr);
    expect(loads(loaded, 're2js')).toBe(false);
    expect(loads(loaded, 'toml-eslint-parser')).toBe(false);
    expect(loads(loaded, 'jsonc-parser')).toBe(false);
  });

  it('a matcher loads re2js at load time, and matches with it (an alias included)', async () => {
    const config = write(
      'matcher.toml',
      `[[hooks.PreToolUse]]
name = "guard"
matcher = "^run_shell_command$"
command = "cat >/dev/null; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"no\\"}'"
`,
    );
    const run = await cli(['run', ...flags(config)], {
      input: jsonl(event('shell'), event('read_file')),
      env,
    });
    expect(run.code).toBe(0);
    const decisions = jsonLines(run.stdout).filter((line) => line['type'] === 'hook_decision');
    expect(decisions.map((line) => line['decision'])).toEqual(['block', 'none']);
    expect(loads(loadedBy(run.stderr), 're2js')).toBe(true);
  });

  it('an invalid matcher is refused at load time, with its line', async () => {
    const config = write(
      'bad-matcher.toml',
      `[[hooks.PreToolUse]]\nname = "x"\ncommand = "true"\nmatcher = "sh("\n`,
    );
    const run = await cli(['validate', ...flags(config)], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `${config}:4: hooks.PreToolUse[0].matcher: invalid regular expression "sh("`,
    );
  });

  it('a problem in config.toml loads the positional TOML parser to name its line', async () => {
    const config = write('bad.toml', `[[hooks.PreToolUse]]\nname = "x"\ncommand = "true"\ntimeout = "abc"\n`);
    const run = await cli(['validate', ...flags(config)], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${config}:4: hooks.PreToolUse[0].timeout`);
    expect(loads(loadedBy(run.stderr), 'toml-eslint-parser')).toBe(true);
  });

  it('a problem in a JSON settings file loads the JSON scanner to name its line', async () => {
    const settings = write(
      'settings.json',
      JSON.stringify(
        { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 7 }] }] } },
        null,
        2,
      ),
    );
    const run = await cli(['validate', ...flags(write('none.toml', '')), '--claude-settings', settings], {
      env,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`${settings.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `));
    expect(loads(loadedBy(run.stderr), 'jsonc-parser')).toBe(true);
  });
});

describe('the built library', () => {
  const library = (path: string) =>
    pathToFileURL(fileURLToPath(new URL(`../../dist/${path}`, import.meta.url))).href;

  it('matches with a RegExp matcher and runs a command hook through the spawn helper found from its chunks', () => {
    const script = `
import { lastValueFrom, from, toArray } from 'rxjs';
import { defineHooks, hookPipeline, defaultDeps } from ${JSON.stringify(library('src/index.js'))};
import { processExecutor } from ${JSON.stringify(library('src/executors.js'))};
const registry = defineHooks({
  PreToolUse: [{ name: 'guard', matcher: /^shell$/, command: "cat >/dev/null; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"no\\"}'" }],
});
const events = ['shell', 'read_file'].map((tool_name) => ({ hook_event_name: 'PreToolUse', session_id: 's', cwd: process.cwd(), tool_name, tool_input: {} }));
const deps = defaultDeps(processExecutor({ spawnHelper: 'always' }));
const decisions = await lastValueFrom(hookPipeline(registry, deps, { concurrency: 'per-session' })(from(events)).decisions$.pipe(toArray()));
process.stdout.write(JSON.stringify(decisions.map((d) => [d.decision, d.hooks.map((h) => h.outcome)])));
`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual([
      ['block', ['ok']],
      ['none', []],
    ]);
  });
});
