// A host project's agent loop against real hook processes (compiled and run by
// test/package/consumer.test.ts from the installed tarball): configuration from a file, a session
// in an RxJS loop, and the promise-style dispatcher.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concatMap, filter, from, lastValueFrom, map, toArray } from 'rxjs';
import {
  createDispatcher,
  createSession,
  defaultDeps,
  formatProblem,
  isDecision,
  loadHooks,
  type HookDecision,
} from 'cosh-hooks';

const home = mkdtempSync(join(tmpdir(), 'cosh-host-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
const guard = join(home, 'guard.sh');
writeFileSync(
  guard,
  `#!/bin/sh\ncase "$(cat)" in *'rm -rf'*) echo '{"decision":"deny","reason":"no rm -rf"}' ;; esac\n`,
  { mode: 0o755 },
);
const config = join(home, 'config.toml');
// The path as one sh word (a TMPDIR may hold spaces), in a TOML string (JSON's escapes are TOML's).
const command = `'${guard.replaceAll("'", `'\\''`)}'`;
writeFileSync(config, `[[hooks.PreToolUse]]\nname = "guard"\ncommand = ${JSON.stringify(command)}\n`);

const loaded = loadHooks({ home, configPath: config, systemExtensionsDir: null });
if (!loaded.ok) throw new Error(loaded.errors.map(formatProblem).join('\n'));
if (loaded.warnings.length > 0) throw new Error(loaded.warnings.map(formatProblem).join('\n'));
const deps = defaultDeps();

const calls = [
  { id: 't1', command: 'ls' },
  { id: 't2', command: 'rm -rf /' },
];
const session = createSession(loaded.registry, deps);
const outcomes = await lastValueFrom(
  from(calls).pipe(
    concatMap((call) =>
      session
        .decide({
          hook_event_name: 'PreToolUse' as const,
          session_id: 's1',
          tool_use_id: call.id,
          tool_name: 'shell',
          tool_input: { command: call.command },
        })
        .pipe(
          filter(isDecision),
          map((d: HookDecision) => `${d.seq} ${call.id} ${d.decision}${d.reason ? `: ${d.reason}` : ''}`),
        ),
    ),
    toArray(),
  ),
);
session.close();
for (const outcome of outcomes) console.log(outcome);

const dispatcher = createDispatcher(loaded.registry, deps);
const answer = await dispatcher.dispatch({ hook_event_name: 'Stop', session_id: 's1' });
dispatcher.close();
console.log(
  answer.error
    ? `dispatch error ${answer.error.message}`
    : `dispatch ${answer.decision.seq} ${answer.decision.decision}`,
);
