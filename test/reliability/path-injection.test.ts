import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHooks } from '../../src/config/index.js';
import { decodeEvent } from '../../src/events/decode.js';
import { execaExecutor, resultOnly } from '../../src/exec/index.js';
import type { CommandHook } from '../../src/registry/hook.js';

/**
 * SPEC §3: `${extensionPath}` and `${workspacePath}` are data, never shell code. Real folders with
 * hostile names, a real manifest, real sh hooks that write their argv to a file: each hook must
 * get exactly the path as one word, and nothing in a name may run (a canary file must not appear).
 */

const ARGV_HOOK = fileURLToPath(new URL('../fixtures/hooks/argv-to-file.sh', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cosh-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CANARY = 'pwned';

/** Whether the scratch folder itself is pasted as is (SPEC §3): not when TMPDIR holds a space. */
const PLAIN_SCRATCH = /^[A-Za-z0-9_./,:@%+=-]+$/.test(scratch);

/** Folder names an attacker might choose for an extension install folder or a workspace. */
const NAMES: readonly [string, string][] = [
  ['a space', 'with space'],
  ['a double quote', 'dq"quote'],
  ['a single quote', "sq'quote"],
  ['$( )', `$(touch ${CANARY})`],
  ['backquotes', `\`touch ${CANARY}\``],
  ['semicolons', `;touch ${CANARY};`],
  ['a newline', 'new\nline'],
  ['everything at once', `a b'c"d$(touch ${CANARY})\`touch ${CANARY}\`;touch ${CANARY}\n$HOME \\ *`],
  ['nothing special (pasted as is)', 'plain-folder'],
];

/** Hook commands with the placeholders unquoted, in double quotes, in single quotes, nested. */
const COMMANDS = (hook: string): Record<string, string> => ({
  unquoted: `sh ${hook} \${extensionPath}/a \${workspacePath}`,
  double: `sh ${hook} "\${extensionPath}/a" "[\${workspacePath}]"`,
  single: `sh ${hook} '\${extensionPath}/a' 'x \${workspacePath} y'`,
  nested: `sh ${hook} "$(printf %s "\${extensionPath}")" "$(printf %s \${workspacePath})"`,
  comment: `sh ${hook} \${extensionPath} # it's a comment`,
});

const expectedArgv = (ext: string, ws: string): Record<string, string[]> => ({
  unquoted: [`${ext}/a`, ws],
  double: [`${ext}/a`, `[${ws}]`],
  single: [`${ext}/a`, `x ${ws} y`],
  nested: [ext, ws],
  comment: [ext],
});

describe('substituted paths are data, never shell code (SPEC §3)', () => {
  const executor = execaExecutor();

  it.each(NAMES.map(([what, name], index) => [what, name, index] as const))(
    'a folder name with %s: every hook gets exactly the path as one word, nothing runs',
    async (_what, name, index) => {
      mkdirSync(join(scratch, 'no-system'), { recursive: true });
      const root = join(scratch, String(index), name);
      const extensionPath = join(root, 'extensions', 'x');
      const workspace = join(root, 'workspace');
      const cwd = join(scratch, `cwd-${index}`);
      mkdirSync(extensionPath, { recursive: true });
      mkdirSync(workspace, { recursive: true });
      mkdirSync(cwd, { recursive: true });
      const commands = COMMANDS(ARGV_HOOK);
      const out = (position: string) => join(scratch, `argv-${index}-${position}`);
      writeFileSync(
        join(extensionPath, 'cosh-extension.json'),
        JSON.stringify({
          name: 'x',
          hooks: {
            SessionStart: [
              {
                hooks: Object.entries(commands).map(([position, command]) => ({
                  type: 'command',
                  name: position,
                  command,
                  env: { ARGV_OUT: out(position) },
                })),
              },
            ],
          },
        }),
      );
      const loaded = loadHooks({
        home: join(scratch, 'home'),
        extensionsDirs: [join(root, 'extensions')],
        systemExtensionsDir: join(scratch, 'no-system'),
        workspace,
      });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      expect(loaded.warnings).toStrictEqual([]);
      const hooks = loaded.registry.SessionStart as CommandHook[];
      expect(hooks.map((hook) => hook.name)).toStrictEqual(Object.keys(commands));
      if (name === 'plain-folder' && PLAIN_SCRATCH) {
        // Nothing to protect: the path is pasted, so the command still runs without sh.
        expect(hooks[0]?.command).toBe(`sh ${ARGV_HOOK} ${extensionPath}/a ${workspace}`);
      } else {
        for (const hook of hooks) expect(hook.command).not.toContain(name);
      }

      const decoded = decodeEvent(
        { hook_event_name: 'SessionStart', session_id: 's', cwd },
        { now: () => new Date(0), cwd: () => cwd },
      );
      if (!decoded.ok) throw new Error(decoded.error);
      const results = await Promise.all(
        hooks.map((hook) => firstValueFrom(executor(hook, decoded.value).pipe(resultOnly()))),
      );
      expect(results).toStrictEqual(hooks.map(() => ({ outcome: 'ok', output: { decision: 'none' } })));

      const expected = expectedArgv(extensionPath, workspace);
      for (const position of Object.keys(commands)) {
        const argv = readFileSync(out(position), 'utf8').split('\0').slice(0, -1);
        expect({ position, argv }).toStrictEqual({ position, argv: expected[position] });
      }
      for (const where of [cwd, root, workspace, extensionPath, process.cwd()]) {
        expect(existsSync(join(where, CANARY))).toBe(false);
      }
    },
  );
});

/** The same positions with Claude Code's name for the plugin folder, `${CLAUDE_PLUGIN_ROOT}`. */
const PLUGIN_COMMANDS = (hook: string): Record<string, string> => ({
  unquoted: `sh ${hook} \${CLAUDE_PLUGIN_ROOT}/a`,
  double: `sh ${hook} "\${CLAUDE_PLUGIN_ROOT}/a"`,
  single: `sh ${hook} 'x \${CLAUDE_PLUGIN_ROOT} y'`,
  nested: `sh ${hook} "$(printf %s \${CLAUDE_PLUGIN_ROOT})"`,
});

describe('a Claude Code plugin loaded with foreignSettings: ${CLAUDE_PLUGIN_ROOT} is data too', () => {
  const executor = execaExecutor();

  it.each(NAMES.map(([what, name], index) => [what, name, index] as const))(
    'a plugin folder name with %s: every hook gets exactly the path as one word, nothing runs',
    async (_what, name, index) => {
      mkdirSync(join(scratch, 'no-system'), { recursive: true });
      const root = join(scratch, `plugin-${index}`, name);
      const plugin = join(root, 'my-plugin');
      const cwd = join(scratch, `plugin-cwd-${index}`);
      mkdirSync(join(plugin, 'hooks'), { recursive: true });
      mkdirSync(cwd, { recursive: true });
      const commands = PLUGIN_COMMANDS(ARGV_HOOK);
      writeFileSync(
        join(plugin, 'hooks', 'hooks.json'),
        JSON.stringify({
          hooks: {
            SessionStart: [
              { hooks: Object.values(commands).map((command) => ({ type: 'command', command })) },
            ],
          },
        }),
      );
      const loaded = loadHooks({
        home: join(scratch, 'home'),
        systemExtensionsDir: join(scratch, 'no-system'),
        workspace: cwd,
        foreignSettings: [{ dialect: 'claude', file: join(plugin, 'hooks', 'hooks.json') }],
      });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      const hooks = loaded.registry.SessionStart as CommandHook[];
      expect(hooks).toHaveLength(4);
      if (name === 'plain-folder' && PLAIN_SCRATCH)
        expect(hooks[0]?.command).toBe(`sh ${ARGV_HOOK} ${plugin}/a`);
      else for (const hook of hooks) expect(hook.command).not.toContain(name);

      const decoded = decodeEvent(
        { hook_event_name: 'SessionStart', session_id: 's', cwd },
        { now: () => new Date(0), cwd: () => cwd },
      );
      if (!decoded.ok) throw new Error(decoded.error);
      const positions = Object.keys(commands);
      const out = (position: string) => join(scratch, `plugin-argv-${index}-${position}`);
      const results = await Promise.all(
        hooks.map((hook, i) =>
          firstValueFrom(
            executor(
              { ...hook, env: { ...hook.env, ARGV_OUT: out(positions[i] ?? '') } },
              decoded.value,
            ).pipe(resultOnly()),
          ),
        ),
      );
      expect(results.map((result) => result.outcome)).toStrictEqual(['ok', 'ok', 'ok', 'ok']);
      const argv = Object.fromEntries(
        positions.map((position) => [position, readFileSync(out(position), 'utf8').split('\0').slice(0, -1)]),
      );
      expect(argv).toStrictEqual({
        unquoted: [`${plugin}/a`],
        double: [`${plugin}/a`],
        single: [`x ${plugin} y`],
        nested: [plugin],
      });
      for (const where of [cwd, root, plugin, process.cwd()]) {
        expect(existsSync(join(where, CANARY))).toBe(false);
      }
    },
  );
});

describe("a Claude Code plugin's or Gemini CLI extension's hooks/hooks.json: its folder is data too", () => {
  const executor = execaExecutor();

  it.each(
    NAMES.flatMap(([what, name], index) =>
      (['claude', 'gemini'] as const).map((dialect) => [dialect, what, name, index] as const),
    ),
  )(
    '%s, a folder name with %s: every hook gets exactly the path as one word, nothing runs',
    async (dialect, _what, name, index) => {
      mkdirSync(join(scratch, 'no-system'), { recursive: true });
      const root = join(scratch, `${dialect}-${index}`, name);
      const plugin = join(root, 'plugin');
      const workspace = join(root, 'workspace');
      const cwd = join(scratch, `${dialect}-cwd-${index}`);
      mkdirSync(join(plugin, 'hooks'), { recursive: true });
      mkdirSync(workspace, { recursive: true });
      mkdirSync(cwd, { recursive: true });
      const out = (position: string) => join(scratch, `${dialect}-argv-${index}-${position}`);
      const commands = Object.fromEntries(
        Object.entries(COMMANDS(ARGV_HOOK)).map(([position, command]) => [
          position,
          `ARGV_OUT=${out(position)} ${dialect === 'claude' ? command.replaceAll('${extensionPath}', '${CLAUDE_PLUGIN_ROOT}') : command}`,
        ]),
      );
      const file = join(plugin, 'hooks', 'hooks.json');
      writeFileSync(
        file,
        JSON.stringify({
          hooks: {
            SessionStart: [
              {
                hooks: Object.entries(commands).map(([position, command]) => ({
                  type: 'command',
                  name: position,
                  command,
                })),
              },
            ],
          },
        }),
      );
      const loaded = loadHooks({
        home: join(scratch, 'home'),
        extensionsDirs: [],
        systemExtensionsDir: join(scratch, 'no-system'),
        workspace,
        foreignSettings: [{ dialect, file }],
      });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      const hooks = loaded.registry.SessionStart as CommandHook[];
      expect(hooks.map((hook) => hook.name)).toStrictEqual(Object.keys(commands));
      if (name !== 'plain-folder') for (const hook of hooks) expect(hook.command).not.toContain(name);

      const decoded = decodeEvent(
        { hook_event_name: 'SessionStart', session_id: 's', cwd },
        { now: () => new Date(0), cwd: () => cwd },
      );
      if (!decoded.ok) throw new Error(decoded.error);
      const results = await Promise.all(
        hooks.map((hook) => firstValueFrom(executor(hook, decoded.value).pipe(resultOnly()))),
      );
      expect(results.map((result) => result.outcome)).toStrictEqual(hooks.map(() => 'ok'));
      const expected = expectedArgv(plugin, workspace);
      for (const position of Object.keys(commands)) {
        const argv = readFileSync(out(position), 'utf8').split('\0').slice(0, -1);
        expect({ position, argv }).toStrictEqual({ position, argv: expected[position] });
      }
      for (const where of [cwd, root, workspace, plugin, process.cwd()]) {
        expect(existsSync(join(where, CANARY))).toBe(false);
      }
    },
  );
});
