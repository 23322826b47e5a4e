// Each way the README installs the package into a host, as written there: a clone linked with
// --install-links, a git URL (here a file: URL of this repository at HEAD: no network), and the
// packed tarball (test/package/consumer.test.ts installs it and checks far more). Each must leave
// one rxjs, the host's, and compile the README's library snippet under strict NodeNext. Needs npm's
// cache (or registry) for rxjs and @types/node; the git install also needs our devDependencies, to
// build the clone, and the commit under test (uncommitted changes are not in a git install).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../../src/version.js';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cosh-install-'));
// Two hosts' node_modules and a git clone's: removing them took over 30 s on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000);

/** The environment without the outer npm's npm_* variables (they would point npm at our repo). */
const env = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !key.toLowerCase().startsWith('npm_') ||
        ['npm_config_cache', 'npm_config_registry'].includes(key.toLowerCase()),
    ),
  ),
  NO_COLOR: '1',
  npm_config_update_notifier: 'false',
});

const run = (command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> =>
  spawnSync(command, args, { cwd, env: env(), encoding: 'utf8', timeout: 540_000, maxBuffer: 64 << 20 });
const output = (result: SpawnSyncReturns<string>): string => `${result.stdout}${result.stderr}`.trim();

/** The README's install commands, by what they install from. */
const readmeInstalls = (): string[] => {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Installing it in a host project'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
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

/** A scratch host with the README's library snippet; `install` gets the host folder. */
const hostInstalledWith = (name: string, install: readonly string[]) => {
  const host = join(work, name);
  mkdirSync(join(host, 'src'), { recursive: true });
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  writeFileSync(join(host, 'tsconfig.json'), JSON.stringify(HOST_TSCONFIG, null, 2));
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  writeFileSync(join(host, 'src', 'readme.ts'), /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? '');
  const installed = run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', ...install, '@types/node@20.19.25'],
    host,
  );
  return { host, installed };
};

/** One rxjs in the host, and the README snippet compiling and running there. */
const checkHost = (host: string, installed: SpawnSyncReturns<string>) => {
  expect(installed.status, output(installed)).toBe(0);
  const ls = run('npm', ['ls', 'rxjs', '--all', '--parseable'], host);
  expect(ls.stdout.trim().split('\n')).toEqual([join(host, 'node_modules', 'rxjs')]);
  expect(existsSync(join(host, 'node_modules', 'cosh-hooks', 'dist', 'src', 'index.js'))).toBe(true);
  const compile = run(
    process.execPath,
    [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', host],
    host,
  );
  expect(output(compile)).toBe('');
  const home = join(host, 'home');
  mkdirSync(home);
  const snippet = spawnSync(process.execPath, [join(host, 'dist', 'readme.js')], {
    cwd: host,
    env: { ...env(), HOME: home },
    encoding: 'utf8',
  });
  expect(snippet.stdout.trim().split('\n'), snippet.stderr).toEqual([
    '1 none ',
    'session: 1 none',
    'dispatch: none',
  ]);
};

describe('the README install methods, each in a scratch host', () => {
  it("the README gives these three, with rxjs as the host's own", () => {
    expect(readmeInstalls()).toEqual([
      'npm install rxjs --install-links ../cosh-hooks',
      'npm install rxjs git+https://example.org/you/cosh-hooks.git',
      `npm pack ../cosh-hooks && npm install rxjs ./cosh-hooks-${packageVersion()}.tgz`,
    ]);
  });

  it('a clone, linked with --install-links: a copy of the built package, one rxjs', () => {
    const { host, installed } = hostInstalledWith('link', ['rxjs@7.8.1', '--install-links', repo]);
    expect(readFileSync(join(host, 'package-lock.json'), 'utf8')).not.toContain('"link": true');
    checkHost(host, installed);
  }, 600_000);

  it('a git URL (this repository at HEAD): cloned, built by prepare, one rxjs', () => {
    const head = run('git', ['rev-parse', 'HEAD'], repo).stdout.trim();
    const { host, installed } = hostInstalledWith('git', ['rxjs@7.8.1', `git+file://${repo}#${head}`]);
    checkHost(host, installed);
  }, 600_000);
});
