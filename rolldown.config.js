import { defineConfig } from 'rolldown';

/**
 * The `cosh-hooks` command as a few bundled files, written over tsc's `dist/src/cli/main.js`
 * (`npm run build` runs it after tsc). One file per command group instead of some 600 modules
 * (RxJS alone is 400 CommonJS files) is what brings `cosh-hooks run`'s cold start from about 5× to
 * about 2× the CPU of `node -e 0`; `--version` and `--help` load only the first chunk
 * (commander and the program). docs/performance.md (cold start) has the figures. The library
 * (`cosh-hooks`, `cosh-hooks/operators`, `cosh-hooks/testing`) is not bundled: a host shares its
 * own RxJS with it.
 *
 * The chunks sit next to main.js, one folder below dist/src, so the executor finds the spawn
 * helper at `../exec/helper/spawn-helper.js` from them (src/exec/helper/helper-client.ts).
 */
export default defineConfig({
  input: 'dist/src/cli/main.js',
  platform: 'node',
  // jsonc-parser's `main` is a UMD file that requires its parts at run time; its `module` is ESM.
  resolve: { mainFields: ['module', 'main'] },
  output: {
    dir: 'dist/src/cli',
    format: 'esm',
    entryFileNames: 'main.js',
    chunkFileNames: 'main-[name]-[hash].js',
  },
  logLevel: 'warn',
});
