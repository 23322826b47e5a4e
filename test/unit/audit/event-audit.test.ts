import { from, Observable, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { auditEvent, type EventAudit } from '../../../src/audit/event-audit.js';
import type { AuditRecord } from '../../../src/audit/records.js';
import type { HookEvent } from '../../../src/events/codecs.js';
import type { OutputLine } from '../../../src/output/lines.js';
import { toDecision } from '../../../src/output/lines.js';
import { aggregate } from '../../../src/protocol/aggregate.js';
import { createTestScheduler } from '../../../src/testing/index.js';
import type { MatchedEvent } from '../../../operators/matchHooks.js';

const event = {
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  cwd: '/',
  timestamp: '2026-07-01T10:00:00Z',
  tool_use_id: 't1',
  tool_name: 'shell',
  tool_input: { command: 'ls' },
} as HookEvent;
const job: MatchedEvent = { kind: 'event', seq: 1, event, chain: [] };
const decision = toDecision(1, event, aggregate([]));
const notification: OutputLine = {
  type: 'hook_notification',
  seq: 1,
  event: { subtype: 'hook_notification', hook_name: 'a', message: 'hi', decision: 'allow' },
} as unknown as OutputLine;

const auditInto = (records: AuditRecord[]): EventAudit => ({
  auditing: () => true,
  emit: (record) => records.push(record),
  observersOf: () => [],
  observe: () => undefined,
  content: false,
  now: () => 0,
});

describe('auditEvent', () => {
  it('an array answer: the lines, then the records, made after the decision was taken', async () => {
    const records: AuditRecord[] = [];
    const lines = await new Promise<OutputLine[]>((resolve) =>
      from(auditEvent(job, () => [decision], auditInto(records)))
        .pipe(toArray())
        .subscribe(resolve),
    );
    expect(lines).toStrictEqual([decision]);
    expect(records.map((record) => record.record)).toStrictEqual(['event_received', 'decision']);
  });

  it('a stream answer closed by its consumer while it emits synchronously stops at once: no later line is made, no record', () => {
    const records: AuditRecord[] = [];
    const made: string[] = [];
    let tornDown = false;
    const chain = new Observable<OutputLine>((subscriber) => {
      made.push('notification');
      subscriber.next(notification);
      if (!subscriber.closed) {
        made.push('decision');
        subscriber.next(decision);
        subscriber.complete();
      }
      return () => (tornDown = true);
    });
    const seen: OutputLine[] = [];
    from(auditEvent(job, () => chain, auditInto(records)))
      .pipe(take(1))
      .subscribe((line) => seen.push(line));
    expect(seen).toStrictEqual([notification]);
    expect(made).toStrictEqual(['notification']);
    expect(tornDown).toBe(true);
    expect(records).toStrictEqual([]);
  });

  it('a stream answer: every line passes, then the records, then completion', () => {
    const records: AuditRecord[] = [];
    const order: string[] = [];
    const chain = from([notification, decision]);
    from(
      auditEvent(job, () => chain, { ...auditInto(records), emit: (record) => order.push(record.record) }),
    ).subscribe({
      next: (line) => order.push(line.type),
      complete: () => order.push('complete'),
    });
    expect(order).toStrictEqual([
      'hook_notification',
      'hook_decision',
      'event_received',
      'decision',
      'complete',
    ]);
  });

  it("what the audit step throws after an asynchronous chain becomes the stream's error, as under a tap, and is never thrown out of the chain's timer", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const chain = cold<OutputLine>('--d|', { d: decision });
      const throwing: EventAudit = {
        ...auditInto([]),
        emit: () => {
          throw new Error('record sink broke');
        },
      };
      expectObservable(from(auditEvent(job, () => chain, throwing))).toBe(
        '--d#',
        { d: decision },
        new Error('record sink broke'),
      );
    });
  });
});
