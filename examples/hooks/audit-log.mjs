#!/usr/bin/env node
// Audit logger: appends one JSON line per event to $AUDIT_LOG (default: cosh-hooks-audit.jsonl in
// the temp folder) and prints nothing. Configured with `observe = true` it is an observer
// (docs/audit.md): it runs after the decision is out, gets that decision as `cosh_decision`, sees
// blocked calls too, and can never delay or change a decision. In the chain instead, it would
// delay every event and be skipped for the calls a guard blocks.
import { Buffer } from 'node:buffer';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const summaryOf = (event) => {
  switch (event.hook_event_name) {
    case 'PreToolUse':
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return `${event.tool_name} ${JSON.stringify(event.tool_input)}`;
    case 'UserPromptSubmit':
      return event.prompt;
    case 'Stop':
      return event.last_assistant_message ?? '';
    case 'BeforeModel':
      return `${event.llm_request.messages?.length ?? 0} messages`;
    case 'AfterModel':
      return event.llm_response.content ?? '';
    default:
      return '';
  }
};

const record = {
  time: event.timestamp,
  session: event.session_id,
  event: event.hook_event_name,
  ...(event.tool_use_id !== undefined && { tool_use_id: event.tool_use_id }),
  ...(event.cosh_decision !== undefined && { decision: event.cosh_decision.decision }),
  summary: summaryOf(event).slice(0, 200),
};
appendFileSync(
  process.env.AUDIT_LOG ?? join(tmpdir(), 'cosh-hooks-audit.jsonl'),
  `${JSON.stringify(record)}\n`,
);
