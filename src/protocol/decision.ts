import type { Decision } from '../events/names.js';

const SPELLINGS: Readonly<Record<string, Decision>> = {
  allow: 'allow',
  approve: 'allow',
  block: 'block',
  deny: 'block',
  reject: 'block',
  ask: 'ask',
  none: 'none',
  '': 'none',
};

/**
 * Normalizes a hook's `decision` field (spec §4.3): aliases, any letter case, and the pass-through
 * spellings (absent, `null`, `""`, `"none"`). Returns `undefined` for anything else.
 */
export const normalizeDecision = (value: unknown): Decision | undefined => {
  if (value === undefined || value === null) return 'none';
  if (typeof value !== 'string') return undefined;
  return Object.prototype.hasOwnProperty.call(SPELLINGS, value.toLowerCase())
    ? SPELLINGS[value.toLowerCase()]
    : undefined;
};
