import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../../src/mcp/frames.js';

const push = (reader: FrameReader, text: string) => reader.push(Buffer.from(text));

describe('FrameReader', () => {
  it('cuts at newlines across chunks, drops a trailing \\r and blank lines, keeps the rest for later', () => {
    const reader = new FrameReader(100);
    expect(push(reader, '{"a":1}\n{"b"')).toStrictEqual({ ok: true, value: ['{"a":1}'] });
    expect(reader.pending).toBe(4);
    expect(push(reader, ':2}\r\n\n{"c":3}\n')).toStrictEqual({ ok: true, value: ['{"b":2}', '{"c":3}'] });
    expect(reader.pending).toBe(0);
  });

  it('a line past the bound is an error, whether it ends in this chunk or not, and the reader starts over', () => {
    const reader = new FrameReader(8);
    expect(push(reader, '12345')).toStrictEqual({ ok: true, value: [] });
    expect(push(reader, '6789')).toStrictEqual({ ok: false, error: 'a message longer than 8 bytes' });
    expect(reader.pending).toBe(0);
    expect(push(reader, '123456789\n')).toStrictEqual({ ok: false, error: 'a message longer than 8 bytes' });
    expect(push(reader, '12345678\n')).toStrictEqual({ ok: true, value: ['12345678'] });
  });

  it('a multi-byte character split between chunks is whole in its line', () => {
    const reader = new FrameReader(100);
    const bytes = Buffer.from('"é"\n');
    expect(reader.push(bytes.subarray(0, 2))).toStrictEqual({ ok: true, value: [] });
    expect(reader.push(bytes.subarray(2))).toStrictEqual({ ok: true, value: ['"é"'] });
  });
});
