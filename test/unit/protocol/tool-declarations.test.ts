import { describe, expect, it } from 'vitest';
import { success } from '../../../src/protocol/result.js';
import { deepMerge } from '../../../src/protocol/merge.js';
import { checkToolRewrites, toolRewriteProblem } from '../../../src/protocol/tool-declarations.js';

const shell = {
  name: 'shell',
  description: 'run a shell command',
  parameters: { type: 'object', properties: { command: { type: 'string' } } },
};
const read = { name: 'read_file', description: 'read a file', parameters: { type: 'object' } };
const short = (tool: typeof shell | typeof read) => ({ ...tool, description: 'x' });

describe('toolRewriteProblem (cosh-core validate_updated_tools)', () => {
  it('accepts the same tools, in order, with shorter descriptions and schemas', () => {
    expect(
      toolRewriteProblem(
        [shell, read],
        [short(shell), { name: 'read_file', description: '', parameters: {} }],
      ),
    ).toBeUndefined();
  });

  it.each([
    ['not an array', { tools: [] }, 'expected an array of tool declarations'],
    [
      'renamed',
      [{ ...shell, name: 'sh' }, read],
      'tool 0: expected "shell", got "sh" (tools may not be renamed, added, dropped or reordered)',
    ],
    [
      'reordered',
      [read, shell],
      'tool 0: expected "shell", got "read_file" (tools may not be renamed, added, dropped or reordered)',
    ],
    ['added', [shell, read, { name: 'extra' }], 'expected 2 tool declarations, got 3'],
    ['dropped', [shell], 'expected 2 tool declarations, got 1'],
    ['emptied', [], 'expected 2 tool declarations, got 0'],
    ['entry not an object', ['shell', read], 'tool 0: expected an object'],
    [
      'entry without a name',
      [{ description: 'x' }, read],
      'tool 0: expected "shell", got no name (tools may not be renamed, added, dropped or reordered)',
    ],
    [
      'parameters no longer an object',
      [{ ...shell, parameters: 'object' }, read],
      'tool "shell": parameters must be an object',
    ],
    // cosh-core reads every entry as a full declaration: a missing description refuses the array.
    [
      'a declaration without description',
      [{ name: 'shell', parameters: {} }, read],
      'tool "shell": description must be a string (missing)',
    ],
    [
      'a description that is not a string',
      [{ ...shell, description: null }, read],
      'tool "shell": description must be a string',
    ],
    [
      'a declaration without parameters',
      [shell, { name: 'read_file', description: 'r' }],
      'tool "read_file": parameters must be an object (missing)',
    ],
  ])('refuses %s', (_name, candidate, problem) => {
    expect(toolRewriteProblem([shell, read], candidate)).toBe(problem);
  });

  it('refuses tools where the request declared none', () => {
    expect(toolRewriteProblem(undefined, [shell])).toBe('the request declares no tools to rewrite');
  });
});

describe('checkToolRewrites', () => {
  const request = { model: 'm', config: { tools: [shell, read] } };

  it('keeps a valid rewrite and everything else the hook returned', () => {
    const result = success({
      decision: 'none',
      hookSpecificOutput: { llm_request: { config: { tools: [short(shell), read] } }, note: 1 },
    });
    expect(checkToolRewrites(request, result)).toBe(result);
  });

  it('takes a refused array out of the output, keeps the rest, and says why in the note', () => {
    const result = success({
      decision: 'none',
      hookSpecificOutput: {
        llm_request: { config: { tools: [shell], temperature: 0 }, tools: [shell, read] },
        other: true,
      },
    });
    expect(checkToolRewrites(request, result)).toEqual({
      outcome: 'ok',
      output: {
        decision: 'none',
        hookSpecificOutput: {
          other: true,
          llm_request: { config: { temperature: 0 }, tools: [shell, read] },
        },
      },
      note: 'llm_request.config.tools refused: expected 2 tool declarations, got 1',
    });
  });

  it('removes llm_request entirely when the refused array was all it held', () => {
    const result = success({
      decision: 'none',
      hookSpecificOutput: { llm_request: { tools: [read, shell] } },
    });
    expect(checkToolRewrites(request, result)).toEqual({
      outcome: 'ok',
      output: { decision: 'none', hookSpecificOutput: {} },
      note: 'llm_request.tools refused: tool 0: expected "shell", got "read_file" (tools may not be renamed, added, dropped or reordered)',
    });
  });
});

describe('checkToolRewrites then the merge: what the host receives (cosh-core: the last valid array wins)', () => {
  const request = { model: 'm', config: { tools: [shell, read] } };
  const answer = (tools: unknown[]) =>
    checkToolRewrites(
      request,
      success({ decision: 'none', hookSpecificOutput: { llm_request: { config: { tools } } } }),
    );
  const merged = (...answers: ReturnType<typeof answer>[]) =>
    answers.reduce<Record<string, unknown>>(
      (sum, result) =>
        result.outcome === 'ok' ? deepMerge(sum, result.output.hookSpecificOutput ?? {}) : sum,
      {},
    );

  it('an earlier valid array stays when a later one lacks a description', () => {
    const first = answer([short(shell), short(read)]);
    const second = answer([{ name: 'shell', parameters: {} }, short(read)]);
    expect(second.outcome === 'ok' && second.note).toBe(
      'llm_request.config.tools refused: tool "shell": description must be a string (missing)',
    );
    expect(merged(first, second)).toStrictEqual({
      llm_request: { config: { tools: [short(shell), short(read)] } },
    });
  });

  it('with no valid array, nothing of llm_request reaches the host: it keeps its original declarations', () => {
    expect(merged(answer([{ name: 'shell', parameters: {} }, read]))).toStrictEqual({});
  });
});
