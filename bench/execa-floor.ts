import { execa } from 'execa';

/**
 * The execa options the executor used before it spawned with `child_process` directly: its own
 * process group, pipes read by the caller, errors as values, no execa-side killing.
 */
export const HOOK_PROCESS_OPTIONS = {
  detached: true,
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'pipe',
  buffer: false,
  encoding: 'buffer',
  stripFinalNewline: false,
  reject: false,
  cleanup: false,
  forceKillAfterDelay: false,
} as const;

/**
 * execa alone, with the options the executor passed to it (HOOK_PROCESS_OPTIONS), and the same
 * round trip as the bare floor: what execa's own per-call work costs (option normalization,
 * environment copy, abort signals, promise bookkeeping). The executor no longer uses execa; the
 * row shows what leaving it saved.
 */
export const execaRoundTrip = async (
  file: string,
  args: readonly string[],
  input: string,
): Promise<unknown> => {
  const child = execa(file, args, HOOK_PROCESS_OPTIONS);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.resume();
  child.stdin.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdin.end(input);
  await closed;
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};
