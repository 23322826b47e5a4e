/**
 * The executor's default bound on hook processes running at once, in a module of its own: the
 * command line shows it in `--help` without loading the executor.
 */
export const DEFAULT_MAX_PROCESSES = 32;
