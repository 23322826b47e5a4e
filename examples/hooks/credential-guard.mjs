#!/usr/bin/env node
// Holds back prompts that look like they contain a secret (UserPromptSubmit).
// It must see the prompt as the user typed it: leave `redact` unset (a redacted copy would show
// it `<redacted>` where the secret was, and it would never fire).
import { readFileSync } from 'node:fs';
import process from 'node:process';

const event = JSON.parse(readFileSync(0, 'utf8'));
const SECRET =
  /\b(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|sk-[A-Za-z0-9_-]{20,}|-----BEGIN [A-Z ]*PRIVATE KEY-----)/;

if (SECRET.test(event.prompt ?? '')) {
  process.stdout.write(
    JSON.stringify({
      decision: 'block',
      reason: 'The prompt contains what looks like a credential',
      systemMessage: 'Prompt held back: remove the secret and send it again',
    }),
  );
}
