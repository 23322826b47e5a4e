/**
 * `npm start`: a scripted agent session through the real hook engine. The hooks are the real
 * scripts in examples/hooks, configured by examples/config.toml and run as processes by the real
 * executor; only the model and the tools are simulated.
 *
 * The agent loop is reactive: events go into the engine through a Subject, decisions come back
 * on `decisions$`, and each decision is turned by the agent into the next event.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, scan, startWith, Subject, tap, type Observable } from 'rxjs';
import { decisionPaint, formatCard, indent } from '../src/cli/format.js';
import { palette, useColor } from '../src/cli/style.js';
import {
  defaultDeps,
  formatProblem,
  hookPipeline,
  loadHooks,
  type AuditRecord,
  type EventInput,
  type HookDecision,
  type HookNotification,
} from '../src/index.js';
import { react, startAgent, type AgentEvent, type Line, type Step } from './agent.js';

/** The repository root: the folder above this file's that holds examples/config.toml. */
const findRoot = (): string => {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'examples', 'config.toml'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error('cannot find examples/config.toml above the demo');
    folder = parent;
  }
  return folder;
};

const root = findRoot();
const color = useColor(process.stdout.isTTY, process.env);
const p = palette(color);
const print = (text = '') => process.stdout.write(`${text}\n`);

// A private home keeps the demo away from the user's own ~/.copilot-shell hooks and extensions.
const scratch = mkdtempSync(join(tmpdir(), 'cosh-hooks-demo-'));
const emptyExtensions = join(scratch, 'system-extensions');
mkdirSync(emptyExtensions);
const auditLog = join(scratch, 'audit.jsonl');
// Hooks inherit the host's environment: this is how the audit hook learns where to write.
process.env['AUDIT_LOG'] = auditLog;

const loaded = loadHooks({
  configPath: join(root, 'examples', 'config.toml'),
  home: scratch,
  systemExtensionsDir: emptyExtensions,
  workspace: root,
});
if (!loaded.ok) {
  for (const problem of loaded.errors) process.stderr.write(`error: ${formatProblem(problem)}\n`);
  process.exit(2);
}
for (const problem of loaded.warnings) process.stderr.write(`warning: ${formatProblem(problem)}\n`);

const describeEvent = (event: AgentEvent): string => {
  const field = (name: string) => event[name];
  switch (event.hook_event_name) {
    case 'SessionStart':
      return `source ${String(field('source'))}`;
    case 'UserPromptSubmit':
      return JSON.stringify(field('prompt'));
    case 'BeforeModel':
      return `${(field('llm_request') as { messages: unknown[] }).messages.length} messages to the model`;
    case 'AfterModel': {
      const calls = (field('llm_response') as { tool_calls?: unknown[] }).tool_calls ?? [];
      return calls.length === 0 ? 'a final answer' : `a reply with ${calls.length} tool call`;
    }
    case 'Stop':
      return 'the agent wants to stop';
    default:
      return `${String(field('tool_name'))}: ${String((field('tool_input') as { command?: unknown }).command)}`;
  }
};

const renderEvent = (event: AgentEvent) =>
  print(`${p.bold(p.cyan(`▶ ${event.hook_event_name}`))}  ${p.dim(describeEvent(event))}`);

const renderDecision = (decision: HookDecision) => {
  const hooks = decision.hooks
    .map((hook) =>
      hook.outcome === 'ok'
        ? `${hook.name} ${hook.decision ?? 'none'} ${hook.duration_ms ?? 0} ms`
        : `${hook.name} ${hook.outcome}`,
    )
    .join(' · ');
  const painted = decisionPaint(p, decision.decision)(decision.decision.toUpperCase().padEnd(5));
  // The shared colours show a pass-through dim only; here every headline is bold, so NONE stands out
  // from the dim hook list next to it.
  const head = decision.decision === 'none' ? p.bold(painted) : painted;
  const reason = decision.decision === 'none' || decision.reason === undefined ? '' : `  ${decision.reason}`;
  print(`  ${p.dim('decision')} ${head}${reason}  ${p.dim(`(${hooks || 'no hooks'})`)}`);
  if (decision.additional_context !== undefined) {
    print(`  ${p.dim('context')}  ${p.blue(decision.additional_context.replace(/\n/g, ' / '))}`);
  }
};

const WHO = {
  user: p.green('user '),
  model: p.magenta('model'),
  tool: p.yellow('tool '),
  agent: p.cyan('agent'),
};
const renderLine = (line: Line) => print(`${p.bold(WHO[line.who])}  ${line.text}`);
const renderCard = (notification: HookNotification) => print(indent(formatCard(notification, color), '  '));

// The engine: events in, decisions and notifications out. Notifications are shown as cards the
// moment they arrive; they always come before the decision of their event.
const events$ = new Subject<AgentEvent>();
// The scripted agent builds its events loosely (any name, any field); the engine checks each one.
const { decisions$, notifications$, audit$ } = hookPipeline(
  loaded.registry,
  defaultDeps(),
)(events$ as Observable<unknown> as Observable<EventInput>);
// The audit stream (docs/audit.md): every hook's verdict, blocked calls and observers included.
const auditRecords: AuditRecord[] = [];
audit$.subscribe((record) => auditRecords.push(record));
const notifications: HookNotification[] = [];
notifications$.subscribe((notification) => {
  notifications.push(notification);
  renderCard(notification);
});

// The agent loop: every decision goes to the agent, whose reaction is the next event.
const send = (step: Step) => {
  if (step.decision !== undefined) renderDecision(step.decision);
  step.say.forEach(renderLine);
  if (step.next === undefined) {
    events$.complete();
    return;
  }
  renderEvent(step.next);
  events$.next(step.next);
};
const first = startAgent({
  sessionId: 'demo-session',
  cwd: root,
  prompt: 'Clean up this workspace: show me what is in it, then delete the build output.',
  // The scripted user approves when a hook asks (here: the force-push).
  confirm: () => true,
});

print(p.bold('cosh-hooks demo: a scripted agent session through the real hook engine'));
print(
  p.dim(`hooks: ${relative(process.cwd(), join(root, 'examples', 'config.toml')) || 'examples/config.toml'}`),
);
print(p.dim(`audit log: ${auditLog}`));
print();

const decisions: HookDecision[] = [];
const last = await lastValueFrom(
  decisions$.pipe(
    tap((decision) => decisions.push(decision)),
    scan((step: Step, decision) => react(step.state, decision), first),
    startWith(first),
    tap(send),
  ),
);

const count = (kind: HookDecision['decision']) => decisions.filter((d) => d.decision === kind).length;
const audited = existsSync(auditLog) ? readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).length : 0;
print();
print(p.bold('Session summary'));
print(
  `  ${decisions.length} events, decisions: ${count('block')} block, ${count('ask')} ask, ` +
    `${count('allow')} allow, ${count('none')} pass-through; ${notifications.length} notifications`,
);
print(`  tools run (simulated): ${last.state.toolsRun.join(', ') || 'none'}`);
print(`  refused: ${last.state.refused.join(', ') || 'none'}`);
print(`  audit log: ${audited} records in ${auditLog}`);

/** One audit record as a line of the summary. */
const describeRecord = (record: AuditRecord): string => {
  switch (record.record) {
    case 'event_received':
      return `${record.hook_event_name} ${record.tool_name ?? ''}  chain: ${record.chain.join(', ') || 'none'}; observers: ${record.observers?.join(', ') ?? 'none'}`;
    case 'hook_result':
    case 'observer_result':
      return `${record.hook} ${record.outcome === 'ok' ? (record.decision ?? 'none') : record.outcome}${record.reason === undefined ? '' : ` "${record.reason}"`} ${record.duration_ms} ms`;
    case 'hook_skipped':
      return `${record.hook} (blocked by ${record.blocked_by ?? '?'})`;
    case 'decision':
      return `${record.decision}${record.decided_by === undefined ? '' : ` by ${record.decided_by}`}`;
    case 'observer_dropped':
      return `${record.hook} missed it (${record.dropped} dropped)`;
    default:
      return '';
  }
};
const blocked = decisions.find((decision) => decision.decision === 'block');
if (blocked !== undefined) {
  print();
  print(p.bold(`Audit of the blocked call (seq ${blocked.seq}, from audit$)`));
  for (const record of auditRecords.filter((r) => 'seq' in r && r.seq === blocked.seq)) {
    print(`  ${p.dim(record.record.padEnd(15))} ${describeRecord(record)}`);
  }
}
print(`  audit stream: ${auditRecords.length} records`);

// The demo doubles as a smoke test: it fails loudly if the guard let the destructive command through.
const guarded = last.state.refused.includes('rm -rf /') && !last.state.toolsRun.includes('rm -rf /');
if (!guarded) {
  print(p.red('  the security guard did not block rm -rf / — check examples/hooks/security-guard.sh'));
  process.exitCode = 1;
}
