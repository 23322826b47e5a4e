/**
 * `npm start`: a scripted agent session through the real hook engine. The agent is a real Vercel
 * AI SDK loop (`generateText` with a tool, over several steps) hooked by `cosh-hooks/ai-sdk`; the
 * hooks are the real scripts in examples/hooks, configured by examples/config.toml and run as
 * processes by the real executor; only the model (the SDK's own mock model, scripted) and the
 * tool are simulated.
 *
 * The demo watches the engine from outside: every event the adapter sends and every line the
 * session answers is printed as it happens.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateText, isStepCount, type ModelMessage } from 'ai';
import { filter, firstValueFrom, startWith, tap } from 'rxjs';
import { decisionPaint, formatCard, indent } from '../src/cli/format.js';
import { palette, useColor } from '../src/cli/style.js';
import { aiSdkHooks } from '../src/adapters/ai-sdk.js';
import {
  createSession,
  defaultDeps,
  formatProblem,
  loadHooks,
  type AuditRecord,
  type EventInput,
  type HookDecision,
  type HookNotification,
  type Session,
} from '../src/index.js';
import { scriptedModel, shellTool } from './agent.js';

/** An event as the demo reads it to describe it. */
type AgentEvent = Readonly<Record<string, unknown>> & { readonly hook_event_name: string };
/** Something to show on the screen, said by someone. */
interface Line {
  readonly who: 'user' | 'model' | 'tool' | 'agent';
  readonly text: string;
}

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

// The engine: one session for the run; the AI SDK adapter sends it each event. The demo wraps
// `decide` only to watch: it prints each event, its notification cards as they arrive (always
// before the decision of their event), and the decision.
const engine = createSession(loaded.registry, defaultDeps(), { concurrency: 'per-session' });
// The audit stream (docs/audit.md): every hook's verdict, blocked calls and observers included.
const auditRecords: AuditRecord[] = [];
engine.audit$.subscribe((record) => auditRecords.push(record));
const notifications: HookNotification[] = [];
const decisions: HookDecision[] = [];
const refused: string[] = [];
const toolsRun: string[] = [];
const commandIn = (event: AgentEvent) => String((event['tool_input'] as { command?: unknown }).command);

const prompt = 'Clean up this workspace: show me what is in it, then delete the build output.';
const watched: Session = {
  decide: (input) => {
    const event = input as EventInput as AgentEvent;
    if (event.hook_event_name === 'UserPromptSubmit')
      renderLine({ who: 'user', text: String(event['prompt']) });
    renderEvent(event);
    return engine.decide(input).pipe(
      tap((line) => {
        if (line.type === 'stream_event') {
          notifications.push(line);
          renderCard(line);
        } else if (line.type === 'hook_decision') {
          decisions.push(line);
          renderDecision(line);
          if (event.hook_event_name === 'PreToolUse' && line.decision === 'block') {
            refused.push(commandIn(event));
            renderLine({
              who: 'agent',
              text: `not running ${commandIn(event)}: blocked: ${line.reason ?? 'no reason given'}`,
            });
          }
        }
      }),
    );
  },
  wants: (name, matched) => engine.wants(name, matched),
  close: () => engine.close(),
  get closed() {
    return engine.closed;
  },
  audit$: engine.audit$,
};

// The agent: an AI SDK loop whose every model and tool call goes through the hooks.
const ai = aiSdkHooks({ session: watched, sessionId: 'demo-session', cwd: root });
const model = scriptedModel((reply) =>
  renderLine({
    who: 'model',
    text: `${reply.content}${reply.command === undefined ? '' : `  → shell: ${reply.command}`}`,
  }),
);
const shell = shellTool((command, outcome) => {
  toolsRun.push(command);
  if (!outcome.ok) renderLine({ who: 'tool', text: `${command} failed: ${outcome.error}` });
  else {
    const lines =
      outcome.output === '' ? 'no output' : `${outcome.output.split('\n').length} lines of output`;
    renderLine({ who: 'tool', text: `ran ${command} (simulated): ${lines}` });
  }
});
const settings = ai.wrap({ model, tools: { shell } });

print(p.bold('cosh-hooks demo: a scripted agent session through the real hook engine'));
print(
  p.dim(`hooks: ${relative(process.cwd(), join(root, 'examples', 'config.toml')) || 'examples/config.toml'}`),
);
print(p.dim(`audit log: ${auditLog}`));
print();

// One turn: SessionStart, UserPromptSubmit, the agent's steps, Stop. The hooks' context goes to the
// model as system messages; a hook's `ask` comes back as the SDK's approval request, and the
// scripted user approves (here: the force-push).
const outcome = await ai.turn(prompt, async (input) => {
  if (input.continuation > 0) renderLine({ who: 'agent', text: `a hook asked to continue: ${input.prompt}` });
  const messages: ModelMessage[] = [
    ...input.context.map((content): ModelMessage => ({ role: 'system', content })),
    { role: 'user', content: input.prompt },
  ];
  for (;;) {
    const result = await generateText({
      ...settings,
      messages,
      allowSystemInMessages: true,
      stopWhen: isStepCount(10),
    });
    messages.push(...result.responseMessages);
    const requests = result.content.flatMap((part) =>
      part.type === 'tool-approval-request' && part.isAutomatic !== true ? [part] : [],
    );
    if (requests.length === 0) return result;
    messages.push({
      role: 'tool',
      content: requests.map((request) => {
        const command = String((request.toolCall.input as { command?: unknown }).command);
        const asked = decisions.findLast((d) => d.hook_event_name === 'PreToolUse' && d.decision === 'ask');
        renderLine({
          who: 'user',
          text: `${asked?.systemMessage ?? request.reason ?? 'A hook asks for confirmation'}. Run ${command}? yes`,
        });
        return { type: 'tool-approval-response' as const, approvalId: request.approvalId, approved: true };
      }),
    });
  }
});
renderLine({
  who: 'agent',
  text: outcome.ok ? 'session over' : `prompt refused by a hook: ${outcome.reason}`,
});

/** Observer runs still owed: each event names its observers, each run (or drop) is one record. */
const observersOwed = (): number =>
  auditRecords.reduce(
    (owed, record) =>
      record.record === 'event_received'
        ? owed + (record.observers?.length ?? 0)
        : record.record === 'observer_result'
          ? owed - 1
          : record.record === 'observer_dropped'
            ? owed - record.dropped
            : owed,
    0,
  );
// Observers run after each decision is out; closing the session would stop the last ones.
await firstValueFrom(
  engine.audit$.pipe(
    startWith(undefined),
    filter(() => observersOwed() <= 0),
  ),
);
engine.close();

const count = (kind: HookDecision['decision']) => decisions.filter((d) => d.decision === kind).length;
const audited = existsSync(auditLog) ? readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).length : 0;
print();
print(p.bold('Session summary'));
print(
  `  ${decisions.length} events, decisions: ${count('block')} block, ${count('ask')} ask, ` +
    `${count('allow')} allow, ${count('none')} pass-through; ${notifications.length} notifications`,
);
print(`  tools run (simulated): ${toolsRun.join(', ') || 'none'}`);
print(`  refused: ${refused.join(', ') || 'none'}`);
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
const guarded = refused.includes('rm -rf /') && !toolsRun.includes('rm -rf /');
if (!guarded) {
  print(p.red('  the security guard did not block rm -rf / — check examples/hooks/security-guard.sh'));
  process.exitCode = 1;
}
