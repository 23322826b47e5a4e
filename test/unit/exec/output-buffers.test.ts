import { describe, expect, it } from 'vitest';
import { FIRST_LINE_BYTES, firstStderrLine, tailBuffer } from '../../../src/exec/process/output-buffers.js';

/** The bounded stderr buffers never keep a fragment of a secret cut by their bound (docs/protocol.md). */

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe('tailBuffer', () => {
  it('a stream that fits is kept as it is', () => {
    const tail = tailBuffer(1024);
    tail.push(Buffer.from(`a ${TOKEN}\nb\n`));
    expect(tail.cut).toBe(false);
    expect(tail.text()).toBe(`a ${TOKEN}\nb\n`);
  });

  it('once cut, the text starts at the first whole line: the end of a token whose start was dropped goes', () => {
    const stream = `${'x'.repeat(30)} ${TOKEN}\nnext line\nlast words ${TOKEN}\n`;
    // The bytes kept start 20 characters into the first token (which starts at 31).
    const tail = tailBuffer(stream.length - 51);
    tail.push(Buffer.from(stream.slice(0, 40)));
    tail.push(Buffer.from(stream.slice(40)));
    expect(tail.cut).toBe(true);
    const text = tail.text();
    expect(text).toBe('next line\nlast words <redacted>\n');
    for (let at = 0; at + 6 <= TOKEN.length; at += 1) expect(text).not.toContain(TOKEN.slice(at, at + 6));
  });
});

describe('firstStderrLine', () => {
  it('a first line cut at FIRST_LINE_BYTES loses its cut word', () => {
    const first = firstStderrLine();
    const line = `${'x'.repeat(FIRST_LINE_BYTES - 10)} ${TOKEN} rest\n`;
    first.push(Buffer.from(line));
    expect(first.line).toBe('x'.repeat(FIRST_LINE_BYTES - 10));
  });

  it('a whole first line is kept', () => {
    const first = firstStderrLine();
    first.push(Buffer.from(`  cannot reach vault\nmore\n`));
    expect(first.line).toBe('cannot reach vault');
  });
});
