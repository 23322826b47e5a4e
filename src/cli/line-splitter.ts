import { JsonLine } from '../events/input.js';
import { DEFAULT_MAX_LINE_BYTES } from './defaults.js';

/** Longest input line `run` accepts by default; a longer one is rejected without being kept. */
export { DEFAULT_MAX_LINE_BYTES };

const NEWLINE = 0x0a;
const BOM = '\ufeff';

/**
 * Cuts a byte stream into numbered JSONL lines. Lines are split on bytes, not characters, so a
 * chunk boundary inside a multi-byte character is harmless, and each line is decoded as strict
 * UTF-8 (RFC 8259 requires it): a line that is not becomes a `JsonLine` with a `problem`, rather
 * than text with replacement characters a hook might act on. Blank lines are counted but not
 * returned. Memory is bounded by `maxLineBytes`: the bytes of a longer line are dropped as they
 * arrive and the line is reported once its newline comes.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private overflow = false;
  private lineNumber = 0;
  // ignoreBOM keeps a BOM in the text: only one at the very start of the input is dropped (below).
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(private readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES) {}

  /** The complete lines ended by this chunk, in order. */
  push(chunk: Buffer): JsonLine[] {
    const lines: JsonLine[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const line = this.take(chunk.subarray(start, end));
      if (line !== undefined) lines.push(line);
      start = end + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    return lines;
  }

  /** The last line, when the input did not end with a newline. */
  end(): JsonLine[] {
    if (this.size === 0 && !this.overflow) return [];
    const line = this.take(Buffer.alloc(0));
    return line === undefined ? [] : [line];
  }

  private keep(bytes: Buffer): void {
    if (this.overflow || bytes.length === 0) return;
    if (this.size + bytes.length > this.maxLineBytes) {
      this.overflow = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    // A subarray would pin the whole chunk; copying keeps only the bytes of this line.
    this.parts.push(Buffer.from(bytes));
    this.size += bytes.length;
  }

  /** Ends the current line with `tail`, the bytes before its newline. */
  private take(tail: Buffer): JsonLine | undefined {
    this.lineNumber += 1;
    // The common case, a line inside one chunk, is decoded in place without a copy.
    const whole = this.parts.length === 0 && !this.overflow && tail.length <= this.maxLineBytes;
    if (!whole) this.keep(tail);
    const overflow = this.overflow;
    const bytes = whole ? tail : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.overflow = false;
    if (overflow) {
      return new JsonLine(this.lineNumber, '', `line is longer than ${this.maxLineBytes} bytes`);
    }
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch {
      return new JsonLine(this.lineNumber, '', 'not JSON: the line is not valid UTF-8');
    }
    if (this.lineNumber === 1 && text.startsWith(BOM)) text = text.slice(1);
    return text.trim() === '' ? undefined : new JsonLine(this.lineNumber, text);
  }
}
