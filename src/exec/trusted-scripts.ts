import { failure, type HookFailure } from '../protocol/result.js';
import type { CommandHook } from '../registry/hook.js';
import { digestFile, digestFolder } from './script-digest.js';

/**
 * A trusted project hook whose script (or hook folder) changed since `cosh-hooks trust` recorded it: the failure it
 * gets instead of starting (`spawn`: it never ran; fail_closed blocks on it). Undefined when the
 * hook pins no scripts, or when every one still has its recorded digest. A file swapped between
 * this check and the exec is the one window left (docs/configuration.md, trust).
 */
export const changedTrustedScript = (hook: CommandHook): HookFailure | undefined => {
  for (const script of hook.trustedScripts ?? []) {
    // The hook folder's record ends with `/` (src/config/trust.ts): every file in it, digested again.
    const folder = script.path.endsWith('/');
    const now = folder ? digestFolder(script.path.slice(0, -1)).sha256 : digestFile(script.path).sha256;
    if (now !== script.sha256)
      return failure(
        'spawn',
        `not started: ${folder ? 'folder' : 'script'} ${script.path} changed since it was trusted (${now === 'missing' ? 'it is gone' : folder ? 'a file in it was added, removed or changed' : 'its content differs'}); run cosh-hooks trust to trust it again`,
      );
  }
  return undefined;
};
