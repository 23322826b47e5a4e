#!/usr/bin/env node
// A persistent security guard (persistent = true; docs/execution.md).
//
// One process answers every event of the run: the engine writes each event as one JSON line on
// stdin and waits for exactly one line back, holding the event's `cosh_request_id`. Node's
// start-up is paid once instead of on every tool call.
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
  return {}; // no opinion: pass-through
};

// One event per line, one at a time; the loop ends when the engine closes stdin (end of the run).
// Write nothing else on stdout (no banner, no debug line): logs go to stderr.
for await (const line of createInterface({ input: process.stdin })) {
  let event;
  let answer;
  try {
    event = JSON.parse(line);
    answer = decide(event);
  } catch (error) {
    // One bad event must not kill the process: log it, pass.
    process.stderr.write(`persistent-guard: ${error.message}\n`);
    answer = {};
  }
  // Exactly one line per event, echoing its id: a line without it answers nothing.
  process.stdout.write(`${JSON.stringify({ ...answer, cosh_request_id: event?.cosh_request_id })}\n`);
}
