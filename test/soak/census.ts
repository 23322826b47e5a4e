/**
 * The memory census of the soak: `cosh-hooks run` streaming 100,000 events against a bare Node
 * JSONL echo (RSS growth after full GCs, peak RSS, throughput; memory-cli.ts), then 5,000 hooks
 * through the executor in this process with every way a hook ends mixed in (open descriptors and
 * processes before and after; leaks.ts). Rows with a target are checks: a miss fails the soak.
 * `quick` runs 20,000 events and 500 hooks.
 */
import { createFixtures } from '../../bench/fixtures.js';
import type { Context } from '../../bench/measurement.js';
import { markdownTable, verdictOf, type Row } from '../../bench/report.js';
import { measureLeaks } from './leaks.js';
import { measureCliMemory } from './memory-cli.js';

export interface CensusReport {
  readonly rows: readonly Row[];
  readonly table: string;
  /** One line per row that missed its target. */
  readonly problems: readonly string[];
  readonly raw: Readonly<Record<string, unknown>>;
}

export const runCensus = async (quick: boolean, log: (line: string) => void): Promise<CensusReport> => {
  const fixtures = createFixtures();
  const context: Context = { quick, fixtures, log };
  try {
    const cli = await measureCliMemory(context);
    const leaks = await measureLeaks(context);
    const rows = [...cli.rows, ...leaks.rows];
    return {
      rows,
      table: markdownTable(rows),
      problems: rows
        .filter((row) => verdictOf(row) === 'miss')
        .map((row) => `${row.id} ${row.what}: ${row.subject} (baseline ${row.baseline})`),
      raw: { ...cli.raw, ...leaks.raw },
    };
  } finally {
    fixtures.remove();
  }
};
