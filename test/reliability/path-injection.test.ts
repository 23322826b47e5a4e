import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHooks } from '../../src/config/index.js';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor, resultOnly } from '../../src/exec/index.js';
import type { CommandHook } from '../../src/registry/hook.js';

/**
 * spec §3: `${extensionPath}` and `${workspacePath}` are data, never shell code. Real folders with
 * hostile names, a real manifest, real sh hooks that write their argv to a file: each hook must
 * get exactly the path as one word, and nothing in a name may run (a canary file must not appear).
 */

const ARGV_HOOK = fileURLToPath(new URL('../fixtures/hooks/argv-to-file.sh', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cosh-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CANARY = 'pwned';

/** Whether the scratch folder itself is pasted as is (spec §3): not when TMPDIR holds a space. */
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

describe('substituted paths are data, never shell code (spec §3)', () => {
  const executor = processExecutor();

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

/**
 * Runs each SessionStart hook once in `cwd`, each writing its argv to its own file, and returns the
 * argv by position (the hooks are in the order of `positions`). Every hook must succeed.
 */
const argvByPosition = async (
  hooks: readonly CommandHook[],
  positions: readonly string[],
  cwd: string,
  prefix: string,
): Promise<Record<string, string[]>> => {
  const decoded = decodeEvent(
    { hook_event_name: 'SessionStart', session_id: 's', cwd },
    { now: () => new Date(0), cwd: () => cwd },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  const out = (position: string) => join(scratch, `${prefix}-${position}`);
  const executor = processExecutor();
  const results = await Promise.all(
    hooks.map((hook, i) =>
      firstValueFrom(
        executor({ ...hook, env: { ...hook.env, ARGV_OUT: out(positions[i] ?? '') } }, decoded.value).pipe(
          resultOnly(),
        ),
      ),
    ),
  );
  expect(results.map((result) => result.outcome)).toStrictEqual(positions.map(() => 'ok'));
  return Object.fromEntries(
    positions.map((position) => [position, readFileSync(out(position), 'utf8').split('\0').slice(0, -1)]),
  );
};

/** A settings file of `dialect` whose SessionStart hooks are `commands`, loaded with `workspace`. */
const loadForeign = (
  dialect: 'claude' | 'gemini',
  file: string,
  commands: Record<string, string>,
  workspace: string,
): CommandHook[] => {
  mkdirSync(join(scratch, 'no-system'), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      hooks: {
        SessionStart: [{ hooks: Object.values(commands).map((command) => ({ type: 'command', command })) }],
      },
    }),
  );
  const loaded = loadHooks({
    home: join(scratch, 'home'),
    systemExtensionsDir: join(scratch, 'no-system'),
    workspace,
    foreignSettings: [{ dialect, file }],
  });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.registry.SessionStart as CommandHook[];
};

/** The same positions with Claude Code's name for the plugin folder, `${CLAUDE_PLUGIN_ROOT}`. */
const PLUGIN_COMMANDS = (hook: string): Record<string, string> => ({
  unquoted: `sh ${hook} \${CLAUDE_PLUGIN_ROOT}/a`,
  double: `sh ${hook} "\${CLAUDE_PLUGIN_ROOT}/a"`,
  single: `sh ${hook} 'x \${CLAUDE_PLUGIN_ROOT} y'`,
  nested: `sh ${hook} "$(printf %s \${CLAUDE_PLUGIN_ROOT})"`,
});

describe('a Claude Code plugin loaded with foreignSettings: ${CLAUDE_PLUGIN_ROOT} is data too', () => {
  it.each(NAMES.map(([what, name], index) => [what, name, index] as const))(
    'a plugin folder name with %s: every hook gets exactly the path as one word, nothing runs',
    async (_what, name, index) => {
      const root = join(scratch, `plugin-${index}`, name);
      const plugin = join(root, 'my-plugin');
      const cwd = join(scratch, `plugin-cwd-${index}`);
      mkdirSync(join(plugin, 'hooks'), { recursive: true });
      mkdirSync(cwd, { recursive: true });
      const commands = PLUGIN_COMMANDS(ARGV_HOOK);
      const hooks = loadForeign('claude', join(plugin, 'hooks', 'hooks.json'), commands, cwd);
      expect(hooks).toHaveLength(4);
      if (name === 'plain-folder' && PLAIN_SCRATCH)
        expect(hooks[0]?.command).toBe(`sh ${ARGV_HOOK} ${plugin}/a`);
      else for (const hook of hooks) expect(hook.command).not.toContain(name);

      expect(await argvByPosition(hooks, Object.keys(commands), cwd, `plugin-argv-${index}`)).toStrictEqual({
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

/**
 * Gemini CLI pastes the shell-quoted project folder over `$GEMINI_PROJECT_DIR` and
 * `$CLAUDE_PROJECT_DIR` before its shell runs the command, and its docs write them unquoted. Here
 * each becomes a quoted expansion of the variable (docs/compat.md): one word of data in any folder.
 */
const GEMINI_COMMANDS = (hook: string): Record<string, string> => ({
  unquoted: `sh ${hook} $GEMINI_PROJECT_DIR/a`,
  double: `sh ${hook} "[$GEMINI_PROJECT_DIR]"`,
  single: `sh ${hook} 'x $GEMINI_PROJECT_DIR y'`,
  claude: `sh ${hook} $CLAUDE_PROJECT_DIR`,
  braces: `sh ${hook} "\${GEMINI_PROJECT_DIR}"`,
  longer: `sh ${hook} x$GEMINI_PROJECT_DIRS`,
  escaped: `sh ${hook} \\$GEMINI_PROJECT_DIR`,
});

describe('a Gemini CLI settings file: $GEMINI_PROJECT_DIR unquoted is one word of data', () => {
  it.each(NAMES.map(([what, name], index) => [what, name, index] as const))(
    'a project folder name with %s: every hook gets exactly the path as one word, nothing runs',
    async (_what, name, index) => {
      const project = join(scratch, `gemini-${index}`, name);
      mkdirSync(join(project, '.gemini'), { recursive: true });
      const commands = GEMINI_COMMANDS(ARGV_HOOK);
      const hooks = loadForeign('gemini', join(project, '.gemini', 'settings.json'), commands, project);
      expect(hooks).toHaveLength(7);
      for (const hook of hooks) expect(hook.command).not.toContain(name);

      expect(
        await argvByPosition(hooks, Object.keys(commands), project, `gemini-argv-${index}`),
      ).toStrictEqual({
        unquoted: [`${project}/a`],
        double: [`[${project}]`],
        single: [`x ${project} y`],
        claude: [project],
        braces: [project],
        longer: ['x'],
        escaped: ['$GEMINI_PROJECT_DIR'],
      });
      for (const where of [scratch, project, process.cwd()]) {
        expect(existsSync(join(where, CANARY))).toBe(false);
      }
    },
  );
});
