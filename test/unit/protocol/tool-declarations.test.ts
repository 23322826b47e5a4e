import { describe, expect, it } from 'vitest';
import { success } from '../../../src/protocol/result.js';
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
      toolRewriteProblem([shell, read], [short(shell), { name: 'read_file', parameters: {} }]),
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
      'tool "shell": parameters must stay an object',
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
