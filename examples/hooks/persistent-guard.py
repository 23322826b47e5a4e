#!/usr/bin/env python3
"""A persistent security guard (persistent = true; docs/execution.md).

One process answers every event of the run: the engine writes each event as one JSON line on
stdin and waits for exactly one line back, holding the event's `cosh_request_id`. The start-up
(the interpreter, the imports, compiling the rules) is paid once instead of on every tool call.
"""
import json
import re
import sys

# Compiled once, at start-up: the reason to be persistent.
BLOCK = re.compile(r"\brm\s+-[a-zA-Z]*[rR][a-zA-Z]*\s+(/|~|\*)(\s|$)|\bmkfs\b|\bdd\b.*\bof=/dev/")
ASK = re.compile(r"\bgit\s+push\b.*(\s--force\b|\s-f\b)")


def decide(event):
    command = str((event.get("tool_input") or {}).get("command", ""))
    if BLOCK.search(command):
        return {"decision": "block", "reason": "Dangerous command", "systemMessage": "Blocked by policy"}
    if ASK.search(command):
        return {"decision": "ask", "reason": "A force-push rewrites shared history"}
    return {}  # no opinion: pass-through


# One event per line; the loop ends when the engine closes stdin (end of the run): then exit.
# Print nothing else on stdout (no banner, no debug line): logs go to stderr.
for line in sys.stdin:
    event = {}
    try:
        event = json.loads(line)
        answer = decide(event)
    except Exception as error:  # one bad event must not kill the process: log it, pass
        print(f"persistent-guard: {error}", file=sys.stderr, flush=True)
        answer = {}
    # Exactly one line per event, echoing its id (a line without it answers nothing), flushed:
    # the engine waits for it.
    answer["cosh_request_id"] = event.get("cosh_request_id") if isinstance(event, dict) else None
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
