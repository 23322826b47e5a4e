import { lastValueFrom, of, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/events/decode.js';
import { processExecutor } from '../../src/exec/index.js';
import { isDecision, isNotification } from '../../src/output/lines.js';
import { defaultDeps, hookPipeline } from '../../src/pipeline/index.js';
import { defineHooks } from '../../src/registry/define.js';
import { event } from '../../src/testing/index.js';

/**
 * spec §4.5: a fail_closed hook blocks with the first non-blank line it wrote to stderr, however
 * much it wrote after it (more than the 64 KiB tail the executor keeps).
 */

const pre = () => {
  const decoded = decodeEvent(
    event('PreToolUse', { session_id: 's', tool_name: 'shell', tool_input: { command: 'ls' } }),
    { now: () => new Date(0), cwd: () => process.cwd() },
  );
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.value;
};

const DEBUG_LINES = `i=0; while [ $i -lt 10000 ]; do echo "debug: step $i of the scan, nothing to see" >&2; i=$((i+1)); done`;

describe('fail_closed reason after a flood of stderr (spec §4.5)', () => {
  it.each([
    [
      'exit 1',
      `echo 'refused: the command reads ~/.ssh' >&2; ${DEBUG_LINES}; exit 1`,
      'exit',
      'exited with code 1',
    ],
    [
      'exit 2 after blank lines',
      `printf '\\n  \\n' >&2; echo '  refused: the command reads ~/.ssh  ' >&2; ${DEBUG_LINES}; exit 2`,
      'exit',
      'exited with code 2',
    ],
    [
      'killed by a signal',
      `echo 'refused: the command reads ~/.ssh' >&2; ${DEBUG_LINES}; kill -9 $$`,
      'signal',
      'killed by signal SIGKILL',
    ],
  ])('%s: block with exactly the first line', async (_what, command, outcome, failed) => {
    const registry = defineHooks({ PreToolUse: [{ name: 'guard', fail_closed: true, command }] });
    const lines = await lastValueFrom(
      hookPipeline(registry, defaultDeps(processExecutor()))(of(pre())).output$.pipe(toArray()),
    );
    const decision = lines.find(isDecision);
    expect(decision).toMatchObject({
      decision: 'block',
      reason: 'refused: the command reads ~/.ssh',
      hooks: [{ name: 'guard', outcome }],
    });
    const message = `${failed}: refused: the command reads ~/.ssh`;
    expect(decision?.hooks[0]?.message).toBe(message);
    expect(lines.filter(isNotification).map((line) => line.event.message)).toStrictEqual([message]);
  });
});

describe('fail_closed reason of a persistent hook after a flood of stderr (spec §4.5, §8)', () => {
  const reason = 'refused: the command reads ~/.ssh';
  it.each([
    [
      'exits',
      `read line; echo '${reason}' >&2; ${DEBUG_LINES}; exit 1`,
      'exit',
      `exited with code 1: ${reason}`,
    ],
    [
      'is killed by a signal',
      `read line; echo '${reason}' >&2; ${DEBUG_LINES}; kill -9 $$`,
      'signal',
      `killed by signal SIGKILL: ${reason}`,
    ],
    [
      'answers a line that is not JSON',
      `while read line; do echo '${reason}' >&2; ${DEBUG_LINES}; echo 'not json'; done`,
      'invalid_output',
      'invalid output: stdout is not JSON: "not json"; a line without this request\'s cosh_request_id answers nothing',
    ],
    [
      'answers a line over 1 MiB',
      `read line; echo '${reason}' >&2; ${DEBUG_LINES}; head -c 1100000 /dev/zero | tr '\\0' a; sleep 5`,
      'output_too_large',
      'answer line exceeded 1 MiB',
    ],
  ])(
    'a hook that %s: block with exactly the first line written since the request',
    async (_what, command, outcome, message) => {
      const registry = defineHooks({
        PreToolUse: [{ name: 'guard', fail_closed: true, persistent: true, timeout: 20_000, command }],
      });
      const lines = await lastValueFrom(
        hookPipeline(
          registry,
          defaultDeps(processExecutor({ killGraceMs: 100 })),
        )(of(pre())).output$.pipe(toArray()),
      );
      const decision = lines.find(isDecision);
      expect(decision).toMatchObject({ decision: 'block', reason, hooks: [{ name: 'guard', outcome }] });
      expect(decision?.hooks[0]?.message).toBe(message);
    },
  );
});
