/*
 * The wire between a host and its spawn helper (`spawn-helper.ts`): frames on the helper's stdin
 * (host → helper) and stdout (helper → host). Only Node built-ins: the helper imports this.
 *
 * A frame is a 4-byte big-endian length of what follows, a 1-byte type, a 4-byte big-endian process
 * id (chosen by the host, per helper), then the payload (the rest).
 */

/** Host → helper. */
export const SPAWN = 1; // payload: JSON ProcessSpec
export const WRITE = 2; // payload: bytes for the process's stdin
export const END = 3; // payload: last bytes for stdin (may be empty), then EOF
export const DETACH = 4; // stop reading, close every pipe end; nothing more is sent for this id
export const RELEASE = 5; // the group is no longer killed when the host goes away

/** Helper → host. */
export const STARTED = 11; // payload: 4-byte pid
export const NOT_STARTED = 12; // payload: JSON { code?, message }
export const STDOUT = 13; // payload: bytes
export const STDERR = 14; // payload: bytes
export const EXIT = 15; // payload: JSON { code, signal }
export const CLOSE = 16; // no payload; last frame for this id

const HEADER = 9;

/** The header of a frame whose payload is `size` bytes: write the payload right after it. */
export const frameHeader = (type: number, id: number, size: number): Buffer => {
  const out = Buffer.allocUnsafe(HEADER);
  out.writeUInt32BE(5 + size, 0);
  out.writeUInt8(type, 4);
  out.writeUInt32BE(id, 5);
  return out;
};

/** One frame, ready to write. */
export const frame = (type: number, id: number, payload?: Buffer | string): Buffer => {
  const body =
    payload === undefined ? undefined : typeof payload === 'string' ? Buffer.from(payload) : payload;
  const size = body?.length ?? 0;
  const out = Buffer.allocUnsafe(HEADER + size);
  out.writeUInt32BE(5 + size, 0);
  out.writeUInt8(type, 4);
  out.writeUInt32BE(id, 5);
  if (body !== undefined) body.copy(out, HEADER);
  return out;
};

/** The 4-byte big-endian length at the start of `chunks` (which hold at least 4 bytes together). */
const leadingLength = (chunks: readonly Buffer[]): number => {
  let value = 0;
  let read = 0;
  for (const chunk of chunks) {
    for (let index = 0; index < chunk.length && read < 4; index += 1, read += 1) {
      value = value * 256 + chunk[index]!;
    }
    if (read === 4) break;
  }
  return value;
};

/**
 * Cuts a byte stream into frames: `push` each chunk as it comes, `onFrame` is called once per
 * complete frame, in order, with a payload that is a view of the input (copy it to keep it).
 *
 * Linear in the bytes read, however the stream is cut: a frame that spans chunks is kept as the
 * list of its chunks and joined once, when its last byte has come. A byte is copied at most three
 * times: by that join, and when it starts the next frame in the join's last chunk, once to free the
 * joined buffer and once more by its own frame's join. Joining each chunk to what came before
 * would copy a 16 MB frame some 250 times over (2.7 s) while the helper answers nobody else.
 */
export const frameReader = (onFrame: (type: number, id: number, payload: Buffer) => void) => {
  /** Bytes of a frame not complete yet, in order, and their count. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The whole size (length field included) of the frame `pending` starts, once its length is in. */
  let needed: number | undefined;

  /** Every complete frame in `data`; returns the offset of the first byte not used. */
  const frames = (data: Buffer): number => {
    let offset = 0;
    while (data.length - offset >= 4) {
      const size = data.readUInt32BE(offset);
      if (data.length - offset - 4 < size) break;
      const type = data.readUInt8(offset + 4);
      const id = data.readUInt32BE(offset + 5);
      onFrame(type, id, data.subarray(offset + HEADER, offset + 4 + size));
      offset += 4 + size;
    }
    return offset;
  };

  const keep = (rest: Buffer): void => {
    pending = [rest];
    pendingBytes = rest.length;
    needed = rest.length >= 4 ? 4 + rest.readUInt32BE(0) : undefined;
  };

  return (chunk: Buffer): void => {
    if (chunk.length === 0) return;
    if (pendingBytes === 0) {
      const used = frames(chunk);
      if (used < chunk.length) keep(chunk.subarray(used));
      return;
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (needed === undefined && pendingBytes >= 4) needed = 4 + leadingLength(pending);
    if (needed === undefined || pendingBytes < needed) return;
    // The frame in progress is complete: one join, then every frame it and the chunk hold.
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    needed = undefined;
    const used = frames(data);
    // A copy: the start of the next frame (at most one chunk) must not hold the joined frame alive.
    if (used < data.length) keep(Buffer.from(data.subarray(used)));
  };
};
