import { describe, expect, it } from 'vitest';
import type { EventName } from '../../../src/events/names.js';
import { compileMatcher } from '../../../src/registry/matcher.js';
import type { CommandHook } from '../../../src/registry/hook.js';
import { definitionText, fingerprintHook } from '../../../src/config/trust.js';

// Trust digests a project hook's whole definition (docs/configuration.md, trust): changing any one
// field a project can write must change the digest, or that field could be edited after trust.
// A field left out (say `failClosed`) lets a repository turn a fail-closed guard into a fail-open
// one without the user seeing it.

const matcherOf = (pattern: string) => {
  const compiled = compileMatcher(pattern);
  if (!compiled.ok || compiled.value === undefined) throw new Error(`bad matcher ${pattern}`);
  return compiled.value;
};

const base: CommandHook = {
  kind: 'command',
  name: 'guard',
  source: 'config:project',
  command: 'true',
  env: { MODE: 'strict' },
  timeoutMs: 5000,
  failClosed: true,
  redact: false,
  matcher: matcherOf('Bash'),
  enabled: true,
  description: 'a guard',
  observe: false,
  dialect: 'cosh',
  persistent: false,
};

/** Each field a project writes, with another value: the table covers every key of `base` but the engine's. */
const CHANGES: readonly (readonly [keyof CommandHook, unknown])[] = [
  ['kind', 'function'],
  ['name', 'guard2'],
  ['command', 'false'],
  ['env', { MODE: 'off' }],
  ['timeoutMs', 5001],
  ['failClosed', false],
  ['redact', true],
  ['matcher', matcherOf('Read')],
  ['description', 'a guard.'],
  ['observe', true],
  ['dialect', 'claude'],
  ['persistent', true],
];
/** Set by the engine, not written by the project: outside the digest. */
const ENGINE = ['source', 'enabled'];

const digest = (hook: CommandHook, event: EventName = 'PreToolUse') =>
  fingerprintHook(event, hook, '/nonexistent-workspace').definition;

describe('the trust digest of a project hook', () => {
  it('the table names every field of a hook (a new field needs a row)', () => {
    expect([...CHANGES.map(([key]) => key), ...ENGINE].sort()).toEqual(Object.keys(base).sort());
  });

  it.each(CHANGES)('changes when %s changes', (key, value) => {
    expect(digest({ ...base, [key]: value } as CommandHook)).not.toBe(digest(base));
  });

  it.each([
    ['failClosed', true, false],
    ['observe', false, undefined],
    ['redact', false, undefined],
  ] as const)('%s written as %s differs from %s', (key, a, b) => {
    expect(digest({ ...base, [key]: a })).not.toBe(digest({ ...base, [key]: b }));
  });

  it('changes with an env value, an added env name, and the event', () => {
    expect(digest({ ...base, env: { MODE: 'strict', MORE: '1' } })).not.toBe(digest(base));
    expect(digest({ ...base, env: {} })).not.toBe(digest(base));
    expect(digest(base, 'PostToolUse')).not.toBe(digest(base));
  });

  it('does not change with what the engine sets', () => {
    expect(digest({ ...base, source: 'config', enabled: false, untrusted: 'x', workspacePath: '/w' })).toBe(
      digest(base),
    );
    expect(definitionText('PreToolUse', base)).toContain('"failClosed":true');
  });
});
