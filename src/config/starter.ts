import { dirname } from 'node:path';

/**
 * The commented starter `config.toml` that `cosh-hooks init` writes: one working guard, one
 * observer on every event, and the keys a first edit needs. Pure: the caller gives the schema's
 * address (for the `#:schema` line TOML editors read) and where the observer appends.
 */
export interface StarterOptions {
  /** The `#:schema` address of `config.schema.json` (a file: URL); the line is left out without one. */
  readonly schemaUrl?: string;
  /** The file the observer appends each event to. */
  readonly logFile: string;
  /** The project layer (`init --workspace`): its hooks run once `cosh-hooks trust` allows them. */
  readonly project?: boolean;
}

/** A word sh reads as exactly `text`. */
const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The guard: blocks any shell command containing `rm -rf`, says nothing otherwise. */
const GUARD = `event=$(cat); case "$event" in *'rm -rf'*) printf '%s' '{"decision":"block","reason":"rm -rf is not allowed here"}';; esac`;

/** A script the project starter writes beside its config (project hooks run scripts, for trust). */
export interface StarterScript {
  /** Its name inside `.copilot-shell/`. */
  readonly name: string;
  readonly text: string;
}

export interface Starter {
  readonly config: string;
  readonly scripts: readonly StarterScript[];
}

/** How a project hook runs a script of its `.copilot-shell/` folder: the form trust accepts. */
const projectScript = (name: string): string => `sh "$COSH_WORKSPACE_PATH/.copilot-shell/${name}"`;

export const starterFiles = (options: StarterOptions): Starter => {
  const logLine = `cat >> ${shellQuoted(options.logFile)}`;
  const project = options.project === true;
  const scripts: StarterScript[] = project
    ? [
        { name: 'no-rm-rf.sh', text: `#!/bin/sh\n# Blocks a shell command containing "rm -rf".\n${GUARD}\n` },
        {
          name: 'event-log.sh',
          // Outside `.copilot-shell/`: trust pins every file there, so a log inside would untrust the hooks.
          text: `#!/bin/sh\n# Appends each event to a file outside this folder (trust pins every file in it).\nmkdir -p ${shellQuoted(dirname(options.logFile))} && ${logLine}\n`,
        },
      ]
    : [];
  const config = [
    ...(options.schemaUrl === undefined ? [] : [`#:schema ${options.schemaUrl}`]),
    '# cosh-hooks configuration (docs/configuration.md). Check it with `cosh-hooks validate`,',
    '# try a hook with `cosh-hooks fire PreToolUse --tool shell --input \'{"tool_input":{"command":"rm -rf /"}}\'`.',
    ...(project
      ? [
          '# A project config: its hooks run once `cosh-hooks trust` has recorded them and their scripts',
          '# (docs/configuration.md, trust); run it again after each change.',
        ]
      : []),
    '#',
    '# A hook is a command run by /bin/sh with the event as one JSON line on stdin. It prints nothing',
    '# (no opinion) or one JSON object: {"decision": "block", "reason": "..."} (docs/protocol.md).',
    '',
    '[hooks]',
    'enabled = true',
    '',
    '# A guard: runs before each shell command and blocks it when it contains "rm -rf".',
    '[[hooks.PreToolUse]]',
    'name = "no-rm-rf"',
    'matcher = "^(shell|run_shell_command)$"   # tool events: which tools (an RE2 pattern)',
    `command = ${JSON.stringify(project ? projectScript('no-rm-rf.sh') : GUARD)}`,
    'timeout = 5000                            # milliseconds; then its process group is killed',
    'fail_closed = true                        # a crash or a timeout blocks instead of allowing',
    '',
    '# An observer on every event: runs after each decision is out (it never delays or changes one)',
    '# and appends the event to a file. `events` lists event names, or "*" for all of them.',
    '[[hooks.any]]',
    'events = "*"',
    'name = "event-log"',
    `command = ${JSON.stringify(project ? projectScript('event-log.sh') : logLine)}`,
    'observe = true',
    '',
  ].join('\n');
  return { config, scripts };
};
