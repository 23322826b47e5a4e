#!/usr/bin/env node
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
  process.stderr.write(`cosh-hooks: ${printableLine(describeThrown(error))}\n`);
  status = 1;
}
exitWhenIdle(status);
