// docs/protocol.md against the code: the events table names every event with the decisions the
// host obeys (src/events/names.ts), and the failures table names every failure kind
// (src/protocol/result.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, INTERCEPTABLE } from '../../src/events/names.js';
import { FAILURE_KINDS } from '../../src/protocol/result.js';

const page = readFileSync(fileURLToPath(new URL('../../docs/protocol.md', import.meta.url)), 'utf8');

/** The rows of the Markdown table whose header row starts with `header`, as arrays of cells. */
const rowsAfter = (header: string): string[][] => {
  const start = page.indexOf(`\n${header}`);
  expect(start, header).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of page
    .slice(start + 1)
    .split('\n')
    .slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
};

describe('docs/protocol.md and the code', () => {
  it('lists every event once, with the decisions the host obeys', () => {
    const rows = rowsAfter('| event | when | the host obeys |');
    expect(rows.map((row) => row[0])).toStrictEqual(EVENT_NAMES.map((name) => `\`${name}\``));
    for (const [cell, obeys] of rows.map((row) => [row[0]!.slice(1, -1), row[2]!] as const)) {
      const decisions = INTERCEPTABLE[cell as keyof typeof INTERCEPTABLE];
      expect(obeys, cell).toBe(decisions.length === 0 ? 'nothing' : decisions.join(', '));
    }
  });

  it('lists every failure kind once', () => {
    const rows = rowsAfter('| outcome | when | message |');
    expect(rows.map((row) => row[0])).toStrictEqual(FAILURE_KINDS.map((kind) => `\`${kind}\``));
  });
});
