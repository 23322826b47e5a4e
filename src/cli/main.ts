#!/usr/bin/env node
import { CommanderError } from 'commander';
import { describeThrown } from '../events/untrusted.js';
import { printableLine } from './format.js';
import { createProgram } from './program.js';
import { exitWhenIdle, watchStdout } from './terminal.js';

watchStdout();
let status = 0;
try {
  await createProgram((code) => {
    status = code;
  }).parseAsync(process.argv);
} catch (error) {
  // Help, version or a usage error: commander has printed what it had to say.
  if (error instanceof CommanderError) status = error.exitCode;
  else {
    process.stderr.write(`cosh-hooks: ${printableLine(describeThrown(error))}\n`);
    status = 1;
  }
}
exitWhenIdle(status);
