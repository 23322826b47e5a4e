import { describe, expect, it } from 'vitest';
import { boundedKey, DIGEST_KEY_PREFIX, MAX_KEY_CHARS } from '../../../src/events/bounded-key.js';

describe('boundedKey', () => {
  it('a short id is its own key', () => {
    expect(boundedKey('s1')).toBe('s1');
    expect(boundedKey('')).toBe('');
    expect(boundedKey('x'.repeat(MAX_KEY_CHARS))).toBe('x'.repeat(MAX_KEY_CHARS));
  });

  it('a long id is a fixed-length digest, the same for the same id and another for another', () => {
    const long = 'x'.repeat(1024 * 1024);
    const key = boundedKey(long);
    expect(key).toMatch(/^#sha256:[0-9a-f]{64}$/);
    expect(boundedKey('x'.repeat(1024 * 1024))).toBe(key);
    expect(boundedKey(`${'x'.repeat(1024 * 1024 - 1)}y`)).not.toBe(key);
    expect(boundedKey('x'.repeat(MAX_KEY_CHARS + 1)).length).toBe(key.length);
  });

  it('no short id can pose as the digest of a long one', () => {
    const digest = boundedKey('y'.repeat(500));
    expect(digest.startsWith(DIGEST_KEY_PREFIX)).toBe(true);
    // The digest itself, sent as an id, is digested again: it is not the long id's key.
    expect(boundedKey(digest)).not.toBe(digest);
    expect(boundedKey(`${DIGEST_KEY_PREFIX}x`)).toMatch(/^#sha256:[0-9a-f]{64}$/);
  });

  it('lone surrogates: two ids that UTF-8 would make the same have different keys', () => {
    const a = `${'z'.repeat(200)}\uD800`;
    const b = `${'z'.repeat(200)}\uDC00`;
    expect(Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'))).toBe(true);
    expect(boundedKey(a)).not.toBe(boundedKey(b));
  });
});
