import { Worker } from 'node:worker_threads';
import { interleave, type Counts, type Probe } from './timing.js';

/**
 * A probe built and run in a worker thread of its own: `probe(options)` exported by `module` (a
 * compiled bench module, `new URL(import.meta.url)` from inside it). `options` must survive a
 * structured clone.
 */
export interface IsolatedProbe {
  readonly module: URL;
  readonly options: unknown;
}

/** What a module names in an `IsolatedProbe` exports. */
export type ProbeFactory<O> = (options: O) => Probe | Promise<Probe>;

/** What the worker posts: ready once built, then one value (or an error) per round. */
export type WorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'error'; readonly message: string };

/** A started worker: `round()` runs its probe once there. */
interface Running {
  readonly round: () => Promise<number>;
  readonly stop: () => Promise<number>;
}

const start = (isolated: IsolatedProbe): Promise<Running> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./probe-worker.js', import.meta.url), {
      workerData: { module: isolated.module.href, options: isolated.options },
    });
    let waiting:
      { readonly resolve: (value: number) => void; readonly reject: (error: Error) => void } | undefined;
    const fail = (error: Error) => {
      if (waiting === undefined) reject(error);
      else waiting.reject(error);
      waiting = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`probe worker for ${isolated.module.href} exited (${code})`)));
    worker.on('message', (reply: WorkerReply) => {
      if (reply.kind === 'error') return fail(new Error(reply.message));
      if (reply.kind === 'ready') {
        return resolve({
          round: () =>
            new Promise<number>((resolveRound, rejectRound) => {
              waiting = { resolve: resolveRound, reject: rejectRound };
              worker.postMessage('round');
            }),
          stop: () => worker.terminate(),
        });
      }
      waiting?.resolve(reply.value);
      waiting = undefined;
    });
  });

/**
 * `interleave` over probes that each live in their own worker thread, i.e. their own V8 isolate:
 * own JIT type feedback, own heap, own garbage collector. A subject measured next to its floor in
 * one isolate is compiled for every shape the other probes (and the measurements before it) fed
 * the shared functions, which a host running one workload never sees (docs/performance.md,
 * "Each subject in its own isolate"). Rounds still alternate between the probes, one running at a
 * time, so the machine's load hits them alike and their paired ratios stay meaningful.
 */
export const interleaveIsolated = async <K extends string>(
  counts: Counts,
  probes: Readonly<Record<K, IsolatedProbe>>,
): Promise<Record<K, number[]>> => {
  const names = Object.keys(probes) as K[];
  const started: Running[] = [];
  try {
    // One after the other: building a probe (its events, its registry) is not what is measured,
    // but two of them at once on a small machine would slow each other's start for nothing.
    for (const name of names) started.push(await start(probes[name]));
    const rounds = Object.fromEntries(names.map((name, i) => [name, started[i]!.round])) as Record<K, Probe>;
    return await interleave(counts, rounds);
  } finally {
    await Promise.all(started.map((running) => running.stop()));
  }
};
