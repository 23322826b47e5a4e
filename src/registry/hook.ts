import type { Observable } from 'rxjs';
import type { Decision, EventName } from '../events/names.js';
import type { HookEvent } from '../events/codecs.js';
import type { ToolMatcher } from './matcher.js';
import type { Dialect } from './dialect.js';
import type { RuleSet } from './permission-rules.js';

/** Fields every resolved hook has, whatever runs it. */
export interface HookBase {
  readonly name: string;
  /** `config`, `extension:<name>` or `inline` (in-process function). */
  readonly source: string;
  readonly timeoutMs: number;
  readonly failClosed: boolean;
  /**
   * Whether the hook receives a copy of the event with its secrets redacted (docs/protocol.md).
   * Absent = false: a hook judges the event as the host sent it. `true` is for an observer that
   * ships events elsewhere. Its output is redacted either way.
   */
  readonly redact?: boolean;
  /** Tested against `tool_name` (and its alias) on tool events; absent = every tool (spec §4.1). */
  readonly matcher?: ToolMatcher;
  /** False when turned off by a state file or `[hooks] enabled = false`; kept so `list` can show it. */
  readonly enabled: boolean;
  readonly description?: string;
  /**
   * An observer (docs/audit.md): not part of the chain; it runs after the event's decision is out,
   * with the event and that decision (`cosh_decision`), and its answer changes nothing. Absent = false.
   */
  readonly observe?: boolean;
  /** Whose protocol the hook speaks; absent = `cosh`. Other dialects are translated (docs/compat.md). */
  readonly dialect?: Dialect;
}

/** Where a hook was written: the file, its line when known, and the dotted path of its table. */
export interface HookOrigin {
  readonly file: string;
  readonly line?: number;
  /** `hooks.PreToolUse[0]`, `hooks.PreToolUse[0].hooks[1]`. */
  readonly path?: string;
}

/** A hook run as `/bin/sh -c command` by the executor. */
export interface CommandHook extends HookBase {
  readonly kind: 'command';
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * One long-running process answers every event of this hook, a JSON line in and a line out
   * (spec §8), instead of a process per event.
   */
  readonly persistent: boolean;
  /** Folder of the extension that shipped the hook: `list` shows it, the hook gets `COSH_EXTENSION_PATH`. */
  readonly extensionPath?: string;
  /** Workspace root the hook was loaded for (`COSH_WORKSPACE_PATH`); absent = the host's cwd. */
  readonly workspacePath?: string;
  /** Where it was configured, for problems found after loading (docs/configuration.md). */
  readonly origin?: HookOrigin;
  /**
   * Set on a project-layer hook that is not trusted (then `enabled` is false): why, e.g. `script
   * /w/hook.sh changed since it was trusted` (docs/configuration.md, trust).
   */
  readonly untrusted?: string;
  /**
   * Set on a config-file hook that is never run because its table cannot be (then `enabled` is
   * false): why, e.g. it has no name (docs/configuration.md). Kept so `list` shows it in its place.
   */
  readonly skipped?: string;
  /**
   * A trusted project-layer hook: the scripts its command runs, with the digests trust recorded.
   * The executor digests them again before each start and does not start the hook when one
   * differs (failure `spawn`), so a script replaced while the agent runs is never run as trusted.
   */
  readonly trustedScripts?: readonly { readonly path: string; readonly sha256: string }[];
}

/**
 * The `decision` spellings an in-process hook may return (spec §4.3): `approve` means `allow`,
 * `deny` and `reject` mean `block`; `none`, `""`, `null` or no decision at all mean pass-through.
 * The type lists the lowercase spellings; at run time any letter case is accepted, as from a
 * command hook.
 */
export type HookDecisionSpelling = Decision | 'approve' | 'deny' | 'reject' | '' | null;

/**
 * The answer object of an in-process hook: the fields of a command hook's JSON output (spec §4.3),
 * typed, so that `{ decision: 'maybe' }` or a misspelt field does not compile.
 */
export interface HookAnswer {
  readonly decision?: HookDecisionSpelling | undefined;
  /** Why: given to the model, and the notification text when there is no `systemMessage`. */
  readonly reason?: string | undefined;
  /** Shown to the user. */
  readonly systemMessage?: string | undefined;
  /** `systemMessage` as cosh-core spells it; wins when both are given. */
  readonly system_message?: string | undefined;
  /** Event-specific fields, e.g. `additional_context`; merged along the chain. */
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>> | undefined;
  /** `hookSpecificOutput` as cosh-core spells it; wins when both are given. */
  readonly hook_specific_output?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Read only for a hook of the `claude` or `gemini` dialect, as its agent reads it
   * (`continue: false` stops; docs/compat.md). A `cosh` hook's `continue` is ignored.
   */
  readonly continue?: boolean | undefined;
  /** With `continue: false`, for a `claude` or `gemini` hook: the reason shown. */
  readonly stopReason?: string | undefined;
}

/** One answer of an in-process hook: an answer object, or nothing (pass-through). */
export type HookFunctionValue = HookAnswer | null | undefined | void;

/** What an in-process hook may return: an answer, a Promise of one, or an Observable (first value counts). */
export type HookFunctionResult =
  HookFunctionValue | Promise<HookFunctionValue> | Observable<HookFunctionValue>;

/** An in-process hook: called with the event, answers like a command hook's stdout would. */
export type HookFunction = (event: HookEvent) => HookFunctionResult;

/** A hook that runs in the host process, with the same chain semantics as a command hook. */
export interface FunctionHook extends HookBase {
  readonly kind: 'function';
  readonly run: HookFunction;
}

/**
 * A hook of Claude Code permission rules (docs/configuration.md, Policy): decided in process, on
 * tool events. Deny blocks, ask asks, allow allows; no rule matching is pass-through.
 */
export interface RuleHook extends HookBase {
  readonly kind: 'rule';
  readonly rules: RuleSet;
  /** The answer's reason; absent = one naming the rule. */
  readonly reason?: string;
  readonly systemMessage?: string;
  readonly origin?: HookOrigin;
  /** Set on a project-layer rule hook that is not trusted (then `enabled` is false): why. */
  readonly untrusted?: string;
}

/** A hook a configuration file defines: a command or rules. */
export type ConfiguredHook = CommandHook | RuleHook;

/** A resolved hook, as the registry holds it. */
export type Hook = CommandHook | FunctionHook | RuleHook;

/** Every hook per event, in chain order (spec §4): what config loading produces and the engine consumes. */
export type Registry = Readonly<Record<EventName, readonly Hook[]>>;

/** A hook's timeout when none is configured, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 5000;
