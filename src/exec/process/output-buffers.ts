import { redactCutTail } from '../../protocol/redact/index.js';

/**
 * The bounded buffers a hook's pipes are read into, shared by per-event and persistent hooks:
 * the head of stdout (its cap, spec §4.2), the tail of stderr (what a failure message quotes) and
 * the first stderr line (a fail_closed reason, spec §4.5).
 */

/** Keeps the first `limit` bytes and notes whether more came. */
export const headBuffer = (limit: number) => {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  return {
    /** Returns true on the chunk that crosses the limit. */
    push(chunk: Buffer): boolean {
      if (overflow) return false;
      size += chunk.length;
      if (size > limit) {
        overflow = true;
        chunks.length = 0;
        return true;
      }
      chunks.push(chunk);
      return false;
    },
    get overflow() {
      return overflow;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
};

/**
 * Keeps the last `limit` bytes. Once the start of the stream is dropped, the text starts at a
 * line: the cut line's fragment could hold the end of a secret whose start is gone (the part of
 * a `ghp_` token after the cut is no longer recognizable), so it goes, and the rest is redacted
 * (`redactCutTail`).
 */
export const tailBuffer = (limit: number) => {
  const chunks: Buffer[] = [];
  let size = 0;
  let total = 0;
  return {
    /** True once the start of the stream is no longer kept. */
    get cut(): boolean {
      return total > limit;
    },
    push(chunk: Buffer): void {
      chunks.push(chunk);
      size += chunk.length;
      total += chunk.length;
      while (chunks.length > 1 && size - (chunks[0]?.length ?? 0) >= limit) {
        size -= chunks.shift()?.length ?? 0;
      }
    },
    text: (): string => {
      const all = Buffer.concat(chunks);
      const tail = all.subarray(Math.max(0, all.length - limit)).toString('utf8');
      return total > limit ? redactCutTail(tail) : tail;
    },
  };
};

/** Bytes of stderr searched for its first line; a longer first line is cut there. */
export const FIRST_LINE_BYTES = 4096;

/**
 * Follows the start of stderr and reports its first non-blank line each time it grows, until the
 * line is complete: the reason a fail_closed hook gets if it then times out.
 */
export const firstStderrLine = () => {
  let head = '';
  let done = false;
  let reported: string | undefined;
  return {
    /** The first non-blank line so far (complete once a newline followed it). */
    get line(): string | undefined {
      return reported;
    },
    push(chunk: Buffer): string | undefined {
      if (done) return undefined;
      head += chunk.subarray(0, FIRST_LINE_BYTES - head.length).toString('utf8');
      const start = head.search(/\S/);
      if (start < 0) return undefined;
      const end = head.indexOf('\n', start);
      done = end >= 0 || head.length >= FIRST_LINE_BYTES;
      // A line cut at FIRST_LINE_BYTES loses its last, cut word: it may be the start of a secret.
      const cut = end < 0 && head.length >= FIRST_LINE_BYTES;
      const whole = end >= 0 ? head.slice(start, end) : head.slice(start);
      const line = (cut ? whole.slice(0, Math.max(0, whole.search(/\s\S*$/))) : whole).trim();
      if (line === '' || line === reported) return undefined;
      reported = line;
      return line;
    },
  };
};
