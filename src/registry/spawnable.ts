/**
 * Whether configured text can be given to a process at all (spec §4.2, issue 10 class 6). A hook
 * whose command or `env` value cannot be passed never starts: every run would be a `spawn` failure
 * (a pass-through, or a block under fail_closed), which `validate` would not have told. So such
 * values are configuration errors, in every source (config file, manifest, `defineHooks`). Pure.
 */

/**
 * Linux's limit on one argument or one `NAME=value` environment string, the ending NUL included
 * (MAX_ARG_STRLEN, 32 pages): a longer one makes `execve` fail with E2BIG.
 */
export const MAX_ARG_BYTES = 128 * 1024;

const tooLong = (bytes: number, what: string): string =>
  `${bytes} bytes${what}; the system refuses a variable or argument of 128 KiB or more`;

/** Why `text` cannot be an argument (the command `sh -c` runs), or undefined when it can. */
export const unspawnableArgument = (text: string): string | undefined => {
  if (text.includes('\0')) return 'contains a NUL byte, which no process can be given';
  // A UTF-16 unit is at most 3 UTF-8 bytes: short text skips the count.
  if (text.length * 3 < MAX_ARG_BYTES) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes + 1 > MAX_ARG_BYTES ? tooLong(bytes, '') : undefined;
};

/** Why `value` cannot be the value of environment variable `name`, or undefined when it can. */
export const unspawnableEnvValue = (name: string, value: string): string | undefined => {
  if (value.includes('\0')) return 'contains a NUL byte, which no process can be given';
  if ((name.length + value.length) * 3 < MAX_ARG_BYTES) return undefined;
  // `NAME=value` and its ending NUL.
  const bytes = Buffer.byteLength(name, 'utf8') + 1 + Buffer.byteLength(value, 'utf8');
  return bytes + 1 > MAX_ARG_BYTES ? tooLong(bytes, ' with its name') : undefined;
};
