import { MATCHED_EVENTS, TOOL_EVENTS, type EventName } from '../events/names.js';
import { parseJson } from '../events/untrusted.js';
import type { ForeignDialect } from '../registry/dialect.js';
import {
  coshEventsOf,
  defaultTimeoutMs,
  mapMatcher,
  nameFor,
  timeoutMsOf,
  unmappedEventMessage,
} from '../dialects/import.js';
import { isRecord, MAX_TIMEOUT_MS } from './codecs.js';
import { jsonLocations, problemLocator } from './locate.js';
import type { ConfigProblem, Issue, Segment } from './problems.js';
import { unspawnableArgument } from '../registry/spawnable.js';

/**
 * Hook settings of Claude Code (`settings.json`, a plugin's `hooks/hooks.json`) and Gemini CLI
 * (`settings.json`, an extension's `hooks/hooks.json`) read as cosh hooks (docs/compat.md). Pure:
 * `file` only names the source in problems. The documents are untrusted: only their known shape
 * is walked (no recursion), every string is kept as data, and a problem names the field.
 */

/** One hook of another agent's settings, in cosh's terms. */
export interface ForeignHook {
  /** The cosh event it runs on. */
  readonly event: EventName;
  /** Its own name, or one made from its command. */
  readonly name: string;
  /** As written: variables such as `${CLAUDE_PLUGIN_ROOT}` are left to the caller. */
  readonly command: string;
  /** Milliseconds. */
  readonly timeout: number;
  /** A cosh matcher (names mapped); absent = every tool. */
  readonly matcher?: string;
  readonly description?: string;
  readonly dialect: ForeignDialect;
  /** Claude Code's `onFailure: "block"`: the guard blocks when it cannot answer. */
  readonly failClosed?: true;
}

export interface DecodedForeign {
  readonly hooks: readonly ForeignHook[];
  /** Hooks refused (each with a warning saying why): a condition that cannot be honoured. */
  readonly refused?: number;
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

/** The size a settings file may have; the config file and manifests have the same bound. */
export const MAX_FOREIGN_BYTES = 4 * 1024 * 1024;

/** Keys of Gemini's `hooks` object that configure hooks rather than name an event. */
const GEMINI_SETTING_KEYS = new Set(['enabled', 'disabled', 'notifications']);

/** Hook types that are not a command: they need the agent's own model or transport. */
const typeWhy = (type: string): string =>
  type === 'prompt' || type === 'agent'
    ? "it asks the agent's model, which cosh-hooks does not have"
    : type === 'http'
      ? 'cosh-hooks runs commands only'
      : 'only "command" hooks run';

const describe = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'string'
        ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
        : typeof value === 'object'
          ? 'an object'
          : String(value);

class ForeignWalk {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  readonly hooks: ForeignHook[] = [];
  refused = 0;
  private readonly names = new Set<string>();

  constructor(
    private readonly dialect: ForeignDialect,
    private readonly disabled: ReadonlySet<string>,
  ) {}

  expected(at: readonly Segment[], what: string, value: unknown): void {
    this.errors.push({ path: at, message: `expected ${what}, got ${describe(value)}` });
  }

  event(event: string, groups: unknown, at: readonly Segment[]): void {
    const targets = coshEventsOf(this.dialect, event);
    if (targets.length === 0) {
      this.warnings.push({ path: at, message: unmappedEventMessage(this.dialect, event) });
      return;
    }
    if (!Array.isArray(groups)) {
      this.expected(at, 'an array of hook groups', groups);
      return;
    }
    groups.forEach((group: unknown, index) => this.group(event, targets, group, [...at, index]));
  }

  group(event: string, targets: readonly EventName[], group: unknown, at: readonly Segment[]): void {
    if (!isRecord(group)) {
      this.expected(at, 'an object', group);
      return;
    }
    const matcher = group['matcher'];
    if (matcher !== undefined && typeof matcher !== 'string') {
      this.expected([...at, 'matcher'], 'a string', matcher);
      return;
    }
    const onTools = targets.some((target) => TOOL_EVENTS.includes(target));
    const onMatched = targets.some((target) => MATCHED_EVENTS.includes(target));
    const mapped = mapMatcher(this.dialect, matcher, { tools: onTools, event });
    if (mapped.warning !== undefined)
      this.warnings.push({ path: [...at, 'matcher'], message: mapped.warning });
    if (mapped.matcher !== undefined && !onMatched) {
      this.warnings.push({
        path: [...at, 'matcher'],
        message: `ignored: cosh runs ${event} hooks on every ${event} event (the matcher filters by source or trigger there)`,
      });
    }
    const hooks = group['hooks'];
    if (!Array.isArray(hooks)) {
      this.expected([...at, 'hooks'], 'an array of hooks', hooks);
      return;
    }
    hooks.forEach((entry: unknown, index) =>
      this.entry(event, targets, onMatched ? mapped.matcher : undefined, entry, [...at, 'hooks', index]),
    );
  }

  entry(
    event: string,
    targets: readonly EventName[],
    matcher: string | undefined,
    entry: unknown,
    at: readonly Segment[],
  ): void {
    if (!isRecord(entry)) {
      this.expected(at, 'an object', entry);
      return;
    }
    const { type, command, timeout, name, description } = entry;
    if (type !== undefined && type !== 'command') {
      if (typeof type !== 'string') this.expected([...at, 'type'], 'a string', type);
      else
        this.warnings.push({
          path: [...at, 'type'],
          message: `skipped: a "${type}" hook cannot run here (${typeWhy(type)})`,
        });
      return;
    }
    const problems = this.errors.length;
    if (typeof command !== 'string' || command.trim() === '')
      this.expected([...at, 'command'], 'a non-empty string', command);
    else {
      // A command no process can be given would never start: an error, as in config.toml.
      const unspawnable = unspawnableArgument(command);
      if (unspawnable !== undefined) this.errors.push({ path: [...at, 'command'], message: unspawnable });
    }
    if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0))
      this.expected(
        [...at, 'timeout'],
        this.dialect === 'claude' ? 'a positive number of seconds' : 'a positive number of milliseconds',
        timeout,
      );
    if (name !== undefined && typeof name !== 'string') this.expected([...at, 'name'], 'a string', name);
    if (description !== undefined && typeof description !== 'string')
      this.expected([...at, 'description'], 'a string', description);
    const rule = this.dialect === 'claude' ? entry['if'] : undefined;
    if (rule !== undefined && typeof rule !== 'string') this.expected([...at, 'if'], 'a string', rule);
    if (this.errors.length > problems || typeof command !== 'string') return;
    // Claude's "if" (permission-rule syntax, "Bash(git *)") filters by the tool call's arguments,
    // which a cosh matcher cannot; Claude Code never runs such a hook on a non-tool event.
    if (typeof rule === 'string') {
      if (!targets.some((target) => TOOL_EVENTS.includes(target))) {
        this.warnings.push({
          path: [...at, 'if'],
          message: `skipped: Claude Code never runs a hook with "if" on ${event}`,
        });
        return;
      }
      // Never run with the condition dropped: a hook that decides without checking the call
      // itself would then decide for every call its matcher selects.
      this.warnings.push({
        path: [...at, 'if'],
        message: `refused: cosh-hooks cannot honour a permission-rule condition (${JSON.stringify(rule)}), and without it the hook would run on every call its matcher selects; not imported (write the condition into the hook's own command)`,
      });
      this.refused += 1;
      return;
    }
    const failClosed =
      this.dialect === 'claude' ? this.onFailure(entry['onFailure'], [...at, 'onFailure']) : false;

    const given = typeof name === 'string' && name.trim() !== '' ? name : undefined;
    if (this.disabled.has(given ?? command)) {
      this.warnings.push({
        path: at,
        message: `skipped: "${given ?? command}" is in the disabled list of this file`,
      });
      return;
    }
    if (this.dialect === 'claude' && entry['async'] === true)
      this.warnings.push({
        path: [...at, 'async'],
        message:
          "runs in the chain here, not in the background (cosh-hooks has no background hooks): the agent waits for it, up to its timeout, and its decision counts, where Claude Code ignores an async hook's decision",
      });
    let ms =
      timeout === undefined
        ? defaultTimeoutMs(this.dialect, event)
        : timeoutMsOf(this.dialect, timeout as number);
    if (ms > MAX_TIMEOUT_MS) {
      this.warnings.push({
        path: [...at, 'timeout'],
        message: `${ms} ms is over cosh's limit; ${MAX_TIMEOUT_MS} ms is used`,
      });
      ms = MAX_TIMEOUT_MS;
    }
    ms = Math.max(1, ms);
    const hookName = this.unique(
      given ?? nameFor(this.dialect, event, matcher, command),
      given !== undefined,
    );
    for (const target of targets) {
      this.hooks.push({
        event: target,
        name: hookName,
        command,
        timeout: ms,
        ...(matcher !== undefined && { matcher }),
        ...(typeof description === 'string' && { description }),
        dialect: this.dialect,
        ...(failClosed && { failClosed: true as const }),
      });
    }
  }

  /**
   * Claude Code's `onFailure` (2.1.295+): `"block"` makes the hook fail closed. A value it does not
   * know is read as `"block"` with a warning: a guard is never weakened by a word we cannot read.
   */
  onFailure(value: unknown, at: readonly Segment[]): boolean {
    if (value === undefined) return false;
    if (value === 'block') return true;
    if (value === 'continue' || value === 'allow' || value === 'ignore') return false;
    this.warnings.push({
      path: at,
      message: `unknown value ${describe(value)} (Claude Code knows "block"): read as "block", so the guard stays fail_closed`,
    });
    return true;
  }

  /** Made-up names get `-2`, `-3` when the same hook is listed twice; given names are kept. */
  private unique(name: string, given: boolean): string {
    let candidate = name;
    for (let n = 2; !given && this.names.has(candidate); n += 1) candidate = `${name}-${n}`;
    this.names.add(candidate);
    return candidate;
  }
}

const namesOf = (value: unknown): ReadonlySet<string> =>
  new Set(Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/**
 * Reads a Claude Code or Gemini CLI settings file, or a plugin / extension `hooks/hooks.json`
 * (same `hooks` shape), as cosh hooks. Events with no cosh counterpart, hooks of other types and
 * ignored matchers are warnings; a hook whose own fields are wrong is an error naming the field,
 * and the other hooks are still read. `disableAllHooks` (Claude) and `enabled: false` (Gemini)
 * are honoured, with a warning.
 */
export const decodeForeignText = (text: string, file: string, dialect: ForeignDialect): DecodedForeign => {
  if (text.length > MAX_FOREIGN_BYTES)
    return {
      hooks: [],
      errors: [{ file, message: `file is larger than ${MAX_FOREIGN_BYTES} bytes` }],
      warnings: [],
    };
  const parsed = parseJson(text);
  if (!parsed.ok)
    return { hooks: [], errors: [{ file, message: `invalid JSON: ${parsed.error}` }], warnings: [] };
  const document = parsed.value;
  const locate = problemLocator(file, () => jsonLocations(text));
  if (!isRecord(document))
    return {
      hooks: [],
      errors: [{ file, message: `expected a JSON object, got ${describe(document)}` }],
      warnings: [],
    };
  const section = document['hooks'];
  if (section === undefined)
    return {
      hooks: [],
      errors: [],
      warnings: [locate({ path: [], message: 'no "hooks" object: nothing to import' })],
    };
  if (!isRecord(section))
    return {
      hooks: [],
      errors: [
        locate({
          path: ['hooks'],
          message: `expected an object keyed by event name, got ${describe(section)}`,
        }),
      ],
      warnings: [],
    };

  const settings = isRecord(document['hooksConfig']) ? document['hooksConfig'] : section;
  const off =
    (dialect === 'claude' && document['disableAllHooks'] === true) ||
    (dialect === 'gemini' && settings['enabled'] === false);
  if (off) {
    const key = dialect === 'claude' ? 'disableAllHooks' : 'enabled';
    return {
      hooks: [],
      errors: [],
      warnings: [
        locate({
          path: dialect === 'claude' ? [key] : ['hooks', key],
          message: 'hooks are turned off in this file; none are loaded',
        }),
      ],
    };
  }
  const walk = new ForeignWalk(dialect, dialect === 'gemini' ? namesOf(settings['disabled']) : new Set());
  for (const [event, groups] of Object.entries(section)) {
    if (dialect === 'gemini' && GEMINI_SETTING_KEYS.has(event)) continue;
    walk.event(event, groups, ['hooks', event]);
  }
  return {
    hooks: walk.hooks,
    ...(walk.refused > 0 && { refused: walk.refused }),
    errors: walk.errors.map(locate),
    warnings: walk.warnings.map(locate),
  };
};
