// docs/configuration.md against the codecs the loader uses: the page's tables name exactly the
// keys src/config/codecs.ts accepts, and the bounds it states are the codecs' bounds.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_HOOK_KEYS, HOOKS_SETTINGS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../../src/config/codecs.js';
import { DEFAULT_STOP_LOOP_LIMIT, MAX_STOP_LOOP_LIMIT } from '../../src/protocol/stop-loop.js';

const page = readFileSync(fileURLToPath(new URL('../../docs/configuration.md', import.meta.url)), 'utf8');

/** The first column of the Markdown table that follows `heading` (each cell's `code` names). */
const firstColumn = (heading: string): string[] => {
  const section = page.slice(page.indexOf(heading));
  const table = /(?:^|\n)(\|[^\n]*\n\|[-| ]+\|\n(?:\|[^\n]*\n)+)/.exec(section)?.[1] ?? '';
  return table
    .split('\n')
    .slice(2)
    .filter((row) => row.startsWith('|'))
    .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
};

describe('docs/configuration.md and the codecs', () => {
  it('lists exactly the keys of a hook table', () => {
    expect(firstColumn('### Hook table keys').sort()).toStrictEqual([...CONFIG_HOOK_KEYS].sort());
  });

  it('lists exactly the settings of [hooks]', () => {
    expect(firstColumn('| setting |').sort()).toStrictEqual([...HOOKS_SETTINGS].sort());
  });

  it('states the codecs bounds and defaults', () => {
    expect(page).toContain(`| \`timeout\` | integer ${MIN_TIMEOUT_MS}..${MAX_TIMEOUT_MS} | \`5000\` |`);
    expect(page).toContain(`| \`stop_loop_limit\` | ${DEFAULT_STOP_LOOP_LIMIT} | 1..${MAX_STOP_LOOP_LIMIT}:`);
  });
});
