import { firstNonBlankLine } from './first-line.js';
import { redactText } from './redact/text.js';

/** How much of a hook's stdout a failure message quotes. */
export const EXCERPT_MAX = 60;

/**
 * What a failure message may quote of a hook's own text (stdout that is not JSON, an unknown
 * decision): its first non-blank line, secrets redacted, at most `EXCERPT_MAX` characters. The
 * line is redacted before it is cut, so a secret across the cut is still caught; the lines after
 * it (the rest of an `env` dump) are never quoted.
 */
export const excerpt = (text: string): string => {
  const first = firstNonBlankLine(text) ?? '';
  const line = redactText(first);
  const more = line.length > EXCERPT_MAX || text.trim() !== first;
  const cut = line.length > EXCERPT_MAX ? line.slice(0, EXCERPT_MAX) : line;
  return more ? `${cut}…` : cut;
};
