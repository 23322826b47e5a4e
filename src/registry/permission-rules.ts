import { posix } from 'node:path';
import type { RE2JS } from 're2js';
import { err, ok, type Result } from '../result.js';
import { loadRE2, TOOL_NAME_ALIASES } from './matcher.js';
import { loadShellParser, simpleCommands, type SimpleCommand } from './shell-commands.js';
import { CLAUDE_TOOL_TO_COSH } from './tool-names.js';

/*
 * Claude Code permission rules (`Bash(rm -rf:*)`, `Edit(/etc/**)`, `mcp__github__delete_*`) as a
 * rule hook reads them (docs/configuration.md, Policy). Pure: compiled once at load time, then
 * each decision is a few tests on the tool call.
 */

/** The three lists of a rule hook, as written. */
export interface RuleLists {
  readonly deny?: readonly string[] | undefined;
  readonly ask?: readonly string[] | undefined;
  readonly allow?: readonly string[] | undefined;
}

export type RuleKind = 'deny' | 'ask' | 'allow';

/** What a rule hook decided for one tool call: the rule, and what it matched or why it could not look. */
export interface RuleMatch {
  readonly kind: RuleKind;
  /** The rule as written. */
  readonly rule: string;
  /** The simple command, path or host the rule matched; absent for a rule on the tool name only. */
  readonly matched?: string;
  /** Set when the call could not be read (an unparseable command, no path): why. Deny and ask only. */
  readonly unreadable?: string;
}

/** A rule hook's compiled rules: deny, then ask, then allow (no match = pass-through). */
export interface RuleSet {
  readonly lists: {
    readonly deny: readonly string[];
    readonly ask: readonly string[];
    readonly allow: readonly string[];
  };
  /** The rule that decides a call of `toolName` with `input`, in `cwd`; undefined = pass-through. */
  decide(toolName: string, input: Readonly<Record<string, unknown>>, cwd: string): RuleMatch | undefined;
}

/** What a specifier is read against. */
type Subject = 'command' | 'path' | 'domain';

/** Rule tool names whose rules cover more tools (Claude Code: Edit rules apply to every file-editing tool). */
const COVERS: Readonly<Record<string, readonly string[]>> = {
  Edit: ['Edit', 'MultiEdit', 'Write'],
  Read: ['Read', 'Grep', 'Glob', 'LS'],
};
const SUBJECT: Readonly<Record<string, Subject>> = {
  Bash: 'command',
  Read: 'path',
  Edit: 'path',
  Write: 'path',
  MultiEdit: 'path',
  WebFetch: 'domain',
};
/** Fields of a tool input that name its file, in every dialect's spelling. */
const PATH_FIELDS = ['file_path', 'absolute_path', 'path', 'notebook_path', 'dir_path', 'directory'];

const own = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/** The Claude tool a name stands for: itself, or the Claude name of a cosh tool name (`shell` → `Bash`). */
const claudeName = (name: string): string | undefined =>
  own(CLAUDE_TOOL_TO_COSH, name) !== undefined
    ? name
    : Object.keys(CLAUDE_TOOL_TO_COSH).find((claude) => CLAUDE_TOOL_TO_COSH[claude]!.includes(name));

/** Every tool name a rule's tool covers: Claude's names and cosh's, aliases included. */
const toolNames = (tool: string): ReadonlySet<string> => {
  const claude = claudeName(tool);
  if (claude === undefined) return new Set([tool]);
  const covered = own(COVERS, claude) ?? [claude];
  return new Set(covered.flatMap((name) => [name, ...(own(CLAUDE_TOOL_TO_COSH, name) ?? [])]));
};

const RULE = /^([A-Za-z0-9_.*-]+)(?:\((.*)\))?$/s;

const globSource = (glob: string, star: string, doubleStar: string): string =>
  glob
    .split(/(\*\*|\*|\?)/)
    .map((piece) =>
      piece === '**' ? doubleStar : piece === '*' ? star : piece === '?' ? '[^/]' : loadRE2().quote(piece),
    )
    .join('');

/** A compiled rule: which tools, and what its specifier matches. */
interface Rule {
  readonly text: string;
  readonly tool: (toolName: string) => boolean;
  readonly subject?: Subject;
  readonly test?: RE2JS;
  /** A path specifier relative to the event's cwd: the glob, resolved per call. */
  readonly relative?: string;
}

/** Whether `name` (or its alias) is one of `names`. */
const inSet =
  (names: ReadonlySet<string>) =>
  (name: string): boolean => {
    if (names.has(name)) return true;
    const alias = TOOL_NAME_ALIASES.get(name);
    return alias !== undefined && names.has(alias);
  };

/** A `Bash(...)` specifier as a pattern on one simple command's words joined by spaces. */
const commandPattern = (specifier: string): string => {
  const words = specifier.trim().split(/\s+/).join(' ');
  // `cmd:*` (Claude Code's prefix form) and a trailing ` *` match `cmd` alone or with arguments.
  const prefix = words.endsWith(':*')
    ? words.slice(0, -2)
    : words.endsWith(' *')
      ? words.slice(0, -2)
      : undefined;
  const source = (glob: string) => globSource(glob, '.*', '.*');
  return prefix === undefined ? source(words) : `${source(prefix)}(?: .*)?`;
};

/** An absolute path pattern for `specifier`, or undefined when it is relative to the cwd. */
const absolutePath = (specifier: string, home: string): string | undefined => {
  if (specifier.startsWith('//')) return specifier.slice(1);
  if (specifier.startsWith('/')) return specifier;
  if (specifier === '~' || specifier.startsWith('~/')) return posix.join(home, specifier.slice(1));
  return undefined;
};

const pathTest = (pattern: string): RE2JS =>
  loadRE2().compile(`(?s)${globSource(posix.normalize(pattern), '[^/]*', '.*')}`);

/** One rule compiled, or why it is refused. */
const compileRule = (text: string, home: string): Result<Rule> => {
  const parsed = RULE.exec(text.trim());
  if (parsed === null)
    return err(`${JSON.stringify(text)} is not a permission rule (expected Tool or Tool(specifier))`);
  const [, tool = '', specifier] = parsed;
  const tools = tool.includes('*')
    ? (
        (re: RE2JS) => (name: string) =>
          re.matches(name) || re.matches(TOOL_NAME_ALIASES.get(name) ?? '')
      )(loadRE2().compile(globSource(tool, '.*', '.*')))
    : inSet(toolNames(tool));
  if (specifier === undefined || specifier === '*') return ok({ text, tool: tools });
  const subject = own(SUBJECT, claudeName(tool) ?? '');
  if (subject === undefined)
    return err(`${JSON.stringify(text)}: a specifier is read only for Bash, Read, Edit, Write and WebFetch`);
  if (specifier.trim() === '') return err(`${JSON.stringify(text)}: the specifier is empty`);
  if (subject === 'command') {
    loadShellParser();
    return ok({ text, tool: tools, subject, test: loadRE2().compile(`(?s)${commandPattern(specifier)}`) });
  }
  if (subject === 'domain') {
    if (!specifier.startsWith('domain:'))
      return err(`${JSON.stringify(text)}: a WebFetch specifier is domain:<host>`);
    return ok({
      text,
      tool: tools,
      subject,
      test: loadRE2().compile(`(?i)${globSource(specifier.slice(7), '[^.]*', '.*')}`),
    });
  }
  const absolute = absolutePath(specifier, home);
  return absolute === undefined
    ? ok({ text, tool: tools, subject, relative: specifier })
    : ok({ text, tool: tools, subject, test: pathTest(absolute) });
};

/** The texts of a simple command: as written, and with its program's folder dropped (`/bin/rm` → `rm`). */
const commandTexts = (command: SimpleCommand): string[] => {
  const text = command.words.join(' ');
  const [name = '', ...rest] = command.words;
  const bare = name.slice(name.lastIndexOf('/') + 1);
  return bare === name ? [text] : [text, [bare, ...rest].join(' ')];
};

interface Call {
  readonly input: Readonly<Record<string, unknown>>;
  readonly cwd: string;
  commands?: Result<readonly SimpleCommand[]>;
}

const commandsOf = (call: Call): Result<readonly SimpleCommand[]> => {
  if (call.commands !== undefined) return call.commands;
  const command = call.input['command'];
  call.commands =
    typeof command === 'string' ? simpleCommands(command) : err('tool_input has no command string');
  return call.commands;
};

const pathsOf = (call: Call): string[] =>
  PATH_FIELDS.map((field) => call.input[field])
    .filter((value): value is string => typeof value === 'string' && value !== '')
    .map((path) => posix.resolve(call.cwd, path));

const hostOf = (call: Call): string | undefined => {
  const url = call.input['url'];
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
};

/** Whether the specifier matches `text`. */
const specifierMatches = (rule: Rule, text: string, cwd: string): boolean =>
  rule.relative === undefined
    ? rule.test!.matches(text)
    : pathTest(posix.resolve(cwd, rule.relative)).matches(text);

/**
 * How a deny or ask rule meets a call: it matches when any command, path or host matches, and
 * when the call cannot be read (a command that cannot be parsed, a command whose program is an
 * expansion, no path): what cannot be read cannot be proved safe.
 */
const restrictive = (rule: Rule, call: Call): { matched?: string; unreadable?: string } | undefined => {
  if (rule.subject === 'command') {
    const commands = commandsOf(call);
    if (!commands.ok) return { unreadable: `the command could not be parsed: ${commands.error}` };
    for (const command of commands.value) {
      if (!command.known)
        return {
          unreadable: `the program of ${JSON.stringify(command.words.join(' '))} is not known before it runs`,
        };
      const hit = commandTexts(command).find((text) => specifierMatches(rule, text, call.cwd));
      if (hit !== undefined) return { matched: hit };
    }
    return undefined;
  }
  if (rule.subject === 'path') {
    const paths = pathsOf(call);
    if (paths.length === 0) return { unreadable: 'tool_input names no file' };
    const hit = paths.find((path) => specifierMatches(rule, path, call.cwd));
    return hit === undefined ? undefined : { matched: hit };
  }
  if (rule.subject === 'domain') {
    const host = hostOf(call);
    if (host === undefined) return { unreadable: 'tool_input has no URL with a host' };
    return rule.test!.matches(host) ? { matched: host } : undefined;
  }
  return {};
};

/**
 * Whether allow rules cover a call: every simple command, every path, the host, each matched by
 * one of them; nothing unreadable. The first rule that matched is named.
 */
const allowed = (rules: readonly Rule[], call: Call): RuleMatch | undefined => {
  const rule = rules.find((one) => one.subject === undefined);
  if (rule !== undefined) return { kind: 'allow', rule: rule.text };
  const subject = rules[0]?.subject;
  let texts: string[];
  if (subject === 'command') {
    const commands = commandsOf(call);
    if (!commands.ok || commands.value.length === 0 || commands.value.some((one) => !one.known))
      return undefined;
    texts = commands.value.map((command) => command.words.join(' '));
  } else if (subject === 'path') texts = pathsOf(call);
  else {
    const host = hostOf(call);
    texts = host === undefined ? [] : [host];
  }
  if (texts.length === 0) return undefined;
  let first: Rule | undefined;
  for (const text of texts) {
    const hit = rules.find((one) => specifierMatches(one, text, call.cwd));
    if (hit === undefined) return undefined;
    first ??= hit;
  }
  return first === undefined ? undefined : { kind: 'allow', rule: first.text, matched: texts.join(' ; ') };
};

/**
 * Compiles a rule hook's lists at load time (RE2 patterns, the shell parser loaded when a
 * `Bash(...)` rule is there); each rule that cannot be read is a problem. `home` is what `~/`
 * stands for in path rules.
 */
export const compileRules = (lists: RuleLists, home: string): Result<RuleSet, readonly string[]> => {
  const problems: string[] = [];
  const compiled = (kind: RuleKind): Rule[] =>
    (lists[kind] ?? []).flatMap((text) => {
      const rule = compileRule(text, home);
      if (rule.ok) return [rule.value];
      problems.push(`${kind}: ${rule.error}`);
      return [];
    });
  const deny = compiled('deny');
  const ask = compiled('ask');
  const allow = compiled('allow');
  if (deny.length + ask.length + allow.length === 0 && problems.length === 0)
    problems.push('a rule hook needs at least one rule in deny, ask or allow');
  if (problems.length > 0) return err(problems);
  const restricting = (kind: 'deny' | 'ask', rules: readonly Rule[], call: Call, toolName: string) => {
    for (const rule of rules) {
      if (!rule.tool(toolName)) continue;
      const hit = restrictive(rule, call);
      if (hit !== undefined) return { kind, rule: rule.text, ...hit };
    }
    return undefined;
  };
  return ok({
    lists: { deny: lists.deny ?? [], ask: lists.ask ?? [], allow: lists.allow ?? [] },
    decide: (toolName, input, cwd) => {
      const call: Call = { input, cwd };
      // Allow rules on one tool read one subject (the command, the path or the host).
      const allowing = allow.filter((rule) => rule.tool(toolName));
      return (
        restricting('deny', deny, call, toolName) ??
        restricting('ask', ask, call, toolName) ??
        (allowing.length === 0 ? undefined : allowed(allowing, call))
      );
    },
  });
};
