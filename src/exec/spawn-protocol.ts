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

/**
 * Cuts a byte stream into frames: `push` each chunk as it comes, `onFrame` is called once per
 * complete frame, in order, with a payload that is a view of the input (copy it to keep it).
 */
export const frameReader = (onFrame: (type: number, id: number, payload: Buffer) => void) => {
  let pending: Buffer | undefined;
  return (chunk: Buffer): void => {
    let data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    pending = undefined;
    let offset = 0;
    while (data.length - offset >= 4) {
      const size = data.readUInt32BE(offset);
      if (data.length - offset - 4 < size) break;
      const type = data.readUInt8(offset + 4);
      const id = data.readUInt32BE(offset + 5);
      onFrame(type, id, data.subarray(offset + HEADER, offset + 4 + size));
      offset += 4 + size;
    }
    if (offset < data.length) {
      data = data.subarray(offset);
      // A copy, so the chunk it came from is not kept alive by a few leftover bytes.
      pending = Buffer.from(data);
    }
  };
};
