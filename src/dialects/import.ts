import { createHash } from 'node:crypto';
import type { EventName } from '../events/names.js';
import type { ForeignDialect } from '../registry/dialect.js';
import { CLAUDE_TOOL_TO_COSH } from './tools.js';

/**
 * How another agent's hook settings become cosh hooks (docs/compat.md): event names, matchers,
 * timeouts and names. Pure.
 */

/** Claude Code event → the cosh events its hooks run on; events not listed have no counterpart. */
const CLAUDE_EVENTS: Readonly<Record<string, readonly EventName[]>> = {
  PreToolUse: ['PreToolUse'],
  PostToolUse: ['PostToolUse'],
  PostToolUseFailure: ['PostToolUseFailure'],
  UserPromptSubmit: ['UserPromptSubmit'],
  SessionStart: ['SessionStart'],
  Stop: ['Stop'],
  SessionEnd: ['SessionEnd'],
  Notification: ['Notification'],
  PreCompact: ['PreCompact'],
  SubagentStart: ['SubagentStart'],
  SubagentStop: ['SubagentStop'],
};

/** Gemini CLI event → cosh events. Gemini's AfterTool also fires for a tool that failed. */
const GEMINI_EVENTS: Readonly<Record<string, readonly EventName[]>> = {
  BeforeTool: ['PreToolUse'],
  AfterTool: ['PostToolUse', 'PostToolUseFailure'],
  BeforeAgent: ['UserPromptSubmit'],
  AfterAgent: ['Stop'],
  SessionStart: ['SessionStart'],
  BeforeModel: ['BeforeModel'],
  AfterModel: ['AfterModel'],
  SessionEnd: ['SessionEnd'],
  Notification: ['Notification'],
  PreCompress: ['PreCompact'],
};

/** Why a foreign event cannot run here, for the warning that names it. */
const UNMAPPED_WHY: Readonly<Record<string, string>> = {
  PermissionRequest: 'cosh has no permission-dialog event (PreToolUse "ask" is the closest)',
  PermissionDenied: 'cosh has no permission-denied event',
  BeforeToolSelection: 'cosh has no tool-selection event',
};

/** The cosh events a foreign event maps to; empty when it has no counterpart. */
export const coshEventsOf = (dialect: ForeignDialect, event: string): readonly EventName[] => {
  const table = dialect === 'claude' ? CLAUDE_EVENTS : GEMINI_EVENTS;
  return Object.hasOwn(table, event) ? (table[event] ?? []) : [];
};

/** The warning text for an event with no cosh counterpart. */
export const unmappedEventMessage = (dialect: ForeignDialect, event: string): string => {
  const why = Object.hasOwn(UNMAPPED_WHY, event) ? UNMAPPED_WHY[event] : 'cosh has no such event';
  const agent = dialect === 'claude' ? 'Claude Code' : 'Gemini CLI';
  return `${agent} event "${event}" has no cosh counterpart (${why ?? ''}); its hooks are skipped`;
};

/**
 * A list of exact tool names, as Claude Code reads a matcher made only of letters, digits, `_`,
 * `-`, spaces, `,` and `|`: `Bash`, `Edit|Write`, `Edit, Write`, `mcp__github__create_issue`.
 * Names are separated by `|` or `,`, with optional spaces around them.
 */
const NAME_LIST = /^ *[A-Za-z0-9_-]+(?: *[|,] *[A-Za-z0-9_-]+)* *$/;

export interface MappedMatcher {
  /** The cosh matcher; absent = every tool. */
  readonly matcher?: string;
  /** Set when the matcher could only be copied as is. */
  readonly warning?: string;
}

const escapeRegex = (name: string): string => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/** Gemini CLI's notification types → the `notification_type` cosh hosts send (Claude Code's). */
const COSH_NOTIFICATION_TYPE_OF: Readonly<Record<string, string>> = { ToolPermission: 'permission_prompt' };

/**
 * A matcher on an event where it filters another field than the tool name (docs/protocol.md):
 * Claude Code reads a plain list of names exactly and anything else as a regular expression, with
 * no tool names to translate; Gemini CLI matches its lifecycle events by exact string.
 */
const mapFieldMatcher = (dialect: ForeignDialect, matcher: string, foreignEvent: string): MappedMatcher => {
  if (dialect === 'gemini') {
    const value =
      foreignEvent === 'Notification' && Object.hasOwn(COSH_NOTIFICATION_TYPE_OF, matcher)
        ? (COSH_NOTIFICATION_TYPE_OF[matcher] ?? matcher)
        : matcher;
    return { matcher: `^${escapeRegex(value)}$` };
  }
  if (!NAME_LIST.test(matcher)) return { matcher };
  const names = [...new Set(matcher.split(/[|,]/).map((name) => name.trim()))];
  return { matcher: `^(${names.map(escapeRegex).join('|')})$` };
};

/**
 * A foreign tool matcher in cosh's terms. `*`, `""` and no matcher match every tool. Claude Code
 * matches a plain list of names exactly (`Edit|Write`, `Edit, Write`); it becomes an anchored alternation of the
 * cosh names each stands for (`Bash` → `^(shell|run_shell_command)$`), an RE2-compatible pattern.
 * Gemini CLI tools already carry cosh's names, so its (regular expression) matchers are kept.
 * A Claude regular expression (`Notebook.*`) is kept too, with a warning when it names a Claude
 * tool whose cosh name differs. On events whose matcher filters another field (`on.tools` false:
 * notification type, compaction trigger, agent type, session-end reason) no tool name is translated.
 */
export const mapMatcher = (
  dialect: ForeignDialect,
  matcher: string | undefined,
  on: { readonly tools: boolean; readonly event: string } = { tools: true, event: '' },
): MappedMatcher => {
  if (matcher === undefined || matcher === '' || matcher === '*') return {};
  if (!on.tools) return mapFieldMatcher(dialect, matcher, on.event);
  if (dialect === 'gemini') return { matcher };
  if (NAME_LIST.test(matcher)) {
    const names = matcher
      .split(/[|,]/)
      .map((name) => name.trim())
      .flatMap((name) =>
        Object.hasOwn(CLAUDE_TOOL_TO_COSH, name) ? (CLAUDE_TOOL_TO_COSH[name] ?? []) : [name],
      );
    const unique = [...new Set(names)];
    return { matcher: `^(${unique.map(escapeRegex).join('|')})$` };
  }
  const named = Object.keys(CLAUDE_TOOL_TO_COSH).filter((name) => matcher.includes(name));
  return named.length === 0
    ? { matcher }
    : {
        matcher,
        warning: `regular expression kept as is: it names Claude tools (${named.join(', ')}) that cosh calls ${named
          .map((name) => (CLAUDE_TOOL_TO_COSH[name] ?? []).join('/'))
          .join(', ')}; rewrite it with cosh tool names`,
      };
};

/**
 * The timeout, in milliseconds, of a hook whose settings give none: what its own agent uses.
 * Claude Code: 600 s for command hooks, lowered to 30 s on `UserPromptSubmit` (hooks reference,
 * common fields); Gemini CLI: 60 000 ms (hooks reference, hook configuration). `event` is the
 * agent's own event name.
 */
export const defaultTimeoutMs = (dialect: ForeignDialect, event: string): number =>
  dialect === 'gemini' ? 60_000 : event === 'UserPromptSubmit' ? 30_000 : 600_000;

/** Claude Code gives `timeout` in seconds, Gemini CLI in milliseconds. */
export const timeoutMsOf = (dialect: ForeignDialect, timeout: number): number =>
  dialect === 'claude' ? Math.round(timeout * 1000) : Math.round(timeout);

/** The word of a command that names it best: the script or program, without its folder. */
const commandWord = (command: string): string => {
  const words = command
    .replace(/["']/g, '')
    .split(/\s+/)
    .filter((word) => word !== '');
  const program =
    words.find((word) => !/^(?:[A-Za-z_][A-Za-z0-9_]*=|-)/.test(word) && !RUNNERS.has(word)) ??
    words[0] ??
    '';
  const base =
    program
      .split('/')
      .filter((part) => part !== '')
      .pop() ?? '';
  const slug = base
    .replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return (slug === '' ? 'hook' : slug).slice(0, 40);
};

/** Programs that run the script named next: the script names the hook better. */
const RUNNERS = new Set([
  'sh',
  'bash',
  'zsh',
  'node',
  'python',
  'python3',
  'npx',
  'uv',
  'bun',
  'deno',
  'exec',
  'env',
]);

/**
 * A name for a hook that has none (neither agent requires one): the command's program or script
 * plus a short hash of the dialect, event, matcher and command. Stable across imports of the same
 * file, different for different hooks; `claude-bash-validator.sh-1a2b3c4d`.
 */
export const nameFor = (
  dialect: ForeignDialect,
  event: string,
  matcher: string | undefined,
  command: string,
): string => {
  const hash = createHash('sha256')
    .update(JSON.stringify([dialect, event, matcher ?? '', command]))
    .digest('hex')
    .slice(0, 8);
  return `${dialect}-${commandWord(command)}-${hash}`;
};
