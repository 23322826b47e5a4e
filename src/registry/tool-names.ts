/** Claude Code's tool names and the cosh tools they stand for (docs/compat.md). Pure. */

/** Claude Code tool name → the cosh tool names it stands for (matchers of imported hooks). */
export const CLAUDE_TOOL_TO_COSH: Readonly<Record<string, readonly string[]>> = {
  Bash: ['shell', 'run_shell_command'],
  Read: ['read_file'],
  Write: ['write_file'],
  Edit: ['replace', 'edit'],
  MultiEdit: ['replace', 'edit'],
  Grep: ['grep', 'grep_search'],
  Glob: ['glob'],
  LS: ['list_directory'],
  WebFetch: ['web_fetch'],
  WebSearch: ['google_web_search', 'web_search'],
  TodoWrite: ['todo', 'todo_write', 'write_todos'],
};
