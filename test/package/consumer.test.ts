// The package as a host installs it: `npm pack`, installed into a scratch project on a different
// rxjs 7.8 patch release (7.8.1; ours is 7.8.2), compiled under strict NodeNext with
// exactOptionalPropertyTypes and skipLibCheck off, then run. Needs the built dist/ (npm test
// builds first) and npm's registry or cache (CI has both).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The rxjs release of the host: a different patch than the one in our devDependencies. */
const HOST_RXJS = '7.8.1';
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const repo = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cosh-consumer-'));
const host = join(work, 'host');

/**
 * The environment without the outer `npm test`'s npm_* variables (they would point npm at our repo;
 * npm reads NPM_CONFIG_* too), and the same output whoever runs it: no colour (tools such as publint
 * colour their output whenever `CI` is set), no npm update notice (printed outside CI whenever npm
 * is not the newest release), npm's default log level whatever the user's npmrc says.
 */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        key !== 'FORCE_COLOR' &&
        (!key.toLowerCase().startsWith('npm_') ||
          ['npm_config_cache', 'npm_config_registry'].includes(key.toLowerCase())),
    ),
  ),
  NO_COLOR: '1',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'notice',
  ...extra,
});

const run = (
  command: string,
  args: readonly string[],
  cwd: string,
  env = cleanEnv(),
): SpawnSyncReturns<string> =>
  spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20 });

const output = (result: SpawnSyncReturns<string>): string => `${result.stdout}${result.stderr}`.trim();

/** Every ```ts block of the README and docs/*.md, named after its page, as a file of the host. */
const snippets = (): { name: string; code: string }[] => {
  const pages = [
    join(repo, 'README.md'),
    ...readdirSync(join(repo, 'docs')).map((f) => join(repo, 'docs', f)),
  ];
  return pages
    .filter((page) => page.endsWith('.md'))
    .flatMap((page) =>
      [...readFileSync(page, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, i) => ({
        name: `${basename(page, '.md')}-${i + 1}.ts`,
        code: match[1] ?? '',
      })),
    );
};

const HOST_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/** A real sh guard: blocks a tool call whose event contains `rm -rf`, with the reason "no rm -rf". */
const GUARD_CONFIG = [
  '[[hooks.PreToolUse]]',
  'name = "guard"',
  `command = "grep -q 'rm -rf' && echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"no rm -rf\\"}' || true"`,
  '',
].join('\n');

let homes = 0;
/** A fresh home whose ~/.copilot-shell/config.toml holds `config`. */
const homeWith = (config: string): string => {
  const home = join(work, `home-${++homes}`);
  mkdirSync(join(home, '.copilot-shell'), { recursive: true });
  writeFileSync(join(home, '.copilot-shell', 'config.toml'), config);
  return home;
};

let packed: { filename: string; files: { path: string }[] };
let install: SpawnSyncReturns<string>;
let compile: SpawnSyncReturns<string>;

beforeAll(() => {
  // --ignore-scripts: dist/ is already built, and prepack's rebuild would pull it from under the
  // tests running next to this one.
  const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repo);
  expect(pack.status, output(pack)).toBe(0);
  [packed] = JSON.parse(pack.stdout) as [typeof packed];

  mkdirSync(join(host, 'src', 'docs'), { recursive: true });
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  writeFileSync(join(host, 'tsconfig.json'), JSON.stringify(HOST_TSCONFIG, null, 2));
  install = run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(work, packed.filename),
      `rxjs@${HOST_RXJS}`,
      '@types/node@20.19.25',
    ],
    host,
  );
  expect(install.status, output(install)).toBe(0);

  for (const file of ['loop.ts', 'agent.ts']) {
    copyFileSync(join(repo, 'test', 'package', 'host', file), join(host, 'src', file));
  }
  for (const { name, code } of snippets()) writeFileSync(join(host, 'src', 'docs', name), code);
  compile = run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', host], host);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds only the library, the CLI, the config schema, and no source map', () => {
    const paths = packed.files.map((file) => file.path);
    const stray = paths.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE', 'config.schema.json'].includes(path) &&
        !(/^dist\/(src|operators)\//.test(path) && /\.(js|d\.ts)$/.test(path)),
    );
    expect(stray).toEqual([]);
    expect(paths).toContain('dist/src/cli/main.js');
    const mapped = paths.filter(
      (path) =>
        path.endsWith('.js') &&
        readFileSync(join(host, 'node_modules', 'cosh-hooks', path), 'utf8').includes('sourceMappingURL'),
    );
    expect(mapped).toEqual([]);
  });

  it('installs without running or warning anything (but npm 11 naming our own prepare script)', () => {
    const lines = output(install)
      .split('\n')
      .filter((line) => line.trim() !== '');
    // npm 11 names every package with an install-time script it has not been told to allow. Ours is
    // `prepare` (it builds a git or folder install); npm does not run it for a packed tarball, so the
    // notice is all there is, and it must name nothing else.
    const notice = /^npm warn install-scripts( |$)/;
    const notices = lines.filter((line) => notice.test(line));
    const { scripts } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      scripts: { prepare: string };
    };
    expect(notices.filter((line) => /@/.test(line))).toEqual([
      `npm warn install-scripts   cosh-hooks@${version} (prepare: ${scripts.prepare})`,
    ]);
    expect(
      lines.filter((line) => !notice.test(line) && !/^(added|changed|removed) \d+ packages? in /.test(line)),
    ).toEqual([]);
  });

  it(`leaves one rxjs in the host: its own ${HOST_RXJS}`, () => {
    const ls = run('npm', ['ls', 'rxjs', '--all', '--parseable'], host);
    expect(ls.status, output(ls)).toBe(0);
    expect(ls.stdout.trim().split('\n')).toEqual([join(host, 'node_modules', 'rxjs')]);
    expect(existsSync(join(host, 'node_modules', 'cosh-hooks', 'node_modules', 'rxjs'))).toBe(false);
    const rxjs = JSON.parse(readFileSync(join(host, 'node_modules', 'rxjs', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(rxjs.version).toBe(HOST_RXJS);
  });

  it('compiles every TypeScript snippet of the docs and a host loop under strict NodeNext, zero errors', () => {
    expect(snippets().map((s) => s.name)).toContain('README-1.ts');
    expect(output(compile)).toBe('');
    expect(compile.status).toBe(0);
  });

  it("runs the host's marble tests: its own delay and timer in the package's virtual time", () => {
    const tests = run(
      process.execPath,
      ['--test', '--test-reporter=tap', join(host, 'dist', 'loop.js')],
      host,
    );
    expect(tests.status, output(tests)).toBe(0);
    expect(tests.stdout).toMatch(/^# pass 2$/m);
    expect(tests.stdout).toMatch(/^# fail 0$/m);
  });

  it('runs an agent loop against real hook processes', () => {
    const agent = run(process.execPath, [join(host, 'dist', 'agent.js')], host);
    expect(agent.status, output(agent)).toBe(0);
    expect(agent.stdout.trim().split('\n')).toEqual([
      '1 t1 none',
      '2 t2 block: no rm -rf',
      'dispatch 1 none',
    ]);
  });

  it("runs the README's library snippet as written (with an empty home)", () => {
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    const readme = run(
      process.execPath,
      [join(host, 'dist', 'docs', 'README-1.js')],
      host,
      cleanEnv({ HOME: home }),
    );
    expect(readme.status, output(readme)).toBe(0);
    expect(readme.stdout.trim().split('\n')).toEqual(['1 none ', 'session: 1 none', 'dispatch: none']);
  });

  it("runs the README's library snippet as written while a configured hook takes its time", () => {
    // session.close() comes after the session's decision: a UserPromptSubmit hook slower than the
    // Stop dispatch must not turn the snippet into an unhandled SessionClosedError.
    const readme = run(
      process.execPath,
      [join(host, 'dist', 'docs', 'README-1.js')],
      host,
      cleanEnv({ HOME: homeWith('[[hooks.UserPromptSubmit]]\nname = "slow"\ncommand = "sleep 0.3"\n') }),
    );
    expect(readme.status, output(readme)).toBe(0);
    expect(readme.stdout.trim().split('\n')).toEqual(['1 none ', 'session: 1 none', 'dispatch: none']);
  });

  it("runs the session recipe's host loop as written against a real guard, then closes", () => {
    const [recipe] = snippets().filter((s) => s.code.includes('const toolCalls$ = new Subject'));
    expect(recipe).toBeDefined();
    const loop = run(
      process.execPath,
      [join(host, 'dist', 'docs', (recipe?.name ?? '').replace(/\.ts$/, '.js'))],
      host,
      cleanEnv({ HOME: homeWith(GUARD_CONFIG) }),
    );
    expect(loop.status, output(loop)).toBe(0);
    expect(loop.stdout.trim().split('\n')).toEqual(['run t1', 'skip t2: no rm -rf']);
  });

  it("runs the docs' marble tests as written, in the host's virtual time", () => {
    const marbles = snippets().filter((s) => s.code.includes("from 'node:test'"));
    const cases = marbles.flatMap((s) => [...s.code.matchAll(/^it\(/gm)]).length;
    expect(cases).toBeGreaterThanOrEqual(3);
    const tests = run(
      process.execPath,
      [
        '--test',
        '--test-reporter=tap',
        ...marbles.map((s) => join(host, 'dist', 'docs', s.name.replace(/\.ts$/, '.js'))),
      ],
      host,
    );
    expect(tests.status, output(tests)).toBe(0);
    expect(tests.stdout).toMatch(new RegExp(`^# pass ${cases}$`, 'm'));
    expect(tests.stdout).toMatch(/^# fail 0$/m);
  });

  it('has a working bin: npx cosh-hooks --help', () => {
    const help = run('npx', ['--no-install', 'cosh-hooks', '--help'], host);
    expect(help.status, output(help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cosh-hooks /);
  });

  it('passes publint (warnings count as errors)', () => {
    const lint = run(
      process.execPath,
      [
        join(repo, 'node_modules', 'publint', 'src', 'cli.js'),
        'run',
        '--strict',
        join(work, packed.filename),
      ],
      repo,
    );
    expect(lint.status, output(lint)).toBe(0);
    expect(output(lint)).toMatch(/All good!$/);
  });

  it('passes @arethetypeswrong/cli for an ESM-only package', () => {
    const attw = run(
      'npx',
      [
        '--no-install',
        'attw',
        join(work, packed.filename),
        '--profile',
        'esm-only',
        '--format',
        'ascii',
        '--no-color',
      ],
      repo,
    );
    expect(attw.status, output(attw)).toBe(0);
    // CommonJS and node10 resolution are out of scope for an ESM-only package; ESM and bundlers are all
    // green, for each of the four entry points, config.schema.json and package.json.
    const verdicts = attw.stdout.split('\n').filter((line) => /^(node16 \(from ESM\)|bundler): /.test(line));
    expect(verdicts).toHaveLength(12);
    expect(verdicts.filter((line) => !line.includes('🟢'))).toEqual([]);
  });
});
