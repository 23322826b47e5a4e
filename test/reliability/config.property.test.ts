import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHooks, type ConfigProblem, type LoadResult } from '../../src/config/index.js';
import { EVENT_NAMES } from '../../src/events/names.js';

/**
 * Configuration files are edited by hand and by tools: whatever their text, loading them gives an
 * ok result or a list of problems, each naming its file and saying what is wrong (with the line or
 * the key path where there is one), and never throws.
 */

const root = mkdtempSync(join(tmpdir(), 'cosh-config-fuzz-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const home = join(root, 'home');
const configPath = join(root, 'config.toml');
const extensionsDir = join(root, 'extensions');
const noSystemExtensions = join(root, 'system-extensions');
const stateDir = join(root, 'states');
const mutatedManifest = join(extensionsDir, 'b-mutated', 'cosh-extension.json');
const hooksState = join(stateDir, 'hooks.json');
mkdirSync(home, { recursive: true });
mkdirSync(join(extensionsDir, 'b-mutated'), { recursive: true });
mkdirSync(join(extensionsDir, 'a-tokenless'), { recursive: true });
mkdirSync(stateDir, { recursive: true });
mkdirSync(noSystemExtensions, { recursive: true });

const FIXTURES = fileURLToPath(new URL('../fixtures/config/extensions/', import.meta.url));
const AGENT_SEC = readFileSync(join(FIXTURES, 'agent-sec-core', 'cosh-extension.json'), 'utf8');
writeFileSync(
  join(extensionsDir, 'a-tokenless', 'cosh-extension.json'),
  readFileSync(join(FIXTURES, 'tokenless', 'cosh-extension.json'), 'utf8'),
);

/** A valid config that uses every form the docs show. */
const VALID_CONFIG = `# shell settings the hook engine ignores
[ui]
theme = "dark"

[hooks]
enabled = true

[[hooks.PreToolUse]]
name = "security-check"
command = "/usr/local/bin/my-security-hook --strict"
timeout = 5000
matcher = "^(shell|run_shell_command)$"
fail_closed = true
env = { TEAM = "platform", LOG_LEVEL = "info" }
description = "Blocks destructive shell commands"

[[hooks.PreToolUse]]
name = "audit"
command = "logger -t cosh-audit"

[[hooks.PostToolUse]]
name = "audit"
command = "audit-hook"
[hooks.PostToolUse.env]
AUDIT_DIR = "/var/log/cosh"

[[hooks.SessionStart]]
name = "context-loader"
command = "/usr/local/bin/load-context"
timeout = 3000

[model]
name = "x"
`;

/** The file a load reads last wins; the state file is rewritten or removed per case. */
const setHooksState = (text: string | undefined) => {
  if (text === undefined) rmSync(hooksState, { force: true });
  else writeFileSync(hooksState, text);
};

const lineCount = (file: string): number => readFileSync(file, 'utf8').split('\n').length;

/** What every problem must carry, whatever the input. */
const checkProblem = (problem: ConfigProblem, files: readonly string[]) => {
  expect(files).toContain(problem.file);
  expect(typeof problem.message).toBe('string');
  expect(problem.message.trim()).not.toBe('');
  if (problem.path !== undefined) expect(typeof problem.path).toBe('string');
  if (problem.line !== undefined) {
    expect(Number.isInteger(problem.line)).toBe(true);
    expect(problem.line).toBeGreaterThanOrEqual(1);
    expect(problem.line).toBeLessThanOrEqual(lineCount(problem.file));
  }
  // Anything found by the codecs is located by its key path, and the path by its line.
  if (problem.path !== undefined && problem.path !== '') expect(problem.line).toBeDefined();
};

/** An ok result holds only hooks the engine can run. */
const checkRegistry = (result: Extract<LoadResult, { ok: true }>) => {
  for (const event of EVENT_NAMES) {
    for (const hook of result.registry[event]) {
      // A table without a name is kept, never run, so that `list` shows it (the seed's rule 5).
      if (hook.kind === 'command' && hook.skipped !== undefined) {
        expect(hook.enabled).toBe(false);
        continue;
      }
      expect(hook.name.trim()).not.toBe('');
      expect(hook.kind).toBe('command');
      if (hook.kind !== 'command') continue;
      expect(hook.command.trim()).not.toBe('');
      expect(Number.isInteger(hook.timeoutMs) && hook.timeoutMs >= 1 && hook.timeoutMs <= 600_000).toBe(true);
      expect(Object.values(hook.env).every((value) => typeof value === 'string')).toBe(true);
      if (hook.matcher !== undefined) expect(typeof hook.matcher.matches(hook.name)).toBe('boolean');
    }
  }
};

/** Loads, turning a throw into a test failure that shows the input. */
const load = (options: Parameters<typeof loadHooks>[0]): LoadResult => {
  try {
    const result = loadHooks(options);
    // The documented examples name programs that are not installed here, and the load-time check
    // of commands (test/unit/config/checks.test.ts) reports each; this file is about decoding.
    const installed = result.warnings.filter(
      (problem) => !(problem.hook !== undefined && problem.message.startsWith('command cannot start')),
    );
    return { ...result, warnings: installed };
  } catch (error) {
    throw new Error(`loadHooks threw: ${error instanceof Error ? error.stack : String(error)}`, {
      cause: error,
    });
  }
};

// ----- text mutations, shared by TOML and JSON

const KEYS = [
  'name',
  'command',
  'timeout',
  'matcher',
  'fail_closed',
  'failClosed',
  'env',
  'description',
  'enabled',
  'hooks',
  'type',
  'sequential',
  ...EVENT_NAMES,
];

const key = fc.oneof(
  fc.constantFrom(...KEYS),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/),
  fc.string({ maxLength: 12 }),
);

/** Characters that mean something to TOML or JSON, plus a few that mean trouble elsewhere. */
const SPECIAL = [
  '[',
  ']',
  '{',
  '}',
  '=',
  ':',
  '"',
  "'",
  '.',
  ',',
  '#',
  '\\',
  '\n',
  '\t',
  '\0',
  '\uFEFF',
  'é',
  '😀',
];
const garbage = fc.string({
  unit: fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ minLength: 1, maxLength: 1 })),
  maxLength: 8,
});

/** Text that may or may not be a TOML or JSON value. */
const scalar = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    'true',
    'false',
    'null',
    'nan',
    '-inf',
    '1979-05-27T07:32:00Z',
    '07:32:00',
    '0x1F',
    '1_000',
    '5000.0',
    '0',
    '600001',
    '1.5',
    '""',
    '"*"',
    '"("',
    '"[a-"',
    '"   "',
    '"""\nmulti\n"""',
    "'literal'",
    '[]',
    '{}',
  ),
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
  garbage,
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(key, scalar), { maxLength: 3 })
      .map((pairs) => `{ ${pairs.map(([k, v]) => `${k} = ${v}`).join(', ')} }`),
  },
);

type Mutation =
  | { readonly kind: 'delete' | 'duplicate'; readonly at: number }
  | { readonly kind: 'swap'; readonly at: number; readonly other: number }
  | { readonly kind: 'garble'; readonly at: number; readonly column: number; readonly text: string }
  | { readonly kind: 'truncate'; readonly at: number; readonly column: number }
  | { readonly kind: 'value'; readonly at: number; readonly text: string }
  | { readonly kind: 'insert'; readonly at: number; readonly text: string };

const index = fc.nat({ max: 1000 });

/** Edits of a document's lines; `insertion` is what a new line may be in this format. */
const mutations = (insertion: fc.Arbitrary<string>): fc.Arbitrary<Mutation[]> =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), at: index }),
      fc.record({ kind: fc.constant('swap' as const), at: index, other: index }),
      fc.record({ kind: fc.constant('garble' as const), at: index, column: index, text: garbage }),
      fc.record({ kind: fc.constant('truncate' as const), at: index, column: index }),
      fc.record({ kind: fc.constant('value' as const), at: index, text: value }),
      fc.record({ kind: fc.constant('insert' as const), at: index, text: insertion }),
    ),
    { minLength: 1, maxLength: 5 },
  );

/** Applies the edits; `separator` is what sits between a key and its value (`=` or `:`). */
const mutate = (text: string, edits: readonly Mutation[], separator: string): string => {
  const lines = text.split('\n');
  for (const edit of edits) {
    const at = edit.at % (lines.length + 1);
    const line = lines[at] ?? '';
    switch (edit.kind) {
      case 'delete':
        lines.splice(at, 1);
        break;
      case 'duplicate':
        lines.splice(at, 0, line);
        break;
      case 'swap': {
        const other = edit.other % (lines.length || 1);
        lines[at] = lines[other] ?? '';
        lines[other] = line;
        break;
      }
      case 'garble': {
        const column = edit.column % (line.length + 1);
        lines[at] = line.slice(0, column) + edit.text + line.slice(column);
        break;
      }
      case 'truncate':
        lines[at] = line.slice(0, edit.column % (line.length + 1));
        break;
      case 'value': {
        // Replaces what follows the first separator, keeping a trailing comma (JSON) in place.
        const split = line.indexOf(separator);
        if (split >= 0) {
          const comma = separator === ':' && line.trimEnd().endsWith(',') ? ',' : '';
          lines[at] = `${line.slice(0, split + 1)} ${edit.text}${comma}`;
        }
        break;
      }
      case 'insert':
        lines.splice(at, 0, edit.text);
        break;
    }
  }
  return lines.join('\n');
};

const tomlLine = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${k} = ${v}`),
  fc
    .tuple(
      fc.constantFrom('[', '[['),
      fc.constantFrom('hooks', 'hooks.', 'ui'),
      fc.oneof(fc.constantFrom(...EVENT_NAMES), key),
    )
    .map(
      ([open, prefix, name]) =>
        `${open}${prefix}${prefix.endsWith('.') ? '' : '.'}${name}${open === '[' ? ']' : ']]'}`,
    ),
  fc.constantFrom(
    '[hooks]',
    '[[hooks.PreToolUse]]',
    '[hooks.PreToolUse.env]',
    '[[hooks.Stop]]',
    '[hooks.Stop]',
    'hooks = 3',
    'enabled = false',
    '# comment',
    '',
  ),
  fc.nat({ max: 3000 }).map((depth) => `deep = ${'['.repeat(depth)}${']'.repeat(depth)}`),
);

const jsonLine = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${JSON.stringify(k)}: ${v},`),
  fc.constantFrom('{', '}', '[', ']', '},', '],', '"hooks": {', '"PreToolUse": [', '{ "hooks": [', ''),
  fc.nat({ max: 30_000 }).map((depth) => `"deep": ${'['.repeat(depth)}${']'.repeat(depth)},`),
);

/** Structural edits of the parsed manifest: a random member replaced, removed or added. */
type Edit = {
  readonly picks: readonly number[];
  readonly action: 'set' | 'delete' | 'add';
  readonly value: unknown;
  readonly key: string;
};

const structuralEdits = fc.array(
  fc.record({
    picks: fc.array(fc.nat(), { maxLength: 7 }),
    action: fc.constantFrom('set' as const, 'delete' as const, 'add' as const),
    value: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom('', '*', '(', 5000, 0, -1, 1.5, true, null),
    ),
    key: key,
  }),
  { minLength: 1, maxLength: 4 },
);

const applyEdit = (document: unknown, edit: Edit): unknown => {
  const root: { value: unknown } = { value: document };
  let parent: Record<string, unknown> | unknown[] = root as unknown as Record<string, unknown>;
  let member: string | number = 'value';
  for (const pick of edit.picks) {
    const current: unknown = (parent as Record<string | number, unknown>)[member];
    if (typeof current !== 'object' || current === null) break;
    const keys: (string | number)[] = Array.isArray(current)
      ? current.map((_, i) => i)
      : Object.keys(current);
    if (keys.length === 0) break;
    parent = current as Record<string, unknown>;
    member = keys[pick % keys.length] as string | number;
  }
  const target = parent as Record<string | number, unknown>;
  if (edit.action === 'set') target[member] = edit.value;
  else if (edit.action === 'delete') {
    if (Array.isArray(parent)) parent.splice(member as number, 1);
    else delete target[member];
  } else {
    const holder = target[member];
    if (typeof holder === 'object' && holder !== null && !Array.isArray(holder)) {
      (holder as Record<string, unknown>)[edit.key] = edit.value;
    } else if (Array.isArray(holder)) holder.push(edit.value);
  }
  return root.value;
};

describe('config.toml under mutation', () => {
  it('the unmutated config loads (the base of the mutations is valid)', () => {
    writeFileSync(configPath, VALID_CONFIG);
    const result = load({
      configPath,
      home,
      extensionsDirs: [],
      systemExtensionsDir: noSystemExtensions,
      stateDir,
    });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    expect(result.ok && result.registry.PreToolUse.map((hook) => hook.name)).toStrictEqual([
      'security-check',
      'audit',
    ]);
  });

  it('random edits give an ok result or problems with file, message and location; never a throw (600 cases)', () => {
    setHooksState(undefined);
    fc.assert(
      fc.property(mutations(tomlLine), (edits) => {
        writeFileSync(configPath, mutate(VALID_CONFIG, edits, '='));
        const result = load({
          configPath,
          home,
          extensionsDirs: [],
          systemExtensionsDir: noSystemExtensions,
          stateDir,
        });
        for (const warning of result.warnings) checkProblem(warning, [configPath]);
        if (result.ok) checkRegistry(result);
        else {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const error of result.errors) {
            checkProblem(error, [configPath]);
            expect(error.line !== undefined || error.path !== undefined).toBe(true);
          }
        }
      }),
      { numRuns: 600 },
    );
  });
});

describe('cosh-extension.json and state files under mutation', () => {
  const options = {
    home,
    extensionsDirs: [extensionsDir],
    systemExtensionsDir: noSystemExtensions,
    stateDir,
    workspace: root,
  };
  const files = [mutatedManifest, hooksState, join(stateDir, 'extensions.json')];

  /** A broken manifest costs only its own extension; the result is always ok. */
  const checkManifestLoad = (result: LoadResult) => {
    if (!result.ok) throw new Error(`config problems: ${JSON.stringify(result.errors)}`);
    for (const warning of result.warnings) checkProblem(warning, files);
    checkRegistry(result);
    // The sibling extension is untouched by its neighbour's trouble.
    expect(result.sources.extensions.map((extension) => extension.name)).toContain('tokenless');
    const mutatedLoaded = result.sources.extensions.some((extension) => extension.path.endsWith('b-mutated'));
    if (!mutatedLoaded) {
      // Either its name collides with tokenless, or a warning says why it was not loaded.
      const why = result.warnings.filter((warning) => warning.file === mutatedManifest);
      expect(why.some((warning) => /not loaded/.test(warning.message))).toBe(true);
    }
  };

  it('the unmutated manifest loads next to its sibling', () => {
    writeFileSync(mutatedManifest, AGENT_SEC);
    setHooksState(undefined);
    const result = load(options);
    expect(result).toMatchObject({ ok: true, warnings: [] });
    expect(result.ok && result.sources.extensions.map((extension) => extension.name)).toStrictEqual([
      'agent-sec-core',
      'tokenless',
    ]);
  });

  it('a manifest and a state file nested 100,000 levels deep, each with a problem: warnings, no throw', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    writeFileSync(mutatedManifest, `{"name": "deep", "x": ${deep}, "hooks": {"PreToolUse": 3}}`);
    setHooksState(`{"x": ${deep}, "disabled": 3}`);
    const result = load(options);
    expect(result.warnings.map(({ file, line, path }) => ({ file, line, path }))).toStrictEqual([
      { file: hooksState, line: 1, path: 'disabled' },
      { file: mutatedManifest, line: undefined, path: undefined },
      { file: mutatedManifest, line: 1, path: 'hooks.PreToolUse' },
    ]);
    checkManifestLoad(result);
  });

  it('random line edits of the manifest (500 cases)', () => {
    setHooksState(undefined);
    fc.assert(
      fc.property(mutations(jsonLine), (edits) => {
        writeFileSync(mutatedManifest, mutate(AGENT_SEC, edits, ':'));
        checkManifestLoad(load(options));
      }),
      { numRuns: 500 },
    );
  });

  it('random structural edits of the manifest, and random state files (500 cases)', () => {
    const base: unknown = JSON.parse(AGENT_SEC);
    fc.assert(
      fc.property(
        structuralEdits,
        fc.constantFrom(0, 2),
        fc.option(
          fc.oneof(
            fc.jsonValue().map((state) => JSON.stringify(state)),
            fc
              .array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 })
              .map((disabled) => JSON.stringify({ disabled })),
            garbage,
          ),
          { nil: undefined },
        ),
        (edits, indent, state) => {
          const document = edits.reduce(applyEdit, structuredClone(base));
          writeFileSync(mutatedManifest, JSON.stringify(document, null, indent) ?? 'undefined');
          setHooksState(state);
          checkManifestLoad(load(options));
        },
      ),
      { numRuns: 500 },
    );
  });
});
