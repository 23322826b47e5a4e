import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The house rules of docs/architecture.md that a reader relies on, checked on the code as it is:
 * a rule that drifts fails here with the file that broke it.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every `.ts` file below `dir` (relative to the repository), sorted. */
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
    .sort();

/** The code of a file without its comments (good enough for the patterns below: no regex literals hold them). */
const code = (path: string) =>
  read(path)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const PRODUCT = [...sources('src'), ...sources('operators')];
/**
 * The hot paths written by hand (`new Observable`, subscribing) instead of composed, each because a
 * bench row measured the composed form too slow; docs/performance.md names each with its figure.
 */
const HAND_WRITTEN = [
  'operators/concatMapInline.ts',
  'operators/runObservers.ts',
  'src/audit/event-audit.ts',
];
const OPERATORS = sources('operators')
  .map((path) => path.slice('operators/'.length, -'.ts'.length))
  .filter((name) => name !== 'index');

describe('house rules', () => {
  it('text becomes JSON in one place: parseJson (src/events/untrusted.ts)', () => {
    const parsing = PRODUCT.filter((path) => path !== 'src/events/untrusted.ts').filter((path) =>
      /JSON\.parse\(/.test(code(path)),
    );
    expect(parsing).toStrictEqual([]);
  });

  it('new Observable is written only in the executor adapters (src/exec) and the hand-written hot paths; everything else composes', () => {
    const written = PRODUCT.filter((path) => !path.startsWith('src/exec/')).filter((path) =>
      /new Observable\b/.test(code(path)),
    );
    expect([...written].sort()).toStrictEqual([...HAND_WRITTEN].sort());
    const performance = read('docs/performance.md');
    for (const path of HAND_WRITTEN) expect.soft(performance, `${path}: its measured reason`).toContain(path);
  });

  it('fp-ts stays in config and protocol decoding, never in a file that uses RxJS', () => {
    const fpTs = PRODUCT.filter((path) => /from 'fp-ts/.test(read(path)));
    expect(fpTs.length).toBeGreaterThan(0);
    expect(fpTs.filter((path) => !/^src\/(config|protocol)\//.test(path))).toStrictEqual([]);
    expect(fpTs.filter((path) => /from 'rxjs/.test(read(path)))).toStrictEqual([]);
  });

  it('bench/ imports nothing from test/: what both need lives in bench/ (procfs.ts) and test/ imports it', () => {
    const benches = sources('bench');
    expect(benches).toContain('bench/procfs.ts');
    const reaching = benches.filter((path) =>
      /from '(\.\.\/)+test\/|import\('(\.\.\/)+test\//.test(code(path)),
    );
    expect(reaching).toStrictEqual([]);
  });

  it('the command line loads the engine lazily: what main.ts imports statically reaches no heavy package', () => {
    // `--version`, `--help` and usage errors load only this closure; commands load theirs through
    // src/cli/lazy.ts (docs/performance.md, cold start).
    const HEAVY = /^(rxjs|io-ts|fp-ts|smol-toml|jsonc-parser|toml-eslint-parser|re2js)(\/|$)/;
    const seen = new Set<string>();
    const heavy: string[] = [];
    const visit = (path: string): void => {
      if (seen.has(path)) return;
      seen.add(path);
      const statics = [...code(path).matchAll(/^import (?!type\b)[^;]*? from '([^']+)'/gm)].map((m) => m[1]!);
      for (const specifier of statics) {
        if (HEAVY.test(specifier)) heavy.push(`${path} → ${specifier}`);
        else if (specifier.startsWith('.')) visit(join(path, '..', specifier).replace(/\.js$/, '.ts'));
      }
    };
    visit('src/cli/main.ts');
    expect(seen).toContain('src/cli/program.ts');
    expect(seen).not.toContain('src/cli/commands.ts');
    expect(heavy).toStrictEqual([]);
  });

  it('nothing in operators/ subscribes: operators compose (but the hand-written hot path)', () => {
    expect(
      sources('operators')
        .filter((path) => !HAND_WRITTEN.includes(path))
        .filter((path) => /\.subscribe\(/.test(code(path))),
    ).toStrictEqual([]);
  });

  it('operators know no hook kind: every hook runs through the executor port (src/exec/port.ts)', () => {
    const knowing = [...sources('operators'), ...sources('src/chain')].filter((path) =>
      /kind === '(function|command)'|\b(FunctionHook|CommandHook)\b|\.run\(/.test(code(path)),
    );
    expect(knowing).toStrictEqual([]);
    const execImports = [...sources('operators'), ...sources('src/chain')].flatMap((path) =>
      [...code(path).matchAll(/from '\.\.\/(?:src\/)?exec\/([^']+)'/g)].map((match) => match[1]),
    );
    expect(new Set(execImports)).toStrictEqual(new Set(['port.js']));
  });

  it('each operator file has its own RxJS-style spec: source subscriptions, an error, an unsubscription, types', () => {
    expect(OPERATORS).toHaveLength(12);
    for (const name of OPERATORS) {
      const spec = read(`test/unit/operators/${name}.test.ts`);
      expect.soft(spec, `${name}: subscriptions`).toMatch(/expectSubscriptions\(/);
      expect.soft(spec, `${name}: an error (#)`).toMatch(/(hot|cold)(<\w+>)?\(\s*'[^']*#/);
      expect
        .soft(spec, `${name}: an explicit unsubscription`)
        .toMatch(/expectObservable\([^;]*?,\s*('[ ^-]*!\s*'|unsub\w*)\)\.toBe/);
      expect.soft(spec, `${name}: type tests`).toMatch(/expectTypeOf\(/);
    }
  });

  it('each exported operator has a doc comment with a marble diagram and an example', () => {
    for (const name of OPERATORS) {
      const text = read(`operators/${name}.ts`);
      const doc = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*export const ${name}\\b`).exec(text)?.[1];
      expect.soft(doc, `${name}: doc comment`).toBeDefined();
      expect.soft(doc ?? '', `${name}: marble diagram`).toMatch(/```[\s\S]*[-|][\s\S]*```/);
      expect.soft(doc ?? '', `${name}: example`).toMatch(/Example: `/);
    }
  });

  it('docs/architecture.md names every folder of src/ and test/ and every file at the top of src/', () => {
    const architecture = read('docs/architecture.md');
    const folders = (dir: string) =>
      readdirSync(join(ROOT, dir)).filter((name) => statSync(join(ROOT, dir, name)).isDirectory());
    const named = [
      ...folders('src').map((name) => `src/${name}/`),
      ...readdirSync(join(ROOT, 'src'))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => `src/${name}`),
      ...folders('test').map((name) => `test/${name}/`),
      ...folders('.')
        .filter((name) => ['bench', 'examples', 'operators', 'docs'].includes(name))
        .map((name) => `${name}/`),
    ];
    expect(named.filter((path) => !architecture.includes(path))).toStrictEqual([]);
  });

  it('every file docs/architecture.md names exists (a path from the top, or a file name in src/ or operators/)', () => {
    const architecture = read('docs/architecture.md');
    const mentioned = new Set([...architecture.matchAll(/[\w./-]+\.ts\b/g)].map((match) => match[0]));
    const names = new Set(PRODUCT.map((path) => path.slice(path.lastIndexOf('/') + 1)));
    const missing = [...mentioned].filter((file) => {
      if (!file.includes('/')) return !names.has(file);
      try {
        return !statSync(join(ROOT, file)).isFile();
      } catch {
        return true;
      }
    });
    expect(mentioned.size).toBeGreaterThan(30);
    expect(missing).toStrictEqual([]);
  });
});

describe('the I/O boundary (eslint)', () => {
  const refusals = async (filePath: string, specifier: string): Promise<string[]> => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText(`import * as m from '${specifier}';\nexport const x = m;\n`, {
      filePath: join(ROOT, filePath),
    });
    return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
  };
  const FS = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'];
  const SPAWN = [
    'child_process',
    'node:child_process',
    'execa',
    'worker_threads',
    'node:worker_threads',
    'cluster',
    'node:cluster',
  ];

  it.each(['src/events/x.ts', 'src/protocol/x.ts', 'src/registry/x.ts', 'operators/x.ts'])(
    'nothing in %s touches the file system or starts a process or thread, however the module is named',
    async (file) => {
      for (const specifier of [...FS, ...SPAWN]) {
        expect
          .soft(await refusals(file, specifier), `${file}: ${specifier}`)
          .toStrictEqual(['no-restricted-imports']);
      }
    },
  );

  it('outside src/exec nothing spawns: src/config reads files but starts no process', async () => {
    for (const specifier of SPAWN) {
      expect
        .soft(await refusals('src/config/x.ts', specifier), specifier)
        .toStrictEqual(['no-restricted-imports']);
    }
    expect(await refusals('src/config/x.ts', 'node:fs')).toStrictEqual([]);
    expect(await refusals('src/exec/x.ts', 'node:child_process')).toStrictEqual([]);
  });
});

describe('the one-way layers (dependency-cruiser, .dependency-cruiser.cjs, run by npm run lint)', () => {
  const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
    forbidden: unknown[];
  };
  const scratch = mkdtempSync(join(tmpdir(), 'cosh-layers-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** The rules broken by a scratch tree of `files` (path → code), as `from → to: rule` lines. */
  const violations = async (files: Record<string, string>): Promise<string[]> => {
    const dir = mkdtempSync(join(scratch, 'tree-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const roots = ['src', 'operators'].filter((root) => existsSync(join(dir, root)));
    const { output } = await cruise(roots, {
      baseDir: dir,
      validate: true,
      ruleSet: { forbidden: config.forbidden } as ICruiseOptions['ruleSet'],
      tsPreCompilationDeps: true,
    });
    if (typeof output === 'string') throw new Error(output);
    return output.summary.violations
      .map((violation) => `${violation.from} → ${violation.to}: ${violation.rule.name}`)
      .sort();
  };

  it('an import that runs up a layer is rejected: protocol importing config', async () => {
    expect(
      await violations({
        'src/config/load.ts': 'export const load = 1;\n',
        'src/protocol/up.ts': "import { load } from '../config/load';\nexport const up = load;\n",
      }),
    ).toStrictEqual(['src/protocol/up.ts → src/config/load.ts: protocol-layer']);
  });

  it('operators take only the port from src/exec, and a type-only import counts', async () => {
    expect(
      await violations({
        'src/exec/port.ts': 'export type Port = number;\n',
        'src/exec/process/spawn.ts': 'export type Spawner = string;\n',
        'operators/runHooks.ts':
          "import type { Port } from '../src/exec/port';\nimport type { Spawner } from '../src/exec/process/spawn';\nexport type Both = [Port, Spawner];\n",
      }),
    ).toStrictEqual(['operators/runHooks.ts → src/exec/process/spawn.ts: operators-layer']);
  });

  it('an import loop inside one layer is rejected, and product code may not import tests', async () => {
    expect(
      await violations({
        'src/protocol/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'src/protocol/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
        'src/registry/uses-test.ts': "import { x } from '../../test/helper';\nexport const y = x;\n",
        'test/helper.ts': 'export const x = 1;\n',
      }),
    ).toStrictEqual([
      // A loop is reported once, at the import that closes it.
      'src/protocol/a.ts → src/protocol/b.ts: no-circular',
      'src/registry/uses-test.ts → test/helper.ts: product-imports-no-tests',
      'src/registry/uses-test.ts → test/helper.ts: registry-layer',
    ]);
  });
});
