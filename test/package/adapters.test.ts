// The agent-framework adapters as a host installs them: the packed tarball and each framework at
// our pinned versions, installed from npm's cache into a scratch project, the setup snippet of each
// framework's section of docs/hosts.md (and the README's adapter snippets) compiled under strict
// NodeNext against the real framework types, then run: the dangerous call is blocked on the first
// try. And the other side: a host importing only `cosh-hooks` loads no framework module.
// A framework is one row of FRAMEWORKS. Needs the built dist/ (npm test builds first).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Framework {
  /** The heading of its section in docs/hosts.md; the section's first ```ts block is the setup. */
  readonly heading: string;
  /** Its adapter's entry point. */
  readonly entry: string;
  /** The packages the host installs for it, at the versions installed here (our devDependencies). */
  readonly packages: readonly string[];
  /** What the setup snippet prints, line by line. */
  readonly prints: readonly string[];
}

const FRAMEWORKS: readonly Framework[] = [
  {
    heading: '## Vercel AI SDK',
    entry: 'cosh-hooks/ai-sdk',
    // The SDK's declarations name json-schema's types without depending on them.
    packages: ['ai', 'zod', '@types/json-schema'],
    prints: ['denied shell: no rm -rf', 'I left it alone.'],
  },
];

/** A module of any agent framework, by its path in node_modules. */
const FRAMEWORK_MODULE = /\/node_modules\/(ai|@ai-sdk|langchain|@langchain|@openai|openai)\//;
/** The entry points a host without any framework imports. */
const CORE_ENTRIES = ['cosh-hooks', 'cosh-hooks/operators', 'cosh-hooks/executors', 'cosh-hooks/testing'];

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The version of a package installed here (what our lock file pins). */
const installed = (name: string): string =>
  (JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
const work = mkdtempSync(join(tmpdir(), 'cosh-adapters-'));
const host = join(work, 'host');

/** npm without the outer npm's variables (see consumer.test.ts), quiet and colourless. */
const env = (): NodeJS.ProcessEnv => ({
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
const run = (command: string, args: readonly string[], cwd = host): SpawnSyncReturns<string> =>
  spawnSync(command, args, { cwd, env: env(), encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20 });
const output = (result: SpawnSyncReturns<string>): string => `${result.stdout}${result.stderr}`.trim();

/** The ```ts blocks of a markdown text. */
const blocks = (text: string): string[] =>
  [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
const hostsPage = readFileSync(join(repo, 'docs', 'hosts.md'), 'utf8');
/** The text of one `## ` section of docs/hosts.md. */
const section = (heading: string): string => {
  const start = hostsPage.indexOf(`${heading}\n`);
  if (start < 0) return '';
  const next = hostsPage.indexOf('\n## ', start + heading.length);
  return hostsPage.slice(start, next < 0 ? undefined : next);
};
const slug = (framework: Framework) => framework.entry.replace('cosh-hooks/', '');

/** Records every module the ESM loader resolves (node's module.register hooks) into TRACE_FILE. */
const TRACE_HOOKS = `import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}
`;
const TRACE = `import { register } from 'node:module';
register('./trace-hooks.mjs', import.meta.url, { data: process.env.TRACE_FILE });
`;
/** Imports the given entries, runs one event through a session, prints every framework module loaded. */
const LOADED = `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
for (const entry of process.argv.slice(2)) await import(entry);
const { createSession, defaultDeps, defineHooks } = await import('cosh-hooks');
const session = createSession(defineHooks({ PreToolUse: [{ name: 'g', run: () => ({ decision: 'allow' }) }] }), defaultDeps());
await new Promise((done) => session.decide({ hook_event_name: 'PreToolUse', session_id: 's', tool_name: 't', tool_input: {} }).subscribe({ complete: done }));
session.close();
const loaded = [...readFileSync(process.env.TRACE_FILE, 'utf8').split('\\n'), ...Object.keys(createRequire(import.meta.url).cache)];
for (const path of new Set(loaded)) if (${FRAMEWORK_MODULE.toString()}.test(path)) console.log(path);
`;

let compile: SpawnSyncReturns<string>;

beforeAll(() => {
  const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repo);
  expect(pack.status, output(pack)).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string }];
  mkdirSync(join(host, 'src'), { recursive: true });
  writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  writeFileSync(
    join(host, 'tsconfig.json'),
    JSON.stringify({
      // consumer.test.ts's host, but for two things the frameworks' own declarations need (the
      // AI SDK's name DOM's HeadersInit, and do not compile under exactOptionalPropertyTypes).
      // skipLibCheck stays off: every declaration file, ours and theirs, is checked.
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        verbatimModuleSyntax: true,
        rootDir: 'src',
        outDir: 'dist',
      },
      include: ['src'],
    }),
  );
  const packages = FRAMEWORKS.flatMap((framework) =>
    framework.packages.map((name) => `${name}@${installed(name)}`),
  );
  const install = run('npm', [
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(work, packed.filename),
    `rxjs@${installed('rxjs')}`,
    `@types/node@${installed('@types/node')}`,
    ...packages,
  ]);
  expect(install.status, output(install)).toBe(0);

  for (const framework of FRAMEWORKS) {
    blocks(section(framework.heading)).forEach((code, i) =>
      writeFileSync(join(host, 'src', `${slug(framework)}-${i + 1}.ts`), code),
    );
  }
  blocks(readFileSync(join(repo, 'README.md'), 'utf8'))
    // The README snippets of the frameworks in this table (adapters-lc.test.ts compiles the others).
    .filter((code) => FRAMEWORKS.some((framework) => code.includes(`from '${framework.entry}'`)))
    .forEach((code, i) => writeFileSync(join(host, 'src', `README-${i + 1}.ts`), code));
  writeFileSync(join(host, 'trace-hooks.mjs'), TRACE_HOOKS);
  writeFileSync(join(host, 'trace.mjs'), TRACE);
  writeFileSync(join(host, 'loaded.mjs'), LOADED);
  compile = run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', host]);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

/** The framework modules loaded by a process importing `entries`. */
const frameworkModulesLoadedBy = (entries: readonly string[]): string[] => {
  const traceFile = join(work, `trace-${entries.join('+').replaceAll('/', '_')}.txt`);
  writeFileSync(traceFile, '');
  const loaded = spawnSync(process.execPath, ['--import', './trace.mjs', 'loaded.mjs', ...entries], {
    cwd: host,
    env: { ...env(), TRACE_FILE: traceFile },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(loaded.status, output(loaded)).toBe(0);
  return loaded.stdout.split('\n').filter(Boolean);
};

describe('the adapters, installed from the packed tarball with their frameworks', () => {
  it("compiles each framework's setup snippet of docs/hosts.md and the README's under strict NodeNext", () => {
    for (const framework of FRAMEWORKS)
      expect(blocks(section(framework.heading)).length, framework.heading).toBeGreaterThan(0);
    expect(output(compile)).toBe('');
    expect(compile.status).toBe(0);
  });

  for (const framework of FRAMEWORKS) {
    it(`${framework.heading.slice(3)}: the setup of docs/hosts.md blocks the dangerous call on the first try`, () => {
      const setup = run(process.execPath, [join('dist', `${slug(framework)}-1.js`)]);
      expect(setup.status, output(setup)).toBe(0);
      expect(setup.stdout.trim().split('\n')).toEqual(framework.prints);
    });

    it(`${framework.entry} loads its framework (the check below can see one)`, () => {
      expect(frameworkModulesLoadedBy([framework.entry]).length).toBeGreaterThan(0);
    });
  }

  it('a host importing only cosh-hooks loads and requires no framework module, though all are installed', () => {
    expect(frameworkModulesLoadedBy(CORE_ENTRIES)).toEqual([]);
  });
});
