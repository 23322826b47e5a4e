/*
 * The engine's synchronous work per event, by event size: every step on the hot path whose cost
 * grows with the event. While one of them runs, the event loop serves no other session.
 *
 *   npm run build && node dist/bench/event-size.js [MB …, default 1 10 30]
 *
 * Two shapes per size: one long string (a tool's output as text) and many short ones (the same
 * output as an array of lines). Prints one JSON row per shape and size, in milliseconds.
 * Not a test: it asserts nothing (docs/performance.md has the figures).
 */
import { performance } from 'node:perf_hooks';
import { LineSplitter } from '../src/cli/line-splitter.js';
import { sentEvent } from '../src/dialects/events.js';
import { decodeEvent } from '../src/events/decode.js';
import { parseJson } from '../src/events/untrusted.js';
import { redactedEvent } from '../src/protocol/redact/index.js';

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1, 10, 30];

const timed = <T>(work: () => T): [T, number] => {
  const start = performance.now();
  const value = work();
  return [value, Math.round((performance.now() - start) * 10) / 10];
};

const shapes = {
  text: (bytes: number) => 'output line with some words\n'.repeat(Math.ceil(bytes / 28)),
  lines: (bytes: number) =>
    Array.from({ length: Math.ceil(bytes / 30) }, (_, index) => `output line ${index}`),
};

for (const megabytes of sizes) {
  for (const [shape, make] of Object.entries(shapes)) {
    const raw = {
      hook_event_name: 'PostToolUse',
      session_id: 's',
      cwd: '/',
      tool_name: 'shell',
      tool_input: { command: 'cat big.log' },
      tool_response: make(megabytes * 1024 * 1024),
    };
    const line = Buffer.from(`${JSON.stringify(raw)}\n`);
    const splitter = new LineSplitter(64 * 1024 * 1024);
    const [lines, split] = timed(() => {
      const out = [];
      for (let at = 0; at < line.length; at += 64 * 1024)
        out.push(...splitter.push(line.subarray(at, at + 64 * 1024)));
      return out;
    });
    const [parsed, parse] = timed(() => parseJson(lines[0]!.text));
    if (!parsed.ok) throw new Error(parsed.error);
    const [decoded, decode] = timed(() =>
      decodeEvent(parsed.value, { now: () => new Date(0), cwd: () => '/' }),
    );
    if (!decoded.ok) throw new Error(decoded.error);
    const event = decoded.value;
    const [, redact] = timed(() => redactedEvent(event));
    const [, claude] = timed(() => sentEvent('claude', event));
    const [, stdinLine] = timed(() => Buffer.from(`${JSON.stringify(event)}\n`));
    process.stdout.write(
      `${JSON.stringify({ shape, megabytes, splitLine: split, jsonParse: parse, decodeEvent: decode, redactEvent: redact, claudeEvent: claude, stdinLine })}\n`,
    );
  }
}
