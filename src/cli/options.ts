import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ForeignSettings, LoadOptions } from '../config/index.js';
import { DEFAULT_MAX_PROCESSES } from '../exec/limits.js';

/** The flags every command shares to find hooks, as commander parses them. */
export interface ConfigFlags {
  readonly config?: string;
  /** `--user-config`: the same as `--config`. */
  readonly userConfig?: string;
  /** `--system-config FILE`, or false for `--no-system-config`. */
  readonly systemConfig?: string | false;
  /** False for `--no-project-config`. */
  readonly projectConfig?: boolean;
  readonly extensionsDir?: readonly string[];
  readonly systemExtensionsDir?: string;
  readonly stateDir?: string;
  readonly workspace?: string;
  readonly home?: string;
  readonly claudeSettings?: readonly string[];
  readonly geminiSettings?: readonly string[];
}

const collect = (value: string, previous: readonly string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

/** Adds the configuration flags (spec §6) to a command. */
export const addConfigOptions = (command: Command): Command =>
  command
    .option('--config <file>', 'user config file (default: ~/.copilot-shell/config.toml)')
    .addOption(new Option('--user-config <file>', 'the same as --config').conflicts('config'))
    .option('--system-config <file>', 'system config file (default: /etc/copilot-shell/config.toml)')
    .option('--no-system-config', 'read no system config')
    .option('--no-project-config', 'read no project config (<workspace>/.copilot-shell/config.toml)')
    .addOption(
      new Option(
        '--extensions-dir <dir>',
        'user extensions folder, replacing ~/.copilot-shell/extensions (repeatable)',
      ).argParser(collect),
    )
    .option(
      '--system-extensions-dir <dir>',
      'system extensions folder (default: /usr/share/anolisa/extensions)',
    )
    .option(
      '--state-dir <dir>',
      'folder of extensions.json, hooks.json and trust.json (default: ~/.copilot-shell/states)',
    )
    .option(
      '--workspace <dir>',
      'workspace root: its .copilot-shell/config.toml is the project layer, and ${workspacePath} (default: the current folder)',
    )
    .option('--home <dir>', 'home folder the defaults above are relative to (default: $HOME)')
    .addOption(
      new Option(
        '--claude-settings <file>',
        'also load the hooks of a Claude Code settings.json or plugin hooks/hooks.json (repeatable)',
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--gemini-settings <file>',
        'also load the hooks of a Gemini CLI settings.json or extension hooks/hooks.json (repeatable)',
      ).argParser(collect),
    );

/** The loader's options: relative paths resolved against `cwd`, flags not given left to defaults. */
export const toLoadOptions = (flags: ConfigFlags, cwd: string): LoadOptions => {
  const at = (path: string) => resolve(cwd, path);
  return {
    ...(flags.config !== undefined && { configPath: at(flags.config) }),
    ...(flags.userConfig !== undefined && { configPath: at(flags.userConfig) }),
    ...(typeof flags.systemConfig === 'string' && { systemConfigPath: at(flags.systemConfig) }),
    ...(flags.systemConfig === false && { systemConfigPath: false }),
    ...(flags.projectConfig === false && { projectConfig: false }),
    ...(flags.extensionsDir !== undefined && { extensionsDirs: flags.extensionsDir.map(at) }),
    ...(flags.systemExtensionsDir !== undefined && { systemExtensionsDir: at(flags.systemExtensionsDir) }),
    ...(flags.stateDir !== undefined && { stateDir: at(flags.stateDir) }),
    ...(flags.workspace !== undefined && { workspace: at(flags.workspace) }),
    ...(flags.home !== undefined && { home: at(flags.home) }),
    ...foreignOf(flags, at),
  };
};

/** commander's parser for a flag that takes a positive integer. */
export const positiveInteger = (value: string): number => {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError('expected a positive integer');
  return number;
};

/** The flags of commands that run hooks (`run`, `fire`), as commander parses them. */
export interface ExecutionFlags {
  readonly maxProcesses: number;
}

/** `--max-processes N`: the bound on hook processes running at once (spec §4.2). */
export const addExecutionOptions = (command: Command): Command =>
  command.addOption(
    new Option('--max-processes <n>', 'hook processes running at once, at most; more wait for one to end')
      .argParser(positiveInteger)
      .default(DEFAULT_MAX_PROCESSES),
  );

/** `--claude-settings` and `--gemini-settings`, in the order given per agent (Claude's first). */
const foreignOf = (
  flags: ConfigFlags,
  at: (path: string) => string,
): Pick<LoadOptions, 'foreignSettings'> => {
  const files: ForeignSettings[] = [
    ...(flags.claudeSettings ?? []).map((file) => ({ dialect: 'claude' as const, file: at(file) })),
    ...(flags.geminiSettings ?? []).map((file) => ({ dialect: 'gemini' as const, file: at(file) })),
  ];
  return files.length === 0 ? {} : { foreignSettings: files };
};

/** `--audit`, `--observer-queue` and the OTLP export: the audit flags of commands that run hooks for a host. */
export const addAuditOptions = (command: Command): Command =>
  command
    .option('--audit <file>', 'append audit records (JSON lines) to FILE; - for stderr (docs/audit.md)')
    .addOption(
      new Option('--observer-queue <n>', 'events one observer hook may hold before newer ones are dropped')
        .argParser(positiveInteger)
        .default(64),
    )
    .option(
      '--otlp-endpoint <url>',
      'export spans over OTLP/HTTP to this collector (also: OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .option('--otlp-content', 'put tool input and prompts on spans and audit records, redacted');
