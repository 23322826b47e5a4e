/** The first non-blank line of `text`, trimmed (a fail_closed reason, a failure's detail). Pure. */
export const firstNonBlankLine = (text: string | undefined): string | undefined =>
  text
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '');
