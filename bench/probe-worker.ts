import { parentPort, workerData } from 'node:worker_threads';
import type { ProbeFactory, WorkerReply } from './isolated.js';

/**
 * The worker side of `interleaveIsolated`: imports the module it was given, builds its probe with
 * the options, then runs it once per message and posts the value back.
 */
const { module, options } = workerData as { readonly module: string; readonly options: unknown };
const port = parentPort;
if (port === null) throw new Error('probe-worker runs as a worker thread');
const reply = (message: WorkerReply) => port.postMessage(message);
const failed = (error: unknown): WorkerReply => ({
  kind: 'error',
  message: error instanceof Error ? (error.stack ?? error.message) : String(error),
});

try {
  const { probe: factory } = (await import(module)) as { readonly probe?: ProbeFactory<unknown> };
  if (typeof factory !== 'function') throw new Error(`${module} exports no probe factory`);
  const probe = await factory(options);
  port.on('message', () => {
    Promise.resolve()
      .then(probe)
      .then(
        (value) => reply({ kind: 'value', value }),
        (error: unknown) => reply(failed(error)),
      );
  });
  reply({ kind: 'ready' });
} catch (error) {
  reply(failed(error));
}
