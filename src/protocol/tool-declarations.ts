import type { HookOutput } from './output.js';
import type { HookResult } from './result.js';
import { isJsonObject, type JsonObject } from '../events/untrusted.js';

/*
 * BeforeModel rewrites of the tool declarations, checked as cosh-core checks them (hook.rs,
 * `validate_updated_tools`): a hook may shorten descriptions and schemas, but a tool renamed,
 * added, dropped or moved would change what the model can call without the user knowing, and a
 * declaration without its `description` (a string) or `parameters` (an object) is no declaration.
 * Such an array is refused: it is taken out of that hook's output, so an earlier hook's valid
 * array stays in the merge (a later array replaces an earlier one, docs/protocol.md), and with none
 * the host keeps its original declarations.
 */

/** The positions of the declarations in `llm_request`: canonical first, then the older one. */
const POSITIONS = [['config', 'tools'], ['tools']] as const;

const at = (root: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (value, key) => (isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined),
    root,
  );

const nameOf = (tool: unknown): string | undefined =>
  isJsonObject(tool) && typeof tool.name === 'string' ? tool.name : undefined;

/** Why `candidate` may not replace `original`; `undefined` when it is the same tool set, in order. */
export const toolRewriteProblem = (original: unknown, candidate: unknown): string | undefined => {
  if (!Array.isArray(candidate)) return 'expected an array of tool declarations';
  if (!Array.isArray(original)) return 'the request declares no tools to rewrite';
  if (candidate.length !== original.length) {
    return `expected ${original.length} tool declarations, got ${candidate.length}`;
  }
  for (const [index, tool] of candidate.entries()) {
    const expected = nameOf(original[index]);
    const got = nameOf(tool);
    if (!isJsonObject(tool)) return `tool ${index}: expected an object`;
    if (expected === undefined)
      return `tool ${index}: the request's declaration has no name to check against`;
    if (got !== expected) {
      return `tool ${index}: expected "${expected}", got ${got === undefined ? 'no name' : `"${got}"`} (tools may not be renamed, added, dropped or reordered)`;
    }
    // cosh-core reads each entry as a declaration (name, description, parameters all required)
    // and refuses the array when one does not read.
    if (typeof tool.description !== 'string') {
      return `tool "${expected}": description must be a string${tool.description === undefined ? ' (missing)' : ''}`;
    }
    if (!isJsonObject(tool.parameters)) {
      return `tool "${expected}": parameters must be an object${tool.parameters === undefined ? ' (missing)' : ''}`;
    }
  }
  return undefined;
};

/** `value` without the key at `path` (and without objects that only held it). */
const without = (value: JsonObject, path: readonly string[]): JsonObject => {
  const [key, ...rest] = path;
  if (key === undefined || !Object.hasOwn(value, key)) return value;
  const child = value[key];
  const entries = Object.entries(value).filter(([name]) => name !== key);
  if (rest.length > 0 && isJsonObject(child)) {
    const inner = without(child, rest);
    if (Object.keys(inner).length > 0) entries.push([key, inner]);
  }
  const result: Record<string, unknown> = {};
  for (const [name, item] of entries) {
    Object.defineProperty(result, name, {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
};

/**
 * A BeforeModel hook's result with each refused tool-declaration array taken out of its
 * `hookSpecificOutput`; the reason goes to the result's `note` (shown as `message` in the
 * decision's `hooks` list). `llmRequest` is the request as the host sent it.
 */
export const checkToolRewrites = (llmRequest: unknown, result: HookResult): HookResult => {
  if (result.outcome !== 'ok') return result;
  const specific = result.output.hookSpecificOutput;
  const rewritten = specific?.['llm_request'];
  if (specific === undefined || !isJsonObject(rewritten)) return result;
  const original = at(llmRequest, ['config', 'tools']) ?? at(llmRequest, ['tools']);
  let request: JsonObject = rewritten;
  const problems: string[] = [];
  for (const position of POSITIONS) {
    const candidate = at(request, position);
    if (candidate === undefined) continue;
    const problem = toolRewriteProblem(at(llmRequest, position) ?? original, candidate);
    if (problem === undefined) continue;
    problems.push(`llm_request.${position.join('.')} refused: ${problem}`);
    request = without(request, position);
  }
  if (problems.length === 0) return result;
  const rest = without(specific, ['llm_request']);
  const hookSpecificOutput = Object.keys(request).length > 0 ? { ...rest, llm_request: request } : rest;
  const output: HookOutput = { ...result.output, hookSpecificOutput };
  return { ...result, output, note: problems.join('; ') };
};
