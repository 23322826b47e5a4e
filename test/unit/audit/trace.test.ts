import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/audit/records.js';
import { traceAudit } from '../../../src/audit/trace.js';
import { hookPipeline } from '../../../src/pipeline/pipeline.js';
import { registryOf } from '../../../src/registry/index.js';
import {
  commandHook,
  createTestScheduler,
  fakeExecutor,
  results,
  testDeps,
} from '../../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const pre = {
  hook_event_name: 'PreToolUse' as const,
  session_id: 's1',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: 'call-7',
  tool_name: 'shell',
  tool_input: { command: 'rm -rf / password=hunter2' },
};

/** Hours of virtual time as epoch milliseconds: spans need a real-looking clock. */
const EPOCH = Date.UTC(2026, 6, 1);

describe('traceAudit', () => {
  it('makes an event span and a child per hook at the records’ own times, from the audit stream', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const scheduler = createTestScheduler();
    const records = new Subject<AuditRecord>();
    const tracing = await traceAudit(records, { tracerProvider: provider, content: true });
    scheduler.run(({ cold, hot }) => {
      const registry = registryOf((name) =>
        name === 'PreToolUse' ? [commandHook('A'), commandHook('B'), commandHook('C')] : [],
      );
      const executor = fakeExecutor({
        A: cold('--a|', { a: results.allow() }),
        B: cold('---b|', { b: results.block('no') }),
        C: cold('-c|', { c: results.allow() }),
      });
      const deps = {
        ...testDeps(scheduler, executor),
        scheduler: { now: () => EPOCH + scheduler.now(), schedule: scheduler.schedule.bind(scheduler) },
      };
      const streams = hookPipeline(registry, deps, { auditContent: true })(hot('-x-------|', { x: pre }));
      streams.audit$.subscribe(records);
    });
    tracing.unsubscribe();
    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((span) => [span.name, span]));
    const event = byName.get('cosh_hooks PreToolUse')!;
    expect(event.attributes).toMatchObject({
      'gen_ai.conversation.id': 's1',
      'gen_ai.session.id': 's1',
      'gen_ai.tool.name': 'shell',
      'gen_ai.tool.call.id': 'call-7',
      'cosh.hook.decision': 'block',
      'cosh.hook.decided_by': 'B',
    });
    // Content was asked for: the tool input, redacted.
    expect(String(event.attributes['gen_ai.tool.call.arguments'])).toContain('rm -rf /');
    expect(String(event.attributes['gen_ai.tool.call.arguments'])).not.toContain('hunter2');
    const ms = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6 - EPOCH;
    expect([ms(event.startTime), ms(event.endTime)]).toStrictEqual([1, 6]);
    const a = byName.get('cosh_hooks.hook A')!;
    const b = byName.get('cosh_hooks.hook B')!;
    const c = byName.get('cosh_hooks.hook C')!;
    for (const child of [a, b, c]) {
      expect(child.parentSpanContext?.spanId).toBe(event.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(event.spanContext().traceId);
    }
    expect([ms(a.startTime), ms(a.endTime), ms(b.startTime), ms(b.endTime)]).toStrictEqual([1, 3, 3, 6]);
    expect(a.attributes['cosh.hook.decision']).toBe('allow');
    expect(b.attributes['cosh.hook.decision']).toBe('block');
    expect(c.attributes['cosh.hook.outcome']).toBe('skipped');
  });

  it('the engine never loads @opentelemetry/*: only type imports, and dynamic imports inside traceAudit and the CLI export', () => {
    const files = [
      ...readdirSync(`${ROOT}src`, { recursive: true, encoding: 'utf8' }).map((path) => `src/${path}`),
      ...readdirSync(`${ROOT}operators`).map((path) => `operators/${path}`),
    ].filter((path) => path.endsWith('.ts'));
    const staticImports = files.filter((path) =>
      /^import (?!type )[^;]*from '@opentelemetry\//m.test(readFileSync(`${ROOT}${path}`, 'utf8')),
    );
    expect(staticImports).toStrictEqual([]);
    const dynamic = files.filter((path) =>
      /import\('@opentelemetry\//.test(readFileSync(`${ROOT}${path}`, 'utf8')),
    );
    expect(dynamic.sort()).toStrictEqual(['src/audit/otlp.ts', 'src/audit/trace.ts']);
  });
});
