import { isLeft } from 'fp-ts/lib/Either.js';
import { StateFile } from './codecs.js';
import { parseJson } from '../events/untrusted.js';
import { readText } from './files.js';
import { jsonLocations, problemLocator } from './locate.js';
import { issuesOf, type ConfigProblem } from './problems.js';

export interface DisabledNames {
  readonly names: ReadonlySet<string>;
  readonly warnings: readonly ConfigProblem[];
}

/**
 * The `disabled` list of `states/extensions.json` or `states/hooks.json`. A missing file disables
 * nothing. A malformed one is a warning and is ignored as a whole: a state file must never stop
 * the engine, and ignoring it errs on the side of running the hooks the user configured.
 */
export const readDisabled = (file: string): DisabledNames => {
  const none = { names: new Set<string>(), warnings: [] };
  const read = readText(file);
  if (!read.ok)
    return read.error.missing
      ? none
      : { ...none, warnings: [{ file, message: `${read.error.message}; ignored` }] };
  const text = read.value;
  const document = parseJson(text);
  if (!document.ok)
    return { ...none, warnings: [{ file, message: `invalid JSON, ignored: ${document.error}` }] };
  const decoded = StateFile.decode(document.value);
  if (isLeft(decoded)) {
    const locate = problemLocator(file, () => jsonLocations(text));
    return {
      ...none,
      warnings: issuesOf(decoded.left, [], 'json')
        .map(locate)
        .map((problem) => ({ ...problem, message: `${problem.message}; file ignored` })),
    };
  }
  return { names: new Set(decoded.right.disabled ?? []), warnings: [] };
};
