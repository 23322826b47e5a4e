import { err, ok, type Result } from '../result.js';

/**
 * MCP's stdio framing: one JSON-RPC message a line. Chunks are kept as they come and joined once
 * at the newline, so a 50 MB result costs one copy (the SDK's `ReadBuffer` copies the whole
 * buffer at every chunk). A line longer than `maxBytes` is an error: the peer is broken, and no
 * amount of memory is promised to it.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The whole lines `chunk` completes (without `\n` or a trailing `\r`), or why the peer is broken. */
  push(chunk: Buffer): Result<string[]> {
    const lines: string[] = [];
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, at);
      if (this.size + piece.length > this.maxBytes) return this.tooLong();
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.size = 0;
      const text = line.toString('utf8').replace(/\r$/, '');
      if (text.trim() !== '') lines.push(text);
      start = at + 1;
    }
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.maxBytes) return this.tooLong();
    if (rest.length > 0) {
      this.chunks.push(rest);
      this.size += rest.length;
    }
    return ok(lines);
  }

  /** Bytes held for a line not yet ended. */
  get pending(): number {
    return this.size;
  }

  private tooLong(): Result<string[]> {
    this.chunks = [];
    this.size = 0;
    return err(`a message longer than ${this.maxBytes} bytes`);
  }
}
