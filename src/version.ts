import { readFileSync } from 'node:fs';
import { parseJson } from './events/untrusted.js';

let cached: string | undefined;

/** Our package.json, found upwards from this file (it runs from src/, dist/src/ or a bundle chunk). */
const findManifest = (): { readonly url: URL; readonly version: string } | undefined => {
  for (let up = './'; up.length <= 14; up = up === './' ? '../' : `${up}../`) {
    const url = new URL(`${up}package.json`, import.meta.url);
    let text: string;
    try {
      text = readFileSync(url, 'utf8');
    } catch {
      continue; // not at this level
    }
    const parsed = parseJson(text);
    const manifest = (parsed.ok ? parsed.value : undefined) as
      { name?: unknown; version?: unknown } | undefined;
    if (manifest?.name === 'cosh-hooks' && typeof manifest.version === 'string')
      return { url, version: manifest.version };
  }
  return undefined;
};

const readVersion = (): string => findManifest()?.version ?? 'unknown';

/** The address of a file at the package's root (beside package.json), when the root is found. */
export const packageFileUrl = (name: string): URL | undefined => {
  const manifest = findManifest();
  return manifest === undefined ? undefined : new URL(name, manifest.url);
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
