// The docs a person reads: docs/*.md stays under 25,000 words in all (the words `wc -w` counts),
// and every relative link of docs/*.md, README.md and CHANGELOG.md points at a file that exists
// and, for a Markdown file, at a heading it has.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const WORD_LIMIT = 25_000;

const pages = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => join(DOCS, name));

/** Words as `wc -w` counts them: runs of characters that are not white space. */
export const wordCount = (text: string): number => text.split(/\s+/).filter((word) => word !== '').length;

/** The text outside fenced code blocks, line by line (a fence is three backquotes or tildes). */
const proseLines = (text: string): string[] => {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && opening !== undefined) fence = opening[0]!.repeat(opening.length);
    else if (fence !== undefined && line.trim().startsWith(fence)) fence = undefined;
    else if (fence === undefined) lines.push(line);
  }
  return lines;
};

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file, with GitHub's `-1`, `-2` for repeated headings. */
const anchorsOf = (file: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
};

/** The relative link targets of a Markdown file (code blocks and code spans left out). */
const linksOf = (file: string): string[] =>
  proseLines(readFileSync(file, 'utf8'))
    .map((line) => line.replace(/`[^`]*`/g, ''))
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));

describe('docs a person reads', () => {
  it(`docs/*.md holds at most ${WORD_LIMIT.toLocaleString('en')} words in all`, () => {
    const counts = pages.map((page) => ({
      page: relative(ROOT, page),
      words: wordCount(readFileSync(page, 'utf8')),
    }));
    const total = counts.reduce((sum, { words }) => sum + words, 0);
    console.info(
      [
        ...counts.map(({ page, words }) => `${String(words).padStart(6)}  ${page}`),
        `${String(total).padStart(6)}  total`,
      ].join('\n'),
    );
    expect(total).toBeLessThanOrEqual(WORD_LIMIT);
  });

  it('every relative link of docs/*.md, README.md and CHANGELOG.md points at an existing file and heading', () => {
    const broken: string[] = [];
    for (const page of [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...pages]) {
      for (const target of linksOf(page)) {
        const [path = '', anchor] = target.split('#', 2);
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        if (!existsSync(file)) broken.push(`${relative(ROOT, page)}: ${target} (no such file)`);
        else if (
          anchor !== undefined &&
          file.endsWith('.md') &&
          statSync(file).isFile() &&
          !anchorsOf(file).has(anchor)
        )
          broken.push(`${relative(ROOT, page)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toStrictEqual([]);
  });

  it('finds the links and anchors it checks (a check that cannot fail is no check)', () => {
    expect(slug('`[[imported_hooks]]`: what `cosh-hooks import` appends')).toBe(
      'imported_hooks-what-cosh-hooks-import-appends',
    );
    expect(slug('§4.1 Matchers')).toBe('41-matchers');
    expect(slug('Replacement or patch: `updated_input` and `tool_input`')).toBe(
      'replacement-or-patch-updated_input-and-tool_input',
    );
    expect(wordCount('one two\n\tthree  ')).toBe(3);
    const links = pages.flatMap(linksOf);
    expect(links.filter((target) => target.includes('#')).length).toBeGreaterThan(50);
    expect(anchorsOf(join(DOCS, 'protocol.md'))).toContain('secrets');
  });
});
