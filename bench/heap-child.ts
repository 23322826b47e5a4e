/**
 * Measurement 7, the part that runs in its own Node process: fill the heap with `--heap-mb` MB of
 * live objects and Buffers, then time the inline sh hook through the executor (direct spawn, and
 * through the spawn helper) against a bare spawn, interleaved. The helper starts in the warm-up. Prints one JSON object on stdout. Run by heap.ts with a large --max-old-space-size.
 */
import { processExecutor } from '../src/exec/process-executor.js';
import { INLINE_SH_ALLOW, preToolUse, stdinLine } from './fixtures.js';
import { commandHook } from './measurement.js';
import { runBare, runThroughExecutor } from './per-hook.js';
import { interleave, timed } from './timing.js';

const argument = (name: string): number => {
  const index = process.argv.indexOf(`--${name}`);
  const value = Number(process.argv[index + 1]);
  if (index < 0 || !Number.isSafeInteger(value)) throw new Error(`--${name} <integer> is required`);
  return value;
};

const MB = 1024 * 1024;
const liveBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

interface Item {
  readonly id: number;
  readonly name: string;
  readonly value: number;
}

/**
 * Live data until heap + ArrayBuffers reach `targetMb`: half in about a million small objects per
 * 100 MB (what a host's state looks like to the garbage collector), half in touched 1 MiB Buffers.
 */
const fillHeap = (targetMb: number): { objects: Item[][]; buffers: Buffer[] } => {
  const objects: Item[][] = [];
  const buffers: Buffer[] = [];
  let next = 0;
  while (liveBytes() < targetMb * MB) {
    const chunk: Item[] = [];
    for (let i = 0; i < 5_000; i++, next++) chunk.push({ id: next, name: `item-${next}`, value: next * 1.5 });
    objects.push(chunk);
    buffers.push(Buffer.alloc(MB / 2, next & 0xff));
  }
  return { objects, buffers };
};

const heapMb = argument('heap-mb');
const ballast = fillHeap(heapMb);
const executor = processExecutor({ spawnHelper: 'never' });
const viaHelper = processExecutor({ spawnHelper: 'always' });
const hook = commandHook('heap', INLINE_SH_ALLOW);
const event = preToolUse(process.cwd());
const input = stdinLine(event);
const samples = await interleave(
  { warmup: argument('warmup'), iterations: argument('iterations') },
  {
    baseline: () => timed(() => runBare('/bin/sh', ['-c', INLINE_SH_ALLOW], input)),
    subject: () => timed(() => runThroughExecutor(executor, hook, event)),
    helper: () => timed(() => runThroughExecutor(viaHelper, hook, event)),
  },
);
const usage = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({
    heapMb,
    heapUsedMb: Math.round(usage.heapUsed / MB),
    arrayBuffersMb: Math.round(usage.arrayBuffers / MB),
    rssMb: Math.round(usage.rss / MB),
    objects: ballast.objects.length * 5_000,
    buffers: ballast.buffers.length,
    ...samples,
  })}\n`,
);
