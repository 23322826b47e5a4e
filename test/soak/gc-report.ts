/** What gc-probe.ts reports from inside a measured process; shared with the reader in memory-cli.ts. */
export const GC_REPORT_PREFIX = 'cosh-soak-gc ';

export interface GcReport {
  /** Live JS heap after a full collection, bytes. */
  readonly heapUsed: number;
  /** Resident set size right after it, bytes. */
  readonly rss: number;
  readonly external: number;
}
