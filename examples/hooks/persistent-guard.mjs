#!/usr/bin/env node
// A persistent security guard (persistent = true; docs/persistent.md).
//
// One process answers every event of the run: the engine writes each event as one JSON line on
// stdin and waits for exactly one line back. Node's start-up is paid once instead of on every
// tool call.
import process from 'node:process';
import { createInterface } from 'node:readline';

// Compiled once, at start-up: the reason to be persistent.
const BLOCK = /\brm\s+-[a-zA-Z]*[rR][a-zA-Z]*\s+(\/|~|\*)(\s|$)|\bmkfs\b|\bdd\b.*\bof=\/dev\//;
const ASK = /\bgit\s+push\b.*(\s--force\b|\s-f\b)/;

const decide = (event) => {
  const command = String(event.tool_input?.command ?? '');
  if (BLOCK.test(command))
    return { decision: 'block', reason: 'Dangerous command', systemMessage: 'Blocked by policy' };
  if (ASK.test(command)) return { decision: 'ask', reason: 'A force-push rewrites shared history' };
  return undefined; // no opinion: pass-through
};

// One event per line, one at a time; the loop ends when the engine closes stdin (end of the run).
for await (const line of createInterface({ input: process.stdin })) {
  let answer;
  try {
    answer = decide(JSON.parse(line));
  } catch (error) {
    // One bad event must not kill the process: log it, pass.
    process.stderr.write(`persistent-guard: ${error.message}\n`);
  }
  // Exactly one line per event (an empty line = pass-through): the engine waits for it.
  process.stdout.write(`${answer === undefined ? '' : JSON.stringify(answer)}\n`);
}
