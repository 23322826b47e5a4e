import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frame, frameReader } from '../../../src/exec/helper/spawn-protocol.js';
import { processExecutor } from '../../../src/exec/index.js';

interface Frame {
  readonly type: number;
  readonly id: number;
  readonly payload: number[];
}

const read = (chunks: readonly Buffer[]): Frame[] => {
  const frames: Frame[] = [];
  const push = frameReader((type, id, payload) => frames.push({ type, id, payload: [...payload] }));
  for (const chunk of chunks) push(chunk);
  return frames;
};

/** Cuts `bytes` at the given offsets (sorted, deduplicated, within the buffer). */
const cut = (bytes: Buffer, offsets: readonly number[]): Buffer[] => {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
};

describe('spawn-protocol frames', () => {
  it('a frame is length, type, id, payload', () => {
    expect([...frame(13, 258, 'hi')]).toStrictEqual([0, 0, 0, 7, 13, 0, 0, 1, 2, 104, 105]);
    expect([...frame(16, 1)]).toStrictEqual([0, 0, 0, 5, 16, 0, 0, 0, 1]);
  });

  it('frames come out whole and in order however the stream is cut (1,000 cases)', () => {
    const frameArb = fc.record({
      type: fc.integer({ min: 0, max: 255 }),
      id: fc.integer({ min: 0, max: 0xffffffff }),
      payload: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 300 }),
    });
    fc.assert(
      fc.property(
        fc.array(frameArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (frames, offsets) => {
          const bytes = Buffer.concat(frames.map((f) => frame(f.type, f.id, Buffer.from(f.payload))));
          expect(read(cut(bytes, offsets))).toStrictEqual(
            frames.map((f) => ({ type: f.type, id: f.id, payload: [...f.payload] })),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  describe('linear in the bytes read (counted, not timed)', () => {
    afterEach(() => vi.restoreAllMocks());

    /** Feeds `chunks` through a reader and counts the bytes the reader copied with Buffer.concat / Buffer.from. */
    const copiedReading = (chunks: readonly Buffer[]) => {
      let copied = 0;
      const concat = Buffer.concat.bind(Buffer);
      const from = Buffer.from.bind(Buffer) as (...args: unknown[]) => Buffer;
      const frames: { type: number; id: number; length: number; last: number }[] = [];
      const push = frameReader((type, id, payload) =>
        frames.push({ type, id, length: payload.length, last: payload[payload.length - 1] ?? -1 }),
      );
      vi.spyOn(Buffer, 'concat').mockImplementation((list, total) => {
        const joined = concat(list, total);
        copied += joined.length;
        return joined;
      });
      vi.spyOn(Buffer, 'from').mockImplementation(((...args: unknown[]) => {
        const made = from(...args);
        copied += made.length;
        return made;
      }) as typeof Buffer.from);
      for (const chunk of chunks) push(chunk);
      vi.restoreAllMocks();
      return { copied, frames };
    };

    /** `bytes` cut into chunks of `size`, as a pipe delivers them. */
    const chunked = (bytes: Buffer, size: number): Buffer[] => {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
      return chunks;
    };

    it('a 16 MB frame in 64 KiB chunks is joined once: bytes copied stay within 3x the input', () => {
      const payload = Buffer.alloc(16 * 1024 * 1024, 0x61);
      payload[payload.length - 1] = 0x7a;
      const bytes = Buffer.concat([frame(2, 9, payload), frame(16, 9), frame(13, 10, 'tail')]);
      const { copied, frames } = copiedReading(chunked(bytes, 64 * 1024));
      expect(frames).toStrictEqual([
        { type: 2, id: 9, length: payload.length, last: 0x7a },
        { type: 16, id: 9, length: 0, last: -1 },
        { type: 13, id: 10, length: 4, last: 0x6c },
      ]);
      // Joining each chunk to the pending bytes copies ~n^2/2c = 2 GiB here; the reader copies ~n.
      expect(copied).toBeLessThanOrEqual(3 * bytes.length);
    });

    it('copies grow in proportion to the frame: a frame 4x larger costs 4x the copies, not 16x', () => {
      const stream = (bytes: number) => chunked(frame(13, 1, Buffer.alloc(bytes, 1)), 4093);
      const small = copiedReading(stream(1024 * 1024));
      const large = copiedReading(stream(4 * 1024 * 1024));
      expect(small.frames).toStrictEqual([{ type: 13, id: 1, length: 1024 * 1024, last: 1 }]);
      expect(large.frames).toStrictEqual([{ type: 13, id: 1, length: 4 * 1024 * 1024, last: 1 }]);
      expect(large.copied).toBeLessThanOrEqual(4.1 * small.copied);
    });

    it('many frames cut at odd places: copies stay within 3x the input', () => {
      const bytes = Buffer.concat(
        Array.from({ length: 40 }, (_, index) => frame(13, index, Buffer.alloc(300_000, index))),
      );
      const { copied, frames } = copiedReading(chunked(bytes, 4093));
      expect(frames.map((f) => [f.id, f.length, f.last])).toStrictEqual(
        Array.from({ length: 40 }, (_, index) => [index, 300_000, index]),
      );
      expect(copied).toBeLessThanOrEqual(3 * bytes.length);
    });
  });

  it('one byte at a time, and a frame split in its length field', () => {
    const bytes = Buffer.concat([frame(1, 7, '{"file":"x"}'), frame(3, 7, 'line\n'), frame(4, 7)]);
    const expected = [
      { type: 1, id: 7, payload: [...Buffer.from('{"file":"x"}')] },
      { type: 3, id: 7, payload: [...Buffer.from('line\n')] },
      { type: 4, id: 7, payload: [] },
    ];
    expect(read([...bytes].map((byte) => Buffer.from([byte])))).toStrictEqual(expected);
    expect(read([bytes.subarray(0, 2), bytes.subarray(2)])).toStrictEqual(expected);
  });
});

describe('spawn helper options', () => {
  it.each([
    [
      { spawnHelper: 'sometimes' as 'auto' },
      "spawnHelper must be 'auto', 'always' or 'never', got sometimes",
    ],
    [{ spawnHelperMinRss: -1 }, 'spawnHelperMinRss must be a number of bytes >= 0, got -1'],
    [{ spawnHelperMinRss: Number.NaN }, 'spawnHelperMinRss must be a number of bytes >= 0, got NaN'],
    [{ spawnHelperMinRss: Infinity }, 'spawnHelperMinRss must be a number of bytes >= 0, got Infinity'],
  ])('%o is refused when the executor is made', (options, message) => {
    expect(() => processExecutor(options)).toThrow(new RangeError(message));
  });
});
