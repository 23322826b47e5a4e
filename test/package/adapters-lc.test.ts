// The LangChain.js and OpenAI Agents JS adapters as a host installs them: the packed tarball with
// the frameworks at our pinned versions, a host agent per framework compiled under strict NodeNext
// (exactOptionalPropertyTypes, skipLibCheck off) against the frameworks' real types, then run
// against a real sh guard. And a host that installs neither framework gets neither. Needs the
// built dist/ and npm's registry or cache, as test/package/consumer.test.ts does.
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

const repo = fileURLToPath(new URL('../../', import.meta.url));
const { devDependencies } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
/** Each framework at the version our own tests run against. */
const FRAMEWORKS = ['langchain', '@langchain/core', '@openai/agents', 'zod'].map(
  (name) => `${name}@${devDependencies[name] ?? 'missing'}`,
);
/** The packages whose own declarations may fail under the host's strict flags: theirs, not ours. */
const FRAMEWORK_TYPES = /^node_modules\/(langchain|@langchain|@openai|langsmith|openai)\//;

/** The ```ts blocks of the README and docs/*.md that import LangChain or OpenAI Agents, named as the consumer test names them. */
const frameworkSnippets = (): { name: string; code: string }[] =>
  ['README.md', ...readdirSync(join(repo, 'docs')).map((file) => join('docs', file))]
    .filter((page) => page.endsWith('.md'))
    .flatMap((page) =>
      [...readFileSync(join(repo, page), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, i) => ({
        name: `${basename(page, '.md')}-${i + 1}.ts`,
        code: match[1] ?? '',
      })),
    )
    .filter(({ code }) => /from '(langchain|@openai\/agents)'/.test(code));

const work = mkdtempSync(join(tmpdir(), 'cosh-adapters-lc-'));

/** The environment without the outer npm's npm_* variables, and no colour or update notice. */
const cleanEnv = (): NodeJS.ProcessEnv => ({
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
});

const run = (command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> =>
  spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 540_000, maxBuffer: 64 << 20 });

const output = (result: SpawnSyncReturns<string>): string => `${result.stdout}${result.stderr}`.trim();

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

/** A scratch project with the tarball and `extra` installed. */
const hostWith = (name: string, tarball: string, extra: readonly string[]): string => {
  const host = join(work, name);
  mkdirSync(join(host, 'src'), { recursive: true });
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(join(host, 'tsconfig.json'), JSON.stringify(HOST_TSCONFIG, null, 2));
  const install = run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, 'rxjs@7.8.1', ...extra],
    host,
  );
  expect(install.status, output(install)).toBe(0);
  return host;
};

let frameworks: string;
let bare: string;
let compile: SpawnSyncReturns<string>;

beforeAll(() => {
  const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repo);
  expect(pack.status, output(pack)).toBe(0);
  const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
  const tarball = join(work, filename);

  frameworks = hostWith('frameworks', tarball, ['@types/node@20.19.25', ...FRAMEWORKS]);
  for (const file of ['langchain-agent.ts', 'openai-agent.ts']) {
    copyFileSync(join(repo, 'test', 'package', 'host', file), join(frameworks, 'src', file));
  }
  mkdirSync(join(frameworks, 'src', 'docs'));
  for (const { name, code } of frameworkSnippets())
    writeFileSync(join(frameworks, 'src', 'docs', name), code);
  compile = run(
    process.execPath,
    [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', frameworks],
    frameworks,
  );
  bare = hostWith('bare', tarball, []);
}, 1_200_000);

afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('the adapters of the packed tarball', () => {
  it("compiles both host agents and the docs' framework snippets under strict NodeNext, zero errors in the host's or our code", () => {
    // The README's and docs/hosts.md's setup of each framework.
    const snippets = frameworkSnippets();
    const pagesImporting = (framework: string) =>
      snippets.filter((s) => s.code.includes(`from '${framework}'`)).map((s) => s.name.split('-')[0]);
    expect(pagesImporting('langchain')).toEqual(['README', 'hosts']);
    expect(pagesImporting('@openai/agents')).toEqual(['README', 'hosts']);
    const errors = output(compile)
      .split('\n')
      .filter((line) => /^\S.*: error TS\d+/.test(line));
    // The frameworks' own declarations do not all compile under exactOptionalPropertyTypes with
    // skipLibCheck off; any other error (the host's files, cosh-hooks' declarations) is ours.
    expect(errors.filter((line) => !FRAMEWORK_TYPES.test(line))).toEqual([]);
    expect(existsSync(join(frameworks, 'dist', 'langchain-agent.js'))).toBe(true);
    expect(existsSync(join(frameworks, 'dist', 'openai-agent.js'))).toBe(true);
  });

  it('blocks the dangerous call in a LangChain agent and runs the benign one', () => {
    const agent = run(process.execPath, [join(frameworks, 'dist', 'langchain-agent.js')], frameworks);
    expect(agent.status, output(agent)).toBe(0);
    expect(agent.stdout.trim().split('\n')).toEqual(['c1 error no rm -rf', 'c2 success ran: ls', 'ran: ls']);
  });

  it('blocks the dangerous call in an OpenAI Agents run and runs the benign one', () => {
    const agent = run(process.execPath, [join(frameworks, 'dist', 'openai-agent.js')], frameworks);
    expect(agent.status, output(agent)).toBe(0);
    expect(agent.stdout.trim().split('\n')).toEqual(['c1 no rm -rf', 'c2 ran: ls', 'ran: ls final: done']);
  });

  it('installs neither framework in a host that does not ask for it, and says which is missing on import', () => {
    for (const name of ['langchain', '@langchain/core', '@openai/agents']) {
      expect(existsSync(join(bare, 'node_modules', name)), name).toBe(false);
    }
    const main = run(process.execPath, ['--input-type=module', '-e', "await import('cosh-hooks')"], bare);
    expect(main.status, output(main)).toBe(0);
    for (const [entry, missing] of [
      ['cosh-hooks/langchain', '@langchain/core'],
      ['cosh-hooks/openai-agents', '@openai/agents'],
    ] as const) {
      const adapter = run(process.execPath, ['--input-type=module', '-e', `await import('${entry}')`], bare);
      expect(adapter.status).not.toBe(0);
      expect(adapter.stderr).toContain(`Cannot find package '${missing}'`);
    }
  });
});
