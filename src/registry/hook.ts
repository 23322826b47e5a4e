import type { Observable } from 'rxjs';
import type { EventName } from '../events/names.js';
import type { HookEvent } from '../events/codecs.js';
import type { Dialect } from '../dialects/dialect.js';
import type { HookOutput } from '../protocol/output.js';

/** Fields every resolved hook has, whatever runs it. */
export interface HookBase {
  readonly name: string;
  /** `config`, `extension:<name>` or `inline` (in-process function). */
  readonly source: string;
  readonly timeoutMs: number;
  readonly failClosed: boolean;
  /** Tested against `tool_name` on tool events; absent = every tool (SPEC §4.1). */
  readonly matcher?: RegExp;
  /** False when turned off by a state file or `[hooks] enabled = false`; kept so `list` can show it. */
  readonly enabled: boolean;
  readonly description?: string;
  /** Whose protocol the hook speaks; absent = `cosh`. Other dialects are translated (docs/compat.md). */
  readonly dialect?: Dialect;
}

/** A hook run as `/bin/sh -c command` by the executor. */
export interface CommandHook extends HookBase {
  readonly kind: 'command';
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
  /** Folder of the extension that shipped the hook, for `list`. */
  readonly extensionPath?: string;
}

/** One answer of an in-process hook: an output object, or nothing (pass-through). */
export type HookFunctionValue = Partial<HookOutput> | Record<string, unknown> | null | undefined | void;

/** What an in-process hook may return: an answer, a Promise of one, or an Observable (first value counts). */
export type HookFunctionResult =
  HookFunctionValue | Promise<HookFunctionValue> | Observable<HookFunctionValue>;

export type HookFunction = (event: HookEvent) => HookFunctionResult;

/** A hook that runs in the host process, with the same chain semantics as a command hook. */
export interface FunctionHook extends HookBase {
  readonly kind: 'function';
  readonly run: HookFunction;
}

export type Hook = CommandHook | FunctionHook;

/** Every hook per event, in chain order (SPEC §4): what config loading produces and the engine consumes. */
export type Registry = Readonly<Record<EventName, readonly Hook[]>>;

export const DEFAULT_TIMEOUT_MS = 5000;
