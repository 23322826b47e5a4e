/**
 * Tool names and tool-input fields of cosh, Claude Code and Gemini CLI (docs/compat.md). Pure.
 *
 * cosh tools carry the Gemini-family names (`run_shell_command`, `read_file`, `write_file`,
 * `replace`, `grep_search`, `glob`, ...) plus cosh-core's short aliases (`shell`, `grep`, `todo`,
 * `edit`). A tool no table knows (an MCP tool `mcp__server__tool`, a host's own tool) keeps its
 * name and its input in every dialect.
 */

type Json = Readonly<Record<string, unknown>>;

/** How one cosh tool looks to a foreign hook: its name there, and input fields renamed (cosh → foreign). */
interface ToolShape {
  readonly name: string;
  /** Foreign field ← the cosh fields it is read from, first present wins. */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
}

const FILE_PATH = { file_path: ['file_path', 'absolute_path', 'path'] } as const;
const SEARCH_PATH = { path: ['path', 'dir_path', 'directory'] } as const;

/** cosh tool name → Claude Code tool (names as in the Claude Code hooks reference). */
const CLAUDE_TOOLS: Readonly<Record<string, ToolShape>> = {
  shell: { name: 'Bash' },
  run_shell_command: { name: 'Bash' },
  read_file: { name: 'Read', fields: FILE_PATH },
  write_file: { name: 'Write', fields: FILE_PATH },
  replace: { name: 'Edit', fields: FILE_PATH },
  edit: { name: 'Edit', fields: FILE_PATH },
  grep: { name: 'Grep', fields: { ...SEARCH_PATH, glob: ['glob', 'include'] } },
  grep_search: { name: 'Grep', fields: { ...SEARCH_PATH, glob: ['glob', 'include'] } },
  glob: { name: 'Glob', fields: SEARCH_PATH },
  list_directory: { name: 'LS', fields: SEARCH_PATH },
  web_fetch: { name: 'WebFetch' },
  google_web_search: { name: 'WebSearch' },
  web_search: { name: 'WebSearch' },
  todo: { name: 'TodoWrite' },
  todo_write: { name: 'TodoWrite' },
  write_todos: { name: 'TodoWrite' },
};

/** cosh tool name → Gemini CLI tool: only cosh-core's short aliases differ. */
const GEMINI_TOOLS: Readonly<Record<string, ToolShape>> = {
  shell: { name: 'run_shell_command' },
  grep: { name: 'grep_search' },
  edit: { name: 'replace' },
  todo: { name: 'write_todos' },
  todo_write: { name: 'write_todos' },
};

export { CLAUDE_TOOL_TO_COSH } from '../registry/tool-names.js';

/** A tool call as a foreign hook sees it, and how to bring a tool input it returns back to cosh. */
export interface ToolCall {
  readonly name: string;
  readonly input: Json;
  /** A tool input in the foreign dialect's field names → the same input in the event's cosh names. */
  readonly back: (input: Json) => Json;
  /**
   * Set when the input names one field twice with different values (`file_path` and
   * `absolute_path`): which one the tool uses depends on the host, so no single value can be shown
   * as the one (docs/compat.md). Says which fields, with their values cut short.
   */
  readonly conflict?: string;
}

/** A value as the conflict message shows it: JSON, at most 60 characters. */
const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

/**
 * The first two names of one field that `input` gives different values, in table order, as
 * `tool_input of "read_file" gives file_path "a" and path "/etc/shadow": the tool uses one of them`.
 * The names of a field are the ones the Claude table reads it from (cosh-core's `path`, the Gemini
 * family's `file_path` / `absolute_path` / `dir_path` / `include`, Claude's own).
 */
export const aliasConflict = (toolName: string, input: Json): string | undefined => {
  const shape = own(CLAUDE_TOOLS, toolName);
  if (shape?.fields === undefined) return undefined;
  for (const names of Object.values(shape.fields)) {
    const present = names.filter((name) => Object.hasOwn(input, name));
    for (let i = 0; i < present.length; i++)
      for (let j = i + 1; j < present.length; j++) {
        const [a, b] = [present[i]!, present[j]!];
        if (!sameValue(input[a], input[b]))
          return `tool_input of ${JSON.stringify(toolName)} gives ${a} ${shown(input[a])} and ${b} ${shown(input[b])}: the tool uses one of them`;
      }
  }
  return undefined;
};

const own = (table: Readonly<Record<string, ToolShape>>, name: string): ToolShape | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;

/** Copies `input` with `renames` (from → to) applied; keys are defined as data, `__proto__` included. */
const renamed = (input: Json, renames: ReadonlyMap<string, string>): Json => {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    Object.defineProperty(out, renames.get(key) ?? key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
};

const translateCall = (
  table: Readonly<Record<string, ToolShape>>,
  toolName: string,
  input: Json,
): ToolCall => {
  const conflict = aliasConflict(toolName, input);
  const shape = own(table, toolName);
  if (shape === undefined)
    return conflict === undefined
      ? { name: toolName, input, back: (given) => given }
      : { name: toolName, input, back: (given) => given, conflict };
  // Each foreign field is read from the first cosh field the event has; that field is the one a
  // returned input is written back to, so the host gets the names it sent.
  const forward = new Map<string, string>();
  for (const [foreign, sources] of Object.entries(shape.fields ?? {})) {
    const source = sources.find((key) => Object.hasOwn(input, key));
    if (source !== undefined && source !== foreign && !Object.hasOwn(input, foreign))
      forward.set(source, foreign);
  }
  const backward = new Map([...forward].map(([cosh, foreign]) => [foreign, cosh]));
  const call = {
    name: shape.name,
    input: forward.size === 0 ? input : renamed(input, forward),
    back: (given: Json) => (backward.size === 0 ? given : renamed(given, backward)),
  };
  return conflict === undefined ? call : { ...call, conflict };
};

/** A cosh tool call as a Claude Code hook expects it (`shell` → `Bash`, `read_file` → `Read` + `file_path`). */
export const claudeToolCall = (toolName: string, input: Json): ToolCall =>
  translateCall(CLAUDE_TOOLS, toolName, input);

/** A cosh tool call as a Gemini CLI hook expects it (`shell` → `run_shell_command`). */
export const geminiToolCall = (toolName: string, input: Json): ToolCall =>
  translateCall(GEMINI_TOOLS, toolName, input);
