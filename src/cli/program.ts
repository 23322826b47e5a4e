import { Argument, Command, Option } from 'commander';
import { EVENT_NAMES, type EventName } from '../events/names.js';
import type { FireFlags, RunFlags } from './commands.js';
import { DEFAULT_FIRE_SESSION } from './fire-event.js';
import { DEFAULT_MAX_LINE_BYTES } from './defaults.js';
import { loadCommands, loadImport, loadInit, loadMcpProxy, loadReplay, loadTrust } from './lazy.js';
import type { McpProxyFlags } from './mcp-proxy.js';
import type { InitFlags } from './init.js';
import type { ReplayFlags } from './replay.js';
import type { TrustFlags } from './trust.js';
import {
  addAuditOptions,
  addConfigOptions,
  addExecutionOptions,
  positiveInteger,
  type ConfigFlags,
  type ExecutionFlags,
} from './options.js';
import { packageVersion } from '../version.js';

const EXAMPLES = {
  run: `
Example:
  printf '%s\\n' '{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"shell","tool_input":{"command":"ls"}}' \\
    | cosh-hooks run --config ./config.toml

Each input line gets one answer line: a hook_decision, or a hook_error naming the line.
Exit status: 0 at end of input, 2 when the configuration is invalid (problems on stderr).`,
  fire: `
Examples:
  cosh-hooks fire SessionStart
  cosh-hooks fire PreToolUse --tool shell --input '{"tool_input":{"command":"rm -rf /"}}'
  cosh-hooks fire UserPromptSubmit --input '{"prompt":"deploy to prod"}' --json
  cosh-hooks fire PostToolUse --event-file event.json

--input and --event-file give event fields as a JSON object; missing required fields get
placeholders, and --tool and --session override what the JSON says.`,
  replay: `
Examples:
  cosh-hooks replay events.jsonl --config ./config.toml              # print the decisions
  cosh-hooks replay events.jsonl --expect decisions.jsonl --update   # record the expectation
  cosh-hooks replay events.jsonl --expect decisions.jsonl            # compare: exit 1 on a difference

Decisions are compared in order, without seq and without each hook's duration_ms; notifications
are not compared. A difference is shown field by field on stderr.`,
  doctor: `
Runs every enabled hook once, through the engine, with a harmless sample event of its event
(cwd = a scratch folder, removed afterwards). It does run your hooks: a hook with side effects
has them. Per hook: whether it starts, whether it answers, its outcome, how long, what it means.
Exit status: 0 when there is no problem and every hook answered, 1 otherwise.`,
  mcpProxy: `
Examples (the command a client's MCP configuration starts, in place of the server's own):
  cosh-hooks mcp-proxy --name filesystem -- npx -y @modelcontextprotocol/server-filesystem /srv/data
  cosh-hooks mcp-proxy --name github --upstream https://mcp.example.com/mcp --audit ~/mcp-audit.jsonl

tools/call runs PreToolUse and PostToolUse with tool_name mcp__<name>__<tool>; a block answers the
client with an error result and the server is never called. Everything else passes through.
Exit status: 0 when the client closes stdin, 1 when the upstream ends or cannot start, 2 on an invalid
configuration, without --name, or without any PreToolUse hook (unless --allow-unguarded).`,
  init: `
Examples:
  cosh-hooks init                  # ~/.copilot-shell/config.toml
  cosh-hooks init --workspace      # ./.copilot-shell/config.toml (runs once trusted: cosh-hooks trust)

Then edit it, check it with \`cosh-hooks validate\` and try it with \`cosh-hooks fire\`. Its first line
names config.schema.json for TOML editors (Taplo, Even Better TOML): completion and checks as you type.`,
  import: `
Examples:
  cosh-hooks import claude ~/.claude/settings.json >> ~/.copilot-shell/config.toml
  cosh-hooks import gemini .gemini/settings.json
  cosh-hooks import claude ~/.claude/plugins/formatter/hooks/hooks.json

Hooks without a name get one made from their command; Claude's timeouts in seconds become
milliseconds; Claude tool matchers become cosh tool names (Bash -> shell|run_shell_command).
Events cosh does not have (PermissionRequest, TeammateIdle, ...) are warnings on stderr.
To load such a file without converting it, use --claude-settings / --gemini-settings.`,
};

/**
 * The command line (spec §6). Actions report their exit status through `setStatus`, so `main`
 * decides when the process ends (after output is flushed).
 */
export const createProgram = (setStatus: (status: number) => void): Command => {
  const version = packageVersion();
  const program = new Command('cosh-hooks')
    .description('Run agent lifecycle hooks: JSON events in, hook decisions and notifications out.')
    .version(version, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    // Help, version and usage errors end by throwing a CommanderError instead of calling
    // process.exit: `main` then exits once stdout is flushed, so a lost write is seen (spec §6).
    // Subcommands made below inherit it.
    .exitOverride();

  const command = (name: string, description: string) =>
    addConfigOptions(
      program.command(name).description(description).version(version, '-V, --version', 'print the version'),
    );

  addAuditOptions(
    addExecutionOptions(
      command('run', 'read events as JSON lines on stdin; write notification and decision lines on stdout'),
    ),
  )
    .addOption(
      new Option('--concurrency <mode>', 'per-session: events of different sessions may overlap')
        .choices(['sequential', 'per-session'])
        .default('sequential'),
    )
    .option('--watch', 'follow the configuration files; swap in each valid change between events')
    .addOption(
      new Option('--max-line-bytes <n>', 'longest accepted input line; longer ones get a hook_error')
        .argParser(positiveInteger)
        .default(DEFAULT_MAX_LINE_BYTES),
    )
    .addHelpText('after', EXAMPLES.run)
    .action(async (flags: RunFlags) => setStatus(await (await loadCommands()).runCommand(flags)));

  command('validate', 'check the config file and extensions; list every problem (exit 1 when any)')
    .option('--json', 'print the problems as JSON')
    .action(async (flags: ConfigFlags & { json?: boolean }) =>
      setStatus((await loadCommands()).validateCommand(flags)),
    );

  addExecutionOptions(
    command(
      'doctor',
      'validate, then dry-run every enabled hook with a harmless sample event (exit 1 on any problem)',
    ),
  )
    .option('--json', 'print the problems and the dry runs as JSON')
    .addHelpText('after', EXAMPLES.doctor)
    .action(async (flags: ConfigFlags & ExecutionFlags & { json?: boolean }) =>
      setStatus(await (await loadCommands()).doctorCommand(flags)),
    );

  command('list', 'show the resolved hook chain of every event, with sources')
    .option('--json', 'print the chains as JSON')
    .action(async (flags: ConfigFlags & { json?: boolean }) =>
      setStatus((await loadCommands()).listCommand(flags)),
    );

  addExecutionOptions(command('fire', 'run one event through its hook chain and show the result'))
    .addArgument(new Argument('<event>', 'event name').choices(EVENT_NAMES))
    .option('--tool <name>', 'tool_name of a tool event')
    .addOption(new Option('--input <json>', 'event fields as a JSON object').conflicts('eventFile'))
    .option('--event-file <file>', 'read event fields from a JSON file (- for stdin)')
    .option('--session <id>', `session_id (default: ${DEFAULT_FIRE_SESSION})`)
    .option('--json', 'print the notifications and the decision as JSON')
    .addHelpText('after', EXAMPLES.fire)
    .action(async (event: EventName, flags: FireFlags) =>
      setStatus(await (await loadCommands()).fireCommand(event, flags)),
    );

  addExecutionOptions(
    command('replay', 'run recorded events through the configuration and compare the decisions'),
  )
    .addArgument(new Argument('<events>', 'recorded events, one JSON object a line (- for stdin)'))
    .option('--expect <file>', 'the expected decisions (JSONL; a `run` output works too)')
    .option('--update', 'write the decisions to the --expect file instead of comparing')
    .addHelpText('after', EXAMPLES.replay)
    .action(async (events: string, flags: ReplayFlags) =>
      setStatus(await (await loadReplay()).replayCommand(events, flags)),
    );
  command('trust', 'trust the project hooks of a workspace: show what they run, record its digests')
    .option('--revoke', "forget the workspace's trust")
    .option('--dry-run', 'show what would be trusted; record nothing')
    .option('--json', 'print what is trusted as JSON')
    .addHelpText(
      'after',
      `
Project hooks (<workspace>/.copilot-shell/config.toml) run only once trusted. Trust covers each
hook's definition and the content of every script its command names; a change to either makes
that hook untrusted again until trust is run once more. The store is <state dir>/trust.json.`,
    )
    .action(async (flags: TrustFlags) => setStatus((await loadTrust()).trustCommand(flags)));

  addAuditOptions(
    addExecutionOptions(
      command('mcp-proxy', 'an MCP server on stdio in front of another MCP server, hooks on each tool call'),
    ),
  )
    .addArgument(new Argument('[command...]', 'the upstream MCP server to start, after --'))
    .option('--name <name>', "required: the server's name in tool names, mcp__<name>__<tool>")
    .option(
      '--allow-unguarded',
      'start even when no PreToolUse hook is loaded (every call forwarded unchecked)',
    )
    .option('--upstream <url>', 'an upstream MCP server on Streamable HTTP, instead of a command')
    .option(
      '--listen <host:port>',
      'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (host: 127.0.0.1)',
    )
    .addOption(
      new Option(
        '--allowed-origin <origin>',
        'a browser origin --listen accepts besides its own (repeatable)',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .option('--watch', 'follow the configuration files; swap in each valid change between calls')
    .addOption(
      new Option('--request-timeout <ms>', 'time the upstream has to answer a request (progress restarts it)')
        .argParser(positiveInteger)
        .default(300_000),
    )
    .addOption(
      new Option('--session-idle <ms>', 'with --listen: close a session (and its upstream) idle this long')
        .argParser(positiveInteger)
        .default(1_800_000),
    )
    .addOption(
      new Option('--max-message-bytes <n>', 'longest message accepted from the client or the upstream')
        .argParser(positiveInteger)
        .default(64 * 1024 * 1024),
    )
    .addHelpText('after', EXAMPLES.mcpProxy)
    .action(async (command: string[], flags: McpProxyFlags) =>
      setStatus(await (await loadMcpProxy()).mcpProxyCommand(command, flags)),
    );

  program
    .command('init')
    .description('write a commented starter config.toml (a guard and an observer); never overwrites')
    .option('--workspace [dir]', 'write the project config <dir>/.copilot-shell/config.toml (default: here)')
    .option('--home <dir>', 'home folder of the user config (default: $HOME)')
    .option('--config <file>', 'write this file instead')
    .addHelpText('after', EXAMPLES.init)
    .action(async (flags: InitFlags) => setStatus((await loadInit()).initCommand(flags)));

  program
    .command('import')
    .description("print another agent's hook settings as config.toml hooks that keep their dialect")
    .addArgument(new Argument('<agent>', 'whose settings').choices(['claude', 'gemini']))
    .addArgument(new Argument('<file>', 'settings.json, or a plugin/extension hooks/hooks.json'))
    .addHelpText('after', EXAMPLES.import)
    .action(async (agent: 'claude' | 'gemini', file: string) =>
      setStatus((await loadImport()).importCommand(agent, file)),
    );

  return program;
};
