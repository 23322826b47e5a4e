#!/usr/bin/env node
import { createProgram } from './program.js';
import { exitWhenIdle, watchStdout } from './terminal.js';
import { describeThrown } from '../events/untrusted.js';

watchStdout();
let status = 0;
try {
  await createProgram((code) => {
    status = code;
  }).parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`cosh-hooks: ${describeThrown(error)}\n`);
  status = 1;
}
exitWhenIdle(status);
