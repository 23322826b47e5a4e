#!/usr/bin/env node
import { CommanderError } from 'commander';
import { describeThrown } from '../events/untrusted.js';
import { killOwnedGroupsNow } from '../exec/groups/groups.js';
import { printableLine } from './format.js';
import { createProgram } from './program.js';
import { exitWhenIdle, watchStdout } from './terminal.js';

watchStdout();
// However the process ends (a crash included, short of SIGKILL), no hook it still answers for is
// left running: running and cancelled hooks' groups get SIGKILL on the way out (spec §6). Hooks
// that ended by themselves are not in that set, so their background processes are left alone.
process.on('exit', () => killOwnedGroupsNow());
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
