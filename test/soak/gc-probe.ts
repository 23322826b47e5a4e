/**
 * Loaded into a measured process with `node --expose-gc --import <this file>` (the memory census): on
 * SIGUSR2 it runs a full garbage collection and reports the memory left on stderr, one line
 * `cosh-soak-gc {json}`. It lets the census compare memory at two points of a run without the
 * collector's sawtooth in the way; the measured program itself is not changed. (Signal listeners do
 * not keep a process alive, so the program still exits when its input ends.)
 */
import { GC_REPORT_PREFIX, type GcReport } from './gc-report.js';

const gc = (globalThis as { gc?: () => void }).gc;

process.on('SIGUSR2', () => {
  gc?.();
  const { heapUsed, rss, external } = process.memoryUsage();
  const report: GcReport = { heapUsed, rss, external };
  process.stderr.write(`${GC_REPORT_PREFIX}${JSON.stringify(report)}\n`);
});
