import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** Reads our package.json, found upwards from this file (it runs from src/ or dist/src/). */
const readVersion = (): string => {
  for (let up = './'; up.length <= 14; up = up === './' ? '../' : `${up}../`) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'cosh-hooks' && manifest.version !== undefined) return manifest.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
};

/**
 * The version of this package, as package.json says: `--version` prints it and every hook gets it
 * as `COSH_HOOKS_VERSION` (SPEC §4.2). Read once, on first use.
 */
export const packageVersion = (): string => (cached ??= readVersion());
