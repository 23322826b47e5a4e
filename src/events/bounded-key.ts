import { createHash } from 'node:crypto';

/**
 * The key a per-session structure files an id under (a session id, a sub-agent id): the id itself
 * when it is short, else a fixed-length digest of it, so that what the engine keeps per session is
 * bounded in bytes whatever the ids a host sends (docs/execution.md, "Guarantees and their tests").
 */

/** Ids up to this many characters are their own key. */
export const MAX_KEY_CHARS = 128;

/** What a digest key starts with. A short id that starts with it is digested too, so no id is another's key. */
export const DIGEST_KEY_PREFIX = '#sha256:';

/**
 * The bounded key of `id`: `id` when it has at most MAX_KEY_CHARS characters and does not start
 * with DIGEST_KEY_PREFIX, else the prefix and the hex SHA-256 of its UTF-16 code units (every
 * string, lone surrogates included, has its own: UTF-8 would give two of them one digest).
 */
export const boundedKey = (id: string): string =>
  id.length <= MAX_KEY_CHARS && !id.startsWith(DIGEST_KEY_PREFIX)
    ? id
    : `${DIGEST_KEY_PREFIX}${createHash('sha256').update(id, 'utf16le').digest('hex')}`;
