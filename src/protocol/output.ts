import * as t from 'io-ts';
import type { Decision } from '../events/names.js';
import type { Result } from '../result.js';

/*
 * The shape of a hook's answer and nothing else. The result types and the redaction read it, and
 * decoding (`decode-output.ts`) quotes a hook's text through the redaction, so this file imports no
 * other module of src/protocol: that keeps the layer free of import loops.
 */

/**
 * What a hook may print on stdout (spec §4.3). Both spellings of a key are accepted (cosh-core's
 * snake_case and the camelCase of Claude-style hooks); when both are present the snake_case one is
 * used, as for `additional_context`. `continue`, `stopReason`/`stop_reason` and
 * `suppressOutput`/`suppress_output` are accepted and ignored, whatever their type, like every other
 * top-level field: an ignored key never turns an answer into a failure.
 */
export const RawHookOutput = t.partial({
  decision: t.unknown,
  reason: t.string,
  systemMessage: t.string,
  system_message: t.string,
  hookSpecificOutput: t.UnknownRecord,
  hook_specific_output: t.UnknownRecord,
});
export type RawHookOutput = t.TypeOf<typeof RawHookOutput>;

/** A hook's answer after normalization. */
export interface HookOutput {
  readonly decision: Decision;
  readonly reason?: string;
  readonly systemMessage?: string;
  readonly hookSpecificOutput?: Readonly<Record<string, unknown>>;
}

/** A hook's normalized answer, or why it is invalid (`field: expected …`). */
export type DecodedOutput = Result<HookOutput>;
