import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from 'rolldown';

/**
 * `npm run build` runs tsc, then these two bundles over tsc's output in dist/. A Node process
 * pays for every module file it loads (resolution, reading, compiling), and more for CommonJS
 * loaded from ESM: one file per entry point, holding only what it uses, is what brings the cold
 * start of the library and of the command line near their floors (docs/performance.md, row 10).
 *
 * Both read ESM builds where a package has one, so unused code is left out: fp-ts's `es6`
 * (our sources import `fp-ts/lib/…`, which Node needs), and jsonc-parser's `module` (its `main` is
 * a UMD file that requires its parts at run time).
 */
const pkg = JSON.parse(readFileSync(new globalThis.URL('./package.json', import.meta.url), 'utf8'));
const require = createRequire(import.meta.url);
const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const fpTsEsm = { 'fp-ts/lib/Either.js': 'fp-ts/es6/Either.js' };
const resolve = { mainFields: ['module', 'main'] };

/**
 * The library (`cosh-hooks` and its subpaths, as package.json exports them): one file per entry
 * point, written over tsc's, and the parts they share in dist/src/chunks (one folder below
 * dist/src, so the executor finds the spawn helper at `../exec/helper/spawn-helper.js`, see
 * src/exec/helper/helper-client.ts). RxJS and every other peer dependency stay imports: a host
 * shares its own RxJS (and OpenTelemetry API) with the engine.
 */
const entries = Object.fromEntries(
  Object.values(pkg.exports)
    .map((target) => (typeof target === 'string' ? target : target.default))
    .filter((path) => path.endsWith('.js'))
    .map((path) => [path.replace(/^\.\/dist\//, '').replace(/\.js$/, ''), path]),
);
const peers = Object.keys(pkg.peerDependencies ?? {});
const isPeer = (id) => peers.some((name) => id === name || id.startsWith(`${name}/`));

const library = {
  input: entries,
  platform: 'node',
  external: (id) => isPeer(id) || nodeBuiltins.includes(id),
  resolve: { ...resolve, alias: fpTsEsm },
  output: {
    dir: 'dist',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'src/chunks/[name]-[hash].js',
  },
  logLevel: 'warn',
};

/**
 * The `cosh-hooks` command, written over tsc's `dist/src/cli/main.js`, with its own copy of
 * everything it runs: RxJS from its ES module build (what the command uses of it, not its whole
 * CommonJS build of some 400 files). One chunk per command group: `--version` and `--help` load
 * only the first (commander and the program). The chunks sit next to main.js, one folder below
 * dist/src, so the executor finds the spawn helper as above.
 */
const rxjsEsm = join(dirname(require.resolve('rxjs/package.json')), 'dist/esm');
const cli = {
  input: 'dist/src/cli/main.js',
  platform: 'node',
  resolve: {
    ...resolve,
    alias: { ...fpTsEsm, 'rxjs/testing': join(rxjsEsm, 'testing/index.js'), rxjs: join(rxjsEsm, 'index.js') },
  },
  output: {
    dir: 'dist/src/cli',
    format: 'esm',
    entryFileNames: 'main.js',
    chunkFileNames: 'main-[name]-[hash].js',
  },
  logLevel: 'warn',
};

export default defineConfig([cli, library]);
