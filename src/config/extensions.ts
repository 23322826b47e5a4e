import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeManifestText, type DecodedExtension } from './manifest.js';
import { readText } from './files.js';
import type { ConfigProblem } from './problems.js';

export const MANIFEST_FILE = 'cosh-extension.json';

export type ExtensionScope = 'user' | 'system';

export interface ExtensionFolder {
  readonly dir: string;
  readonly scope: ExtensionScope;
  /** Named by the caller rather than a default: a missing folder is then worth a warning. */
  readonly explicit: boolean;
}

export interface LoadedExtension extends DecodedExtension {
  /** Absolute extension folder (`${extensionPath}`). */
  readonly path: string;
  readonly manifestFile: string;
  readonly scope: ExtensionScope;
}

export interface LoadedExtensions {
  /** Alphabetical by manifest name (code-unit order, independent of locale). */
  readonly extensions: readonly LoadedExtension[];
  readonly warnings: readonly ConfigProblem[];
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory(); // follows symbolic links: linked installs are common
  } catch {
    return false;
  }
};

/** Sub-folders of `dir`, sorted so that discovery, and thus duplicate handling, is deterministic. */
const subfolders = (folder: ExtensionFolder): { paths: string[]; warnings: ConfigProblem[] } => {
  const dir = resolve(folder.dir);
  try {
    const names = readdirSync(dir).sort();
    return { paths: names.map((name) => join(dir, name)).filter(isDirectory), warnings: [] };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !folder.explicit) return { paths: [], warnings: [] };
    const message =
      code === 'ENOENT'
        ? 'extensions folder not found'
        : `cannot read extensions folder: ${(error as Error).message}`;
    return { paths: [], warnings: [{ file: dir, message }] };
  }
};

/**
 * Finds and loads `<dir>/<folder>/cosh-extension.json` in every folder, user folders first (spec
 * §3). The first extension of a manifest name wins, so a user extension hides a system one of the
 * same name; two of the same name in one scope keep the first and warn. A broken manifest is
 * reported as warnings naming its file and disables only that extension; it hides nothing, so a
 * broken user copy leaves the system copy running. Folders without a manifest are not extensions
 * and are passed over silently.
 */
export const loadExtensions = (
  folders: readonly ExtensionFolder[],
  workspacePath: string,
): LoadedExtensions => {
  const warnings: ConfigProblem[] = [];
  const byName = new Map<string, LoadedExtension>();
  for (const folder of folders) {
    const found = subfolders(folder);
    warnings.push(...found.warnings);
    for (const path of found.paths) {
      const manifestFile = join(path, MANIFEST_FILE);
      const read = readText(manifestFile);
      if (!read.ok) {
        if (!read.error.missing)
          warnings.push({ file: manifestFile, message: `extension not loaded: ${read.error.message}` });
        continue;
      }
      const decoded = decodeManifestText(read.value, manifestFile, { extensionPath: path, workspacePath });
      if (!decoded.ok) {
        const count = decoded.error.length === 1 ? '1 problem' : `${decoded.error.length} problems`;
        warnings.push({ file: manifestFile, message: `extension not loaded: ${count} in its manifest` });
        warnings.push(...decoded.error, ...decoded.warnings);
        continue;
      }
      warnings.push(...decoded.warnings);
      const extension = decoded.value;
      const previous = byName.get(extension.name);
      if (previous === undefined) {
        byName.set(extension.name, { ...extension, path, manifestFile, scope: folder.scope });
      } else if (previous.scope === folder.scope) {
        warnings.push({
          file: manifestFile,
          message: `extension "${extension.name}" not loaded: ${previous.manifestFile} has the same name`,
        });
      }
    }
  }
  const extensions = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { extensions, warnings };
};
