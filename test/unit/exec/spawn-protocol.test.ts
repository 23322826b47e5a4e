import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frame, frameReader } from '../../../src/exec/spawn-protocol.js';
import { execaExecutor } from '../../../src/exec/index.js';

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
    expect(() => execaExecutor(options)).toThrow(new RangeError(message));
  });
});
