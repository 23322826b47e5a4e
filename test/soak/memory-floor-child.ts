/**
 * The floor for the memory census (6a–6f): the least a Node process can do with a JSONL event stream — read
 * lines, parse each, write one small JSON answer line — with nothing of cosh-hooks loaded. Run as
 * its own process by memory-cli.ts and measured exactly like `cosh-hooks run`.
 */
import { createInterface } from 'node:readline';

let seq = 0;
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line === '') return;
  const event = JSON.parse(line) as { hook_event_name?: string; session_id?: string };
  seq += 1;
  process.stdout.write(
    `${JSON.stringify({ type: 'hook_decision', seq, hook_event_name: event.hook_event_name, session_id: event.session_id, decision: 'none', hooks: [] })}\n`,
  );
});
