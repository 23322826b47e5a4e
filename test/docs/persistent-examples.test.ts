// The persistent hooks of docs/recipes.md, run as they are shipped in examples/hooks/: the page
// must show the files verbatim, and the files must answer as the page says, from one process.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defaultDeps, defineHooks, hookPipeline, type EventInput, type HookDecision } from 'cosh-hooks';
import { allProcesses, waitFor } from '../../bench/procfs.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/hooks/${name}`, import.meta.url));
const recipes = readFileSync(fileURLToPath(new URL('../../docs/recipes.md', import.meta.url)), 'utf8');

const shell = (id: string, command: string): EventInput => ({
  hook_event_name: 'PreToolUse' as const,
  session_id: 's1',
  tool_use_id: id,
  tool_name: 'shell',
  tool_input: { command },
});

/** Processes running `file` (the examples are run directly: their command line names them). */
const running = (file: string) =>
  allProcesses().filter((stat) => {
    try {
      return stat.state !== 'Z' && readFileSync(`/proc/${stat.pid}/cmdline`, 'utf8').includes(file);
    } catch {
      return false;
    }
  });

describe.each([
  ['persistent-guard.py', 'python3'],
  ['persistent-guard.mjs', 'node'],
])('examples/hooks/%s', (name, interpreter) => {
  it('is shown verbatim in docs/recipes.md', () => {
    expect(recipes).toContain(readFileSync(example(name), 'utf8'));
  });

  it('echoes each request id, as the by-hand run in docs/recipes.md shows', () => {
    const input =
      '{"tool_input":{"command":"rm -rf /"},"cosh_request_id":"r1"}\n' +
      '{"tool_input":{"command":"ls"},"cosh_request_id":"r2"}\n';
    const lines = execFileSync(interpreter, [example(name)], { input, encoding: 'utf8' })
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      {
        decision: 'block',
        reason: 'Dangerous command',
        systemMessage: 'Blocked by policy',
        cosh_request_id: 'r1',
      },
      { cosh_request_id: 'r2' },
    ]);
  });

  it('answers block, ask and pass-through from one process, gone after the run', async () => {
    const file = example(name);
    const registry = defineHooks({
      PreToolUse: [{ name: 'guard', command: `${interpreter} ${file}`, persistent: true, fail_closed: true }],
    });
    const input = new Subject<EventInput>();
    const decisions: HookDecision[] = [];
    const pids: number[][] = [];
    let answered: () => void = () => undefined;
    const { decisions$ } = hookPipeline(registry, defaultDeps())(input);
    decisions$.subscribe((decision) => {
      decisions.push(decision);
      pids.push(running(file).map((stat) => stat.pid));
      answered();
    });
    for (const [id, command] of [
      ['t1', 'rm -rf /'],
      ['t2', 'git push --force origin main'],
      ['t3', 'ls -la'],
      ['t4', 'mkfs.ext4 /dev/sda1'],
    ] as const) {
      const done = new Promise<void>((resolve) => (answered = resolve));
      input.next(shell(id, command));
      await done;
    }
    input.complete();
    expect(decisions.map((d) => [d.tool_use_id, d.decision, d.reason ?? null, d.hooks[0]?.outcome])).toEqual([
      ['t1', 'block', 'Dangerous command', 'ok'],
      ['t2', 'ask', 'A force-push rewrites shared history', 'ok'],
      ['t3', 'none', null, 'ok'],
      ['t4', 'block', 'Dangerous command', 'ok'],
    ]);
    // One process answered all four events.
    expect(new Set(pids.flat()).size).toBe(1);
    expect(pids.map((list) => list.length)).toEqual([1, 1, 1, 1]);
    // The run ended with the input: the process got EOF and exits (or is killed after 500 ms).
    expect(await waitFor(() => running(file).length === 0, 5000)).toBe(true);
  });
});
