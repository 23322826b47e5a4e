import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, hookTable, jsonl, jsonLines, prints, sandbox, withoutTimes } from './helpers.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));
const SECRET = 'AKIAIOSFODNN7EXAMPLE';

const box = sandbox('');
const config = (observed: string) =>
  [
    hookTable('PreToolUse', {
      name: 'guard',
      matcher: '^shell$',
      command: prints({
        decision: 'block',
        reason: `rm -rf is not allowed (key ${SECRET})`,
        systemMessage: 'Blocked',
      }),
    }),
    hookTable('PreToolUse', { name: 'audit-in-chain', command: 'cat > /dev/null' }),
    hookTable('PreToolUse', {
      name: 'logger',
      observe: true,
      command: `python3 ${join(FIXTURES, 'observer.py')}`,
    }),
    `env = { OUT = ${JSON.stringify(observed)} }`,
    hookTable('PreToolUse', {
      name: 'broken-observer',
      observe: true,
      command: 'exit 7',
    }),
  ].join('\n');
const observedFile = box.path('observed.log');
box.write('config.toml', config(observedFile));
afterAll(() => box.remove());

const events = jsonl(
  {
    hook_event_name: 'PreToolUse',
    session_id: 'sess-1',
    tool_use_id: 'call-1',
    tool_name: 'shell',
    tool_input: { command: `rm -rf / --token ${SECRET}` },
  },
  {
    hook_event_name: 'PreToolUse',
    session_id: 'sess-1',
    tool_use_id: 'call-2',
    tool_name: 'read_file',
    tool_input: { path: 'a' },
  },
);

/** The audit records, each as `record:hook:outcome-or-decision`. */
const briefOf = (record: Record<string, unknown>) =>
  [record['record'], record['hook'] ?? '', record['outcome'] ?? record['decision'] ?? ''].join(':');

describe('cosh-hooks run --audit', () => {
  it('writes the audit of a blocked call and of its observers as JSON lines; stdout is unchanged', async () => {
    const auditFile = box.path('audit-1.jsonl');
    const plain = await cli(['run', ...box.flags], { input: events });
    box.write('observed.log', '');
    const audited = await cli(['run', ...box.flags, '--audit', auditFile], { input: events });
    expect(audited.code).toBe(0);
    expect(jsonLines(audited.stdout).map(withoutTimes)).toStrictEqual(
      jsonLines(plain.stdout).map(withoutTimes),
    );
    const records = jsonLines(readFileSync(auditFile, 'utf8'));
    for (const record of records) expect(record['type']).toBe('audit');
    const chainRecords = records.filter((record) => !String(record['record']).startsWith('observer'));
    expect(chainRecords.map(briefOf)).toStrictEqual([
      'event_received::',
      'hook_result:guard:ok',
      'hook_skipped:audit-in-chain:',
      'decision::block',
      'event_received::',
      'hook_result:audit-in-chain:ok',
      'decision::none',
    ]);
    const received = records[0]!;
    expect(received).toMatchObject({
      seq: 1,
      session_id: 'sess-1',
      tool_use_id: 'call-1',
      tool_name: 'shell',
    });
    expect(received['chain']).toStrictEqual(['guard', 'audit-in-chain']);
    expect(received['observers']).toStrictEqual(['logger', 'broken-observer']);
    expect(received['content']).toBeUndefined();
    expect(records.find((record) => record['record'] === 'hook_skipped')).toMatchObject({
      blocked_by: 'guard',
    });
    expect(records.find((record) => record['record'] === 'decision')).toMatchObject({
      decision: 'block',
      decided_by: 'guard',
      system_message: 'Blocked',
    });
    const observers = records
      .filter((record) => String(record['record']).startsWith('observer'))
      .map(briefOf);
    expect(observers.sort()).toStrictEqual([
      'observer_result:broken-observer:exit',
      'observer_result:broken-observer:exit',
      'observer_result:logger:ok',
      'observer_result:logger:ok',
    ]);
    // The observer saw the blocked call, with its final decision.
    expect(
      readFileSync(observedFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ').slice(0, 2).join(' ')),
    ).toStrictEqual(['1 block', '2 none']);
    // Observer failures are in the audit only: no notification names them.
    expect(audited.stdout).not.toContain('broken-observer');
    expect(readFileSync(auditFile, 'utf8')).not.toContain('IOSFODNN7EXAMPLE');
    expect(readFileSync(auditFile, 'utf8')).toContain('<redacted>');
  });

  it('--audit - writes the records to stderr', async () => {
    const run = await cli(['run', ...box.flags, '--audit', '-'], { input: events });
    expect(run.code).toBe(0);
    const records = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      records.filter((record) => record['record'] === 'decision').map((record) => record['decision']),
    ).toStrictEqual(['block', 'none']);
    expect(run.stdout).not.toContain('"type":"audit"');
  });

  it('appends to an existing file, and refuses a FIFO or a folder before anything runs', async () => {
    const auditFile = box.write('audit-2.jsonl', '');
    await cli(['run', ...box.flags, '--audit', auditFile], { input: events });
    await cli(['run', ...box.flags, '--audit', auditFile], { input: events });
    expect(
      jsonLines(readFileSync(auditFile, 'utf8')).filter((record) => record['record'] === 'decision'),
    ).toHaveLength(4);
    const fifo = box.path('audit.fifo');
    execFileSync('mkfifo', [fifo]);
    const refused = await cli(['run', ...box.flags, '--audit', fifo], { input: events });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`--audit ${fifo}`);
    const folder = await cli(['run', ...box.flags, '--audit', box.dir], { input: events });
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain(`--audit ${box.dir}`);
  });
});

interface Received {
  readonly path: string;
  readonly body: string;
}

/** A real OTLP/HTTP receiver: keeps every request body (the exporter sends JSON). */
const receiver = () => {
  const received: Received[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  return { server, received };
};

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};
interface OtlpSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly status?: { code?: number };
  readonly attributes: readonly { key: string; value: OtlpValue }[];
}

const spansOf = (received: readonly Received[]): OtlpSpan[] =>
  received.flatMap(({ body }) =>
    (JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap(
      (resource) => resource.scopeSpans.flatMap((scope) => scope.spans),
    ),
  );

const plainValue = (value: OtlpValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.boolValue ??
  value.arrayValue?.values?.map(plainValue);

const attributesOf = (span: OtlpSpan): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map(({ key, value }) => [key, plainValue(value)]));

describe('cosh-hooks run --otlp-endpoint', () => {
  const otlp = receiver();
  let endpoint = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => otlp.server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(otlp.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => otlp.server.close(() => resolve())));

  it('exports a span per event and a child per hook, with GenAI attribute names, and no content unless asked', async () => {
    otlp.received.length = 0;
    const run = await cli(['run', ...box.flags, '--otlp-endpoint', endpoint], { input: events });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(otlp.received.every(({ path }) => path === '/v1/traces')).toBe(true);
    const spans = spansOf(otlp.received);
    const event = spans.find(
      (span) =>
        span.name === 'cosh_hooks PreToolUse' && attributesOf(span)['gen_ai.tool.call.id'] === 'call-1',
    )!;
    expect(attributesOf(event)).toMatchObject({
      'gen_ai.conversation.id': 'sess-1',
      'gen_ai.session.id': 'sess-1',
      'gen_ai.tool.name': 'shell',
      'gen_ai.tool.call.id': 'call-1',
      'cosh.hook.event.name': 'PreToolUse',
      'cosh.hook.event.seq': 1,
      'cosh.hook.decision': 'block',
      'cosh.hook.decided_by': 'guard',
      'cosh.hook.chain': ['guard', 'audit-in-chain'],
    });
    expect(attributesOf(event)['gen_ai.tool.call.arguments']).toBeUndefined();
    const children = spans.filter((span) => span.parentSpanId === event.spanId);
    expect(children.every((span) => span.traceId === event.traceId)).toBe(true);
    const byName = Object.fromEntries(children.map((span) => [span.name, attributesOf(span)]));
    expect(byName['cosh_hooks.hook guard']).toMatchObject({
      'cosh.hook.name': 'guard',
      'cosh.hook.source': 'config',
      'cosh.hook.outcome': 'ok',
      'cosh.hook.decision': 'block',
      'cosh.hook.effective_decision': 'block',
      'cosh.hook.position': 0,
      'gen_ai.tool.name': 'shell',
    });
    expect(byName['cosh_hooks.hook audit-in-chain']).toMatchObject({
      'cosh.hook.outcome': 'skipped',
      'cosh.hook.blocked_by': 'guard',
    });
    expect(byName['cosh_hooks.observer logger']).toMatchObject({
      'cosh.hook.outcome': 'ok',
      'cosh.hook.observer': true,
    });
    const broken = children.find((span) => span.name === 'cosh_hooks.observer broken-observer')!;
    expect(attributesOf(broken)).toMatchObject({ 'cosh.hook.failure_kind': 'exit', 'error.type': 'exit' });
    expect(broken.status?.code).toBe(2);
    for (const { body } of otlp.received) expect(body).not.toContain('IOSFODNN7EXAMPLE');
  });

  it('--otlp-content puts the tool input on the event span, redacted', async () => {
    otlp.received.length = 0;
    const run = await cli(['run', ...box.flags, '--otlp-endpoint', endpoint, '--otlp-content'], {
      input: events,
    });
    expect(run.code).toBe(0);
    const event = spansOf(otlp.received).find(
      (span) =>
        attributesOf(span)['gen_ai.tool.call.id'] === 'call-1' && span.name.startsWith('cosh_hooks Pre'),
    )!;
    const args = String(attributesOf(event)['gen_ai.tool.call.arguments']);
    expect(args).toContain('rm -rf /');
    expect(args).toContain('<redacted>');
    for (const { body } of otlp.received) expect(body).not.toContain('IOSFODNN7EXAMPLE');
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT alone turns the export on', async () => {
    otlp.received.length = 0;
    const run = await cli(['run', ...box.flags], {
      input: events,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(run.code).toBe(0);
    expect(spansOf(otlp.received).filter((span) => span.name === 'cosh_hooks PreToolUse')).toHaveLength(2);
  });

  it('with the collector down, decisions are unchanged and the dropped spans are counted', async () => {
    // A port nobody listens on: take one, then close it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const auditFile = box.path('audit-down.jsonl');
    const plain = await cli(['run', ...box.flags], { input: events });
    const down = await cli(
      ['run', ...box.flags, '--otlp-endpoint', `http://127.0.0.1:${port}`, '--audit', auditFile],
      { input: events },
    );
    expect(down.code).toBe(0);
    expect(jsonLines(down.stdout).map(withoutTimes)).toStrictEqual(jsonLines(plain.stdout).map(withoutTimes));
    expect(down.stderr).toMatch(/OTLP export: \d+ span\(s\) dropped, 0 exported/);
    const telemetry = jsonLines(readFileSync(auditFile, 'utf8')).find(
      (record) => record['record'] === 'telemetry',
    );
    expect(telemetry).toMatchObject({ exported: 0 });
    expect(Number(telemetry?.['dropped'])).toBeGreaterThan(0);
  });
});
