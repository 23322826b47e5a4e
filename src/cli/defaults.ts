/**
 * The command line's defaults that `--help` shows, in a module that imports nothing: the program
 * is built without loading the engine (see src/cli/lazy.ts).
 */

/** The longest accepted input line of `run` (and `fire --event-file`): 32 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;
