import { byEvent, EVENT_NAMES, MATCHED_EVENTS, type Decision, type EventName } from '../events/names.js';
import type { ConfigProblem, LoadedSources as Sources } from '../config/index.js';
import type { DryRun } from './doctor.js';
import type { HookDecision, HookNotification } from '../output/lines.js';
import type { Hook, Registry } from '../registry/hook.js';
import { redactText } from '../protocol/redact/index.js';
import { columns, palette, type Paint, type Palette } from './style.js';

/**
 * Characters that act on a terminal instead of being shown, in text that comes from hooks or
 * configs (spec §6): C0 controls (ESC starts a sequence that can retitle the terminal or rewrite
 * the screen, CR overwrites the line, BEL rings) and DEL, C1 controls (U+009B is a one-character
 * CSI for some terminals), the line and paragraph separators, and the bidirectional controls that
 * make text read in another order than it runs. Tab and newline are kept by `printable` (messages
 * span lines), escaped by `printableLine` (table cells, names, paths).
 */
// Matching control characters is the point of these two expressions.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\x1b`, `\r`, `\u202e`: a visible spelling of one unsafe character. */
const escapeOne = (char: string): string => {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Untrusted text for the terminal, newlines and tabs kept: every other control escaped. */
export const printable = (text: string): string => text.replace(UNSAFE, escapeOne);

/** Untrusted text for one line (a name, a path, a table cell): newlines and tabs escaped too. */
export const printableLine = (text: string): string => text.replace(UNSAFE_LINE, escapeOne);

/**
 * JSON text for the terminal: JSON.stringify already escapes C0 controls; this escapes what it
 * leaves raw (DEL, C1, separators, bidi controls) as `\u` and four hex digits, so the document
 * stays the same JSON.
 */
export const printableJson = (json: string): string =>
  json.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** How every view colours a decision (or a hook error), so the CLI and the demo read alike. */
export const decisionPaint = (p: Palette, decision: Decision | 'error'): Paint => {
  switch (decision) {
    case 'block':
      return (text) => p.bold(p.red(text));
    case 'ask':
      return (text) => p.bold(p.yellow(text));
    case 'allow':
      return (text) => p.bold(p.green(text));
    case 'error':
      return p.magenta;
    case 'none':
      return p.dim;
  }
};

/** Prefixes every line of `text`, e.g. to nest a multi-line card or message. */
export const indent = (text: string, prefix: string): string =>
  text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');

/** `config.toml:12: hooks.x: message` prefixed with its severity. */
export const formatProblemLines = (
  errors: readonly string[],
  warnings: readonly string[],
  color: boolean,
): string[] => {
  const p = palette(color);
  return [
    ...errors.map((text) => `${p.bold(p.red('error'))}: ${printableLine(text)}`),
    ...warnings.map((text) => `${p.bold(p.yellow('warning'))}: ${printableLine(text)}`),
  ];
};

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const hookCount = (registry: Registry, which: (hook: Hook) => boolean = () => true): number =>
  EVENT_NAMES.reduce((sum, name) => sum + registry[name].filter(which).length, 0);

const isPersistent = (hook: Hook): boolean => hook.kind === 'command' && hook.persistent;

/** How a hook runs (spec §8): `persistent` (one process for many events), else `per-event`. */
export const modeOf = (hook: Hook): 'persistent' | 'per-event' | 'in-process' =>
  hook.kind === 'function' ? 'in-process' : hook.persistent ? 'persistent' : 'per-event';

/** The last line of `validate`: a count of problems, or what was found when there are none. */
export const formatValidationSummary = (
  errors: number,
  warnings: number,
  found: { readonly registry: Registry; readonly sources: Sources } | undefined,
  color: boolean,
): string => {
  const p = palette(color);
  // Hooks that judge a redacted copy are named whenever the configuration loaded, warnings or
  // not: right for an observer, wrong for a guard (a secret scanner sees `<redacted>`).
  const copies = found === undefined ? [] : redactedHooks(found.registry);
  const rawLine =
    copies.length === 0
      ? ''
      : `\n${p.yellow('redact = true')}: these hooks receive a redacted copy of the event: ${copies
          .map((hook) => `${hook.event} ${hook.name} (${hook.source})`)
          .join(', ')}`;
  if (errors + warnings > 0) {
    const text = [errors > 0 && plural(errors, 'error'), warnings > 0 && plural(warnings, 'warning')]
      .filter(Boolean)
      .join(', ');
    return `${errors > 0 ? p.red(text) : p.yellow(text)}${rawLine}`;
  }
  const configFile = found?.sources.configFile;
  const where = printableLine(configFile ?? 'no config file');
  const extensions = found?.sources.extensions.length ?? 0;
  const hooks = found === undefined ? 0 : hookCount(found.registry);
  // Nothing to run is not "ok": a host started with another HOME would check nothing.
  if (hooks === 0)
    return configFile === undefined
      ? `${p.yellow('no hooks')}: no config file found, ${plural(extensions, 'extension')}: nothing is checked (cosh-hooks init writes a starter config.toml)`
      : `${p.yellow('no hooks')}: ${where}, ${plural(extensions, 'extension')}: nothing is checked`;
  const persistent = found === undefined ? 0 : hookCount(found.registry, isPersistent);
  const modes = persistent > 0 ? ` (${persistent} persistent)` : '';
  const summary = `${p.green('ok')}: ${where}, ${plural(extensions, 'extension')}, ${plural(hooks, 'hook')}${modes}`;
  return `${summary}${rawLine}`;
};

/** Hooks that receive a redacted copy of the event (`redact = true`), for `validate`. */
export const redactedHooks = (
  registry: Registry,
): { readonly event: EventName; readonly name: string; readonly source: string }[] =>
  EVENT_NAMES.flatMap((event) =>
    registry[event]
      .filter((hook) => hook.redact === true)
      .map((hook) => ({ event, name: hook.name, source: hook.source })),
  );

const matcherOf = (event: EventName, hook: Hook): string => {
  if (!MATCHED_EVENTS.includes(event))
    return hook.matcher === undefined ? '-' : `(ignored) ${printableLine(hook.matcher.source)}`;
  return hook.matcher === undefined ? '*' : printableLine(hook.matcher.source);
};

/** The messages of the load-time problems found in `hook` on `event` (docs/configuration.md). */
const problemsOf = (problems: readonly ConfigProblem[], event: EventName, hook: Hook): string[] =>
  problems
    .filter(
      (problem) =>
        problem.hook !== undefined &&
        problem.hook.event === event &&
        problem.hook.name === hook.name &&
        problem.hook.source === hook.source,
    )
    .map((problem) => problem.message);

/** Why a config hook is never run (no name), when it is one. */
const skippedWhy = (hook: Hook): string | undefined => (hook.kind === 'command' ? hook.skipped : undefined);

/** The `enabled` cell of a hook that does not run: skipped, untrusted or turned off. */
const enabledWhy = (hook: Hook): string => {
  if (skippedWhy(hook) !== undefined) return 'skipped';
  return hook.kind === 'command' && hook.untrusted !== undefined ? 'untrusted' : 'no';
};

/** What `list --json` prints for one hook. */
export interface ListedHook {
  readonly name: string;
  readonly source: string;
  readonly command?: string;
  readonly matcher: string | null;
  readonly timeout: number;
  readonly fail_closed: boolean;
  readonly redact: boolean;
  /** One long-running process for many events (spec §8). */
  readonly persistent: boolean;
  readonly enabled: boolean;
  /** An observer (docs/audit.md): present, and true, only for one. */
  readonly observe?: true;
  /** Why a project hook does not run: it is not trusted (docs/configuration.md). */
  readonly untrusted?: string;
  /** Why a config hook is never run: it has no name (docs/configuration.md). */
  readonly skipped?: string;
  readonly description?: string;
  readonly extension_path?: string;
  /** Problems the load-time checks found in it; absent when none. */
  readonly problems?: readonly string[];
}

const listed = (hook: Hook, problems: readonly string[] = []): ListedHook => ({
  name: hook.name,
  source: hook.source,
  ...(hook.kind === 'command' && { command: redactText(hook.command) }),
  matcher: hook.matcher === undefined ? null : hook.matcher.source,
  timeout: hook.timeoutMs,
  fail_closed: hook.failClosed,
  redact: hook.redact === true,
  persistent: isPersistent(hook),
  enabled: hook.enabled,
  ...(hook.observe === true && { observe: true as const }),
  ...(hook.kind === 'command' && hook.untrusted !== undefined && { untrusted: redactText(hook.untrusted) }),
  ...(hook.kind === 'command' && hook.skipped !== undefined && { skipped: hook.skipped }),
  ...(hook.description !== undefined && { description: redactText(hook.description) }),
  ...(hook.kind === 'command' && hook.extensionPath !== undefined && { extension_path: hook.extensionPath }),
  ...(problems.length > 0 && { problems: problems.map((problem) => redactText(problem)) }),
});

/** The document `list --json` prints: sources, then every event's chain in order, problems per hook. */
export const chainsToJson = (
  registry: Registry,
  sources: Sources,
  problems: readonly ConfigProblem[] = [],
) => ({
  config_file: sources.configFile ?? null,
  ...(sources.layers !== undefined && { layers: sources.layers }),
  ...(sources.managedOnly === true && { managed_only: true }),
  extensions: sources.extensions,
  events: byEvent((name) => registry[name].map((hook) => listed(hook, problemsOf(problems, name, hook)))),
});

/**
 * `list`: where hooks came from, then each event's chain as a table (every event, even empty). A
 * hook with load-time problems has `!` before its number and each problem on a line below it.
 */
export const formatChains = (
  registry: Registry,
  sources: Sources,
  color: boolean,
  problems: readonly ConfigProblem[] = [],
): string => {
  const p = palette(color);
  const out: string[] = [];
  out.push(
    `${p.bold('config file')}  ${sources.configFile === undefined ? p.dim('none') : printableLine(sources.configFile)}`,
  );
  // The other layers, when there is something to say: read, or ignored and why.
  for (const layer of sources.layers ?? []) {
    if (layer.layer === 'user' || layer.state === 'missing') continue;
    const state = layer.state === 'read' ? 'read' : `ignored: ${layer.reason ?? ''}`;
    out.push(
      `${p.bold(`${layer.layer} config`.padEnd(12))} ${printableLine(layer.file)} ${p.dim(`(${printableLine(state)})`)}`,
    );
  }
  if (sources.managedOnly === true)
    out.push(`${p.bold('managed')}      ${p.yellow('only system hooks and system extensions run')}`);
  if (sources.extensions.length === 0) out.push(`${p.bold('extensions')}   ${p.dim('none')}`);
  sources.extensions.forEach((extension, i) => {
    const label = i === 0 ? `${p.bold('extensions')}   ` : ' '.repeat(13);
    const version = extension.version === undefined ? '' : ` ${printableLine(extension.version)}`;
    const state = extension.enabled ? extension.scope : `${extension.scope}, disabled`;
    out.push(
      `${label}${printableLine(extension.name)}${version} (${state})  ${p.dim(printableLine(extension.path))}`,
    );
  });
  for (const event of EVENT_NAMES) {
    const chain = registry[event];
    if (chain.length === 0) continue;
    out.push('', p.bold(event));
    const found = chain.map((hook) => problemsOf(problems, event, hook));
    const rows = [
      ['#', 'name', 'source', 'matcher', 'timeout', 'fail_closed', 'redact', 'enabled', 'mode'],
      ...chain.map((hook, i) => [
        `${(found[i]?.length ?? 0) > 0 || skippedWhy(hook) !== undefined ? '!' : ''}${i + 1}`,
        hook.name === '' ? '(no name)' : printableLine(hook.name),
        printableLine(hook.source),
        matcherOf(event, hook),
        `${hook.timeoutMs} ms`,
        hook.failClosed ? 'yes' : 'no',
        hook.redact === true ? 'yes' : 'no',
        hook.enabled ? 'yes' : enabledWhy(hook),
        hook.observe === true ? `${modeOf(hook)} observer` : modeOf(hook),
      ]),
    ];
    const table = columns(rows, (row, column, cell) =>
      row === 0
        ? p.dim(cell)
        : column === 0 && cell.startsWith('!')
          ? p.bold(p.red(cell))
          : (column === 6 || column === 7) && ['no', 'untrusted', 'skipped'].includes(cell.trim())
            ? p.yellow(cell)
            : cell,
    );
    table.forEach((line, i) => {
      out.push(`  ${line}`);
      const hook = i === 0 ? undefined : chain[i - 1];
      // Redacted, as cosh-core prints every hook command: a token written into a command stays
      // out of terminals, logs and bug reports (the config file holds it).
      if (hook?.kind === 'command') out.push(`     ${p.dim(`$ ${printableLine(redactText(hook.command))}`)}`);
      for (const message of i === 0 ? [] : (found[i - 1] ?? []))
        out.push(`     ${p.red('!')} ${printableLine(redactText(message))}`);
      if (hook?.kind === 'command' && hook.untrusted !== undefined)
        out.push(`     ${p.yellow(`untrusted: ${printableLine(redactText(hook.untrusted))}`)}`);
      const skipped = hook === undefined ? undefined : skippedWhy(hook);
      if (skipped !== undefined)
        out.push(`     ${p.red('!')} ${p.yellow(`skipped: ${printableLine(skipped)}`)}`);
    });
  }
  const empty = EVENT_NAMES.filter((event) => registry[event].length === 0);
  if (empty.length > 0) out.push('', `${p.bold('no hooks')}  ${p.dim(empty.join(', '))}`);
  return out.join('\n');
};

/** A notification as the card a shell would render. */
export const formatCard = (notification: HookNotification, color: boolean): string => {
  const p = palette(color);
  const { event } = notification;
  const paint = decisionPaint(p, event.decision);
  const title = `${p.bold(printableLine(event.hook_name))} ${p.dim('·')} ${printableLine(event.hook_event_name)} ${p.dim('·')} ${paint(event.decision)}`;
  return [`╭─ ${title}`, indent(printable(event.message), '│ '), '╰─'].join('\n');
};

/** The decision as one headline (`BLOCK  reason`) and indented details. */
export const formatDecision = (decision: HookDecision, color: boolean): string => {
  const p = palette(color);
  const head = decisionPaint(p, decision.decision)(decision.decision.toUpperCase());
  const why = decision.reason ?? decision.systemMessage;
  const lines = [`${p.bold('decision')} ${head}${why === undefined ? '' : `  ${printable(why)}`}`];
  if (decision.systemMessage !== undefined && decision.reason !== undefined) {
    lines.push(`  ${p.dim('message')}  ${printable(decision.systemMessage)}`);
  }
  if (decision.additional_context !== undefined) {
    lines.push(
      `  ${p.dim('context')}  ${indent(printable(decision.additional_context.trimEnd()), '           ').trimStart()}`,
    );
  }
  if (decision.hook_specific_output !== undefined) {
    lines.push(`  ${p.dim('output')}   ${printableJson(JSON.stringify(decision.hook_specific_output))}`);
  }
  return lines.join('\n');
};

/** How `fire` learns each reported hook's mode: by name and source, from the chain it ran. */
export type ModeLookup = (name: string, source: string) => string | undefined;

/**
 * Each hook of the chain: what it decided, its outcome and how long it took; with `modes`, also
 * how it runs (`per-event` or `persistent`).
 */
export const formatHookReports = (decision: HookDecision, color: boolean, modes?: ModeLookup): string => {
  const p = palette(color);
  if (decision.hooks.length === 0) return p.dim('no hooks apply to this event');
  const mode = (name: string, source: string) => (modes === undefined ? [] : [modes(name, source) ?? '-']);
  const rows = [
    ['hook', 'source', ...(modes === undefined ? [] : ['mode']), 'decision', 'outcome', 'time'],
    ...decision.hooks.map((hook) => [
      printableLine(hook.name),
      printableLine(hook.source),
      ...mode(hook.name, hook.source),
      hook.decision ?? '-',
      hook.outcome,
      hook.duration_ms === undefined ? '' : `${hook.duration_ms} ms`,
    ]),
  ];
  const shift = modes === undefined ? 0 : 1;
  return columns(rows, (row, column, cell) => {
    if (row === 0) return p.dim(cell);
    if (column === 2 + shift && cell.trim() !== '-') return decisionPaint(p, cell.trim() as Decision)(cell);
    if (column === 3 + shift && cell.trim() === 'skipped') return p.dim(cell);
    if (column === 3 + shift && cell.trim() !== 'ok') return p.magenta(cell);
    return cell;
  }).join('\n');
};

/** The fields of an event a headline shows (an event as sent, before validation, will do). */
export interface EventSummary {
  readonly hook_event_name: string;
  readonly session_id: string;
  readonly tool_name?: unknown;
}

/** One line naming the event: its name, and the tool and session when there are. */
export const formatEventHeadline = (event: EventSummary, color: boolean): string => {
  const p = palette(color);
  const tool = typeof event.tool_name === 'string' ? [`tool ${printableLine(event.tool_name)}`] : [];
  const session = `session ${printableLine(event.session_id)}`;
  return `${p.bold(p.cyan(printableLine(event.hook_event_name)))}  ${p.dim([...tool, session].join(' · '))}`;
};

/** What `fire` prints: the event, the cards, the chain, the decision. */
export const formatFireResult = (
  event: EventSummary,
  notifications: readonly HookNotification[],
  decision: HookDecision,
  color: boolean,
  modes?: ModeLookup,
): string =>
  [
    formatEventHeadline(event, color),
    ...notifications.map((notification) => formatCard(notification, color)),
    formatHookReports(decision, color, modes),
    formatDecision(decision, color),
  ].join('\n\n');

/** One observer's run as `fire` shows it (docs/audit.md, `observer_result`). */
export interface ObserverShown {
  readonly name: string;
  readonly source: string;
  readonly outcome: string;
  readonly decision?: string;
  readonly duration_ms: number;
  readonly message?: string;
}

/** `fire`: after the decision, a line per observer that ran, and how many did not report in time. */
export const formatObserverRuns = (
  runs: readonly ObserverShown[],
  expected: number,
  color: boolean,
): string => {
  if (expected === 0) return '';
  const p = palette(color);
  const lines = runs.map((run) => {
    const what =
      run.outcome === 'ok'
        ? `ok${run.decision === undefined ? '' : ` (answered ${run.decision}, changes nothing)`}`
        : p.magenta(run.outcome);
    const why = run.message === undefined ? '' : `: ${printableLine(redactText(run.message))}`;
    return `observer ${printableLine(run.name)}: ${what}, ${run.duration_ms} ms${why}`;
  });
  if (runs.length < expected)
    lines.push(p.yellow(`${expected - runs.length} observer(s) did not report in time`));
  return `\n\n${lines.join('\n')}`;
};

/** `doctor`: one table row per dry-run hook: starts, answers, outcome, time, meaning. */
export const formatDryRuns = (runs: readonly DryRun[], color: boolean): string[] => {
  const p = palette(color);
  if (runs.length === 0) return ['', `${p.bold('dry run')}  ${p.dim('no enabled hooks')}`];
  const rows = [
    ['event', 'hook', 'source', 'starts', 'answers', 'outcome', 'time', 'meaning'],
    ...runs.map((run) => [
      run.event,
      run.observer === true ? `${printableLine(run.name)} (observer)` : printableLine(run.name),
      printableLine(run.source),
      run.started ? 'yes' : 'no',
      run.answered ? 'yes' : 'no',
      run.outcome,
      run.duration_ms === undefined ? '' : `${run.duration_ms} ms`,
      printableLine(redactText(run.meaning)),
    ]),
  ];
  const table = columns(rows, (row, column, cell) => {
    if (row === 0) return p.dim(cell);
    if ((column === 3 || column === 4) && cell.trim() === 'no') return p.bold(p.red(cell));
    if (column === 5 && cell.trim() !== '') {
      const outcome = cell.trim();
      return outcome === 'allow' || outcome === 'block' || outcome === 'ask' || outcome === 'none'
        ? decisionPaint(p, outcome)(cell)
        : p.magenta(cell);
    }
    return cell;
  });
  return [
    '',
    `${p.bold('dry run')}  ${p.dim('each enabled hook, a harmless sample event, a scratch folder')}`,
    ...table.map((line) => `  ${line}`),
  ];
};

/** The last line of `doctor`. */
export const formatDoctorSummary = (
  errors: number,
  warnings: number,
  runs: readonly DryRun[],
  color: boolean,
): string => {
  const p = palette(color);
  const failed = runs.filter((run) => !run.answered).length;
  const parts = [
    errors > 0 && plural(errors, 'error'),
    warnings > 0 && plural(warnings, 'warning'),
    failed > 0 && `${failed} of ${plural(runs.length, 'hook')} did not answer`,
  ].filter(Boolean);
  return parts.length === 0
    ? `${p.green('ok')}: ${plural(runs.length, 'hook')} started and answered`
    : p.red(parts.join(', '));
};
