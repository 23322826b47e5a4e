import { readFileSync } from 'node:fs';
import { parseJson } from './events/untrusted.js';

let cached: string | undefined;

/** Reads our package.json, found upwards from this file (it runs from src/ or dist/src/). */
const readVersion = (): string => {
  for (let up = './'; up.length <= 14; up = up === './' ? '../' : `${up}../`) {
    let text: string;
    try {
      text = readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8');
    } catch {
      continue; // not at this level
    }
    const parsed = parseJson(text);
    const manifest = (parsed.ok ? parsed.value : undefined) as
      { name?: unknown; version?: unknown } | undefined;
    if (manifest?.name === 'cosh-hooks' && typeof manifest.version === 'string') return manifest.version;
  }
  return 'unknown';
};

/**
 * The version of this package, as package.json says: `--version` prints it and every hook gets it
 * as `COSH_HOOKS_VERSION` (spec §4.2). Read once, on first use.
 */
export const packageVersion = (): string => (cached ??= readVersion());

/**
 * The cosh-core release whose hook contract cosh-hooks follows (alibaba/anolisa `src/cosh-ng`,
 * workspace version). Every hook gets it as `COSH_NG_VERSION`, as cosh-core gives its own version,
 * so hooks written for cosh-core (tokenless) recognise their host; a `schemaVersion: 1` manifest's
 * `compatibility.cosh` is matched against it (docs/compat.md).
 */
export const COSH_CORE_VERSION = '0.13.0';
