import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/events/untrusted.js';
import { PendingRequests, type PendingRequest } from '../../../src/mcp/pending.js';

/** Pending requests on virtual time: `at(ms)` runs every deadline due by then. */
const setup = (timeoutMs = 100) => {
  const scheduler = new VirtualTimeScheduler();
  const timedOut: [PendingRequest, string][] = [];
  const pending = new PendingRequests({
    scheduler,
    timeoutMs,
    timedOut: (request, message) => timedOut.push([request, message]),
  });
  const settled: JsonObject[] = [];
  const settle = (response: JsonObject) => settled.push(response);
  const at = (ms: number) => {
    // A no-op due at `ms` moves the virtual clock there.
    scheduler.schedule(() => undefined, ms - scheduler.frame);
    scheduler.maxFrames = ms;
    scheduler.flush();
  };
  return { pending, timedOut, settled, settle, at };
};
const request = (id: string | number, meta?: JsonObject): JsonObject => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/list',
  ...(meta !== undefined && { params: { _meta: meta } }),
});

describe('pending requests', () => {
  it('correlates by id, 1 and "1" apart; an answer is taken once', () => {
    const { pending, settled } = setup();
    pending.add(1, request(1), (response) => settled.push({ number: response }));
    pending.add('1', request('1'), (response) => settled.push({ text: response }));
    expect(pending.size).toBe(2);
    pending.take('1')?.({ id: '1' });
    expect(settled).toStrictEqual([{ text: { id: '1' } }]);
    expect(pending.take('1')).toBeUndefined();
    expect(pending.has(1)).toBe(true);
    expect(pending.has('1')).toBe(false);
  });

  it('a request the upstream does not answer in time gets -32001, and the timeout is reported once', () => {
    const { pending, timedOut, settled, settle, at } = setup(100);
    pending.add(7, request(7), settle);
    at(99);
    expect(settled).toStrictEqual([]);
    at(100);
    expect(settled).toStrictEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32001, message: 'the upstream server did not answer within 100 ms' },
      },
    ]);
    expect(timedOut.map(([entry, message]) => [entry.id, entry.method, message])).toStrictEqual([
      [7, 'tools/list', 'the upstream server did not answer within 100 ms'],
    ]);
    // A late answer finds nothing waiting.
    expect(pending.take(7)).toBeUndefined();
    at(1_000);
    expect(settled).toHaveLength(1);
  });

  it('a progress notification restarts the deadline of the request its token belongs to', () => {
    const { pending, settled, settle, at } = setup(100);
    pending.add('a', request('a', { progressToken: 'p1' }), settle);
    at(80);
    expect(pending.progressed('p1')).toBe('a');
    expect(pending.progressed('unknown')).toBeUndefined();
    at(179);
    expect(settled).toStrictEqual([]);
    at(180);
    expect(settled).toHaveLength(1);
    // Once settled, its token belongs to nothing.
    expect(pending.progressed('p1')).toBeUndefined();
  });

  it('a taken request has no deadline left', () => {
    const { pending, timedOut, settled, settle, at } = setup(100);
    pending.add(1, request(1), settle);
    pending.take(1);
    at(1_000);
    expect(settled).toStrictEqual([]);
    expect(timedOut).toStrictEqual([]);
  });

  it('only() is the one request waiting, if there is exactly one', () => {
    const { pending, settle } = setup();
    expect(pending.only()).toBeUndefined();
    pending.add(1, request(1), settle);
    expect(pending.only()).toBe(1);
    pending.add(2, request(2), settle);
    expect(pending.only()).toBeUndefined();
  });

  it('failAll settles every request with -32000 and the reason; nothing is left', () => {
    const { pending, settled, settle, at } = setup(100);
    pending.add(1, request(1), settle);
    pending.add('b', request('b'), settle);
    pending.failAll(-32000, 'the upstream server exited');
    expect(settled.map((response) => [response['id'], response['error']])).toStrictEqual([
      [1, { code: -32000, message: 'the upstream server exited' }],
      ['b', { code: -32000, message: 'the upstream server exited' }],
    ]);
    expect(pending.size).toBe(0);
    at(1_000);
    expect(settled).toHaveLength(2);
  });

  it('awaiting: sends when subscribed, emits the answer; unsubscribed first, the answer is no longer awaited', () => {
    const { pending } = setup();
    const seen: JsonObject[] = [];
    const subscription = pending
      .awaiting(3, (settle) => pending.add(3, request(3), settle))
      .subscribe((answer) => seen.push(answer));
    expect(pending.has(3)).toBe(true);
    pending.take(3)?.({ id: 3, result: {} });
    expect(seen).toStrictEqual([{ id: 3, result: {} }]);
    expect(subscription.closed).toBe(true);

    const dropped = pending.awaiting(4, (settle) => pending.add(4, request(4), settle)).subscribe();
    dropped.unsubscribe();
    expect(pending.has(4)).toBe(false);
  });
});
