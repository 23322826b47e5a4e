import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * `src/protocol` imports run one way (docs/architecture.md): no file reaches itself through its
 * imports, type imports included, and redaction is layered keys, programs ← text ← tree.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROTOCOL = join(ROOT, 'src/protocol');

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith('.ts') ? [path] : [];
  });

/** The files of `src/protocol` each file imports or re-exports from, as paths from the repository root. */
const graph = new Map(
  filesUnder(PROTOCOL).map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:import|export)[^;]*?from '(\.[^']+)'/gs)]
      .map((match) => normalize(join(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'))))
      .filter((target) => target.startsWith(PROTOCOL));
    return [relative(ROOT, file), targets.map((target) => relative(ROOT, target))];
  }),
);

const reaches = (from: string, to: string): boolean => {
  const seen = new Set<string>();
  const next = [...(graph.get(from) ?? [])];
  while (next.length > 0) {
    const file = next.pop() ?? '';
    if (file === to) return true;
    if (seen.has(file)) continue;
    seen.add(file);
    next.push(...(graph.get(file) ?? []));
  }
  return false;
};

describe('src/protocol imports', () => {
  it('no file reaches itself through its imports', () => {
    expect([...graph.keys()].filter((file) => reaches(file, file))).toEqual([]);
  });

  it('redaction is layered: keys and programs import nothing, text only them, tree no file that imports it', () => {
    expect(graph.get('src/protocol/redact/keys.ts')).toEqual([]);
    expect(graph.get('src/protocol/redact/programs.ts')).toEqual([]);
    expect(graph.get('src/protocol/redact/text.ts')).toEqual([
      'src/protocol/redact/keys.ts',
      'src/protocol/redact/programs.ts',
    ]);
    expect([...graph.keys()].filter((file) => reaches(file, 'src/protocol/redact/tree.ts'))).toEqual([
      'src/protocol/index.ts',
      'src/protocol/redact/index.ts',
    ]);
  });
});
