// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules that start processes or threads, by either name (`node:x` and `x`). */
const SPAWNS = ['child_process', 'worker_threads', 'cluster', 'execa'].flatMap((name) =>
  name === 'execa' ? [name] : [name, `node:${name}`],
);
/** The file system, by either name, with its subpaths (`fs/promises`). */
const FILES = ['fs', 'fs/*', 'node:fs', 'node:fs/*'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: SPAWNS, message: 'Only src/exec spawns processes.' }] },
      ],
    },
  },
  {
    files: ['src/exec/**', 'test/**', 'bench/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/protocol/**', 'src/events/**', 'src/registry/**', 'operators/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: [...FILES, ...SPAWNS], message: 'Pure modules do no I/O.' }],
        },
      ],
    },
  },
);
