import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/events/untrusted.js';
import { Confirmations } from '../../../src/mcp/confirmations.js';
import { httpFailure, withCauses } from '../../../src/mcp/http-upstream.js';

describe("the proxy's own confirmations", () => {
  it('asks only a client that can answer; the answer goes to the asking call and no further', () => {
    const sent: [JsonObject, unknown][] = [];
    const confirms = new Confirmations((message, related) => sent.push([message, related]));
    expect(confirms.ask(7, 'mcp__fs__echo', {}, 'loud')).toBeUndefined();
    confirms.enabled = true;
    const answers: JsonObject[] = [];
    confirms.ask(7, 'mcp__fs__echo', { a: 1 }, 'loud')?.subscribe((answer) => answers.push(answer));
    expect(sent).toMatchObject([[{ id: 'cosh-hooks-confirm-1', method: 'elicitation/create' }, 7]]);
    expect(confirms.answer('someone-else', {})).toBe(false);
    expect(confirms.answer('cosh-hooks-confirm-1', { result: { action: 'accept' } })).toBe(true);
    expect(answers).toStrictEqual([{ result: { action: 'accept' } }]);
    expect(confirms.answer('cosh-hooks-confirm-1', {})).toBe(false);
    expect(sent).toHaveLength(1);
  });

  it('a call cancelled while asking withdraws its question', () => {
    const sent: [JsonObject, unknown][] = [];
    const confirms = new Confirmations((message, related) => sent.push([message, related]));
    confirms.enabled = true;
    confirms.ask('c', 'mcp__fs__echo', {}, 'loud')?.subscribe().unsubscribe();
    expect(sent[1]).toMatchObject([
      { method: 'notifications/cancelled', params: { requestId: 'cosh-hooks-confirm-1' } },
      'c',
    ]);
    expect(confirms.answer('cosh-hooks-confirm-1', {})).toBe(false);
  });
});

describe('an HTTP upstream that fails is named, with the cause', () => {
  it('walks the causes, an AggregateError of both address families included', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(withCauses(new TypeError('fetch failed', { cause: refused }))).toBe(
      'fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    );
    const both = new AggregateError([new Error('connect ECONNREFUSED ::1:1'), refused], '');
    expect(withCauses(new TypeError('fetch failed', { cause: both }))).toBe(
      'fetch failed: connect ECONNREFUSED ::1:1; connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(
      httpFailure(new URL('http://127.0.0.1:1/mcp'), new TypeError('fetch failed', { cause: refused }))
        .message,
    ).toBe(
      'the upstream server http://127.0.0.1:1/mcp cannot be reached: fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});
