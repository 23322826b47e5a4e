import type { Result } from '../result.js';
import type { HooksByEvent } from './config-file.js';
import type { ConfigProblem } from './problems.js';

/** An extension's manifest, read: its name, version and hooks per event. */
export interface DecodedExtension {
  readonly name: string;
  readonly version?: string;
  readonly hooks: HooksByEvent;
}

/** The extension, or every error of its manifest; warnings either way. */
export type DecodedManifest = Result<DecodedExtension, readonly ConfigProblem[]> & {
  readonly warnings: readonly ConfigProblem[];
};
