import { spawn } from 'node:child_process';

const ignore = (): void => undefined;

/**
 * The physical floor of one command hook: a bare `child_process.spawn` with the same stdin/stdout
 * round trip the executor does — write the event line, close stdin, read stdout to the end, wait
 * for the process to close, parse the answer. Nothing else: no process group, no limits, no
 * classification beyond JSON.parse. With `detached`, the child gets its own session and process
 * group (`setsid`), as a hook must (spec §4.2): the floor of the same isolation.
 */
export const bareRoundTrip = (
  file: string,
  args: readonly string[],
  input: string,
  detached = false,
): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], detached });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    child.stdin.on('error', ignore);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`${file} exited with ${code}`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.stdin.end(input);
  });
