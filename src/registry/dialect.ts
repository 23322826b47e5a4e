/** Whose hook protocol a hook speaks (docs/compat.md). `cosh` is this engine's own, the default. */
export const DIALECTS = ['cosh', 'claude', 'gemini'] as const;
/** Whose hook protocol a hook speaks: `cosh` (the default), `claude` or `gemini` (docs/compat.md). */
export type Dialect = (typeof DIALECTS)[number];

/** A dialect other than cosh: the hooks whose events and answers are translated. */
export type ForeignDialect = Exclude<Dialect, 'cosh'>;

export const isDialect = (value: unknown): value is Dialect =>
  typeof value === 'string' && (DIALECTS as readonly string[]).includes(value);

export const isForeign = (dialect: Dialect | undefined): dialect is ForeignDialect =>
  dialect !== undefined && dialect !== 'cosh';
