import { err, ok, type Result } from '../result.js';

/**
 * SemVer versions and the version requirements of cosh-core's `schemaVersion: 1` manifests
 * (`compatibility.cosh`), read as Rust's `semver` crate reads them (`Version::parse`,
 * `VersionReq::parse`, `matches`). Pure.
 */

export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Pre-release identifiers (`1.0.0-rc.1` → `['rc', '1']`); empty for a release. */
  readonly pre: readonly string[];
}

const NUMBER = '(0|[1-9][0-9]*)';
const IDENTIFIER = '(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)';
const BUILD = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const PRE = `${IDENTIFIER}(?:\\.${IDENTIFIER})*`;
const VERSION = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}(?:-(${PRE}))?(?:\\+${BUILD})?$`);

/** The largest number a part may be: beyond it, comparisons in doubles are no longer exact. */
const MAX_PART = Number.MAX_SAFE_INTEGER;

const part = (text: string): number | undefined => {
  const value = Number(text);
  return Number.isSafeInteger(value) && value <= MAX_PART ? value : undefined;
};

/** A SemVer 2.0 version (`1.2.3`, `1.2.3-rc.1+build`), or `undefined`. No `v`, no blanks, no leading zeros. */
export const parseVersion = (text: string): Version | undefined => {
  const found = VERSION.exec(text);
  if (found === null) return undefined;
  const [major, minor, patch] = [
    part(found[1] as string),
    part(found[2] as string),
    part(found[3] as string),
  ];
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  return { major, minor, patch, pre: found[4] === undefined ? [] : found[4].split('.') };
};

const comparePre = (a: readonly string[], b: readonly string[]): number => {
  // A release sorts after its pre-releases.
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const [x, y] = [a[i] as string, b[i] as string];
    if (x === y) continue;
    const [nx, ny] = [/^[0-9]+$/.test(x), /^[0-9]+$/.test(y)];
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1; // numeric identifiers sort first
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
};

/** Precedence of two versions (SemVer §11): negative, zero or positive. */
export const compareVersions = (a: Version, b: Version): number =>
  a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);

type Op = '=' | '>' | '>=' | '<' | '<=' | '~' | '^';

/** One comparator: an operator and a version whose minor and patch may be left out (`0.13`, `0.*`). */
interface Comparator {
  readonly op: Op;
  readonly major: number;
  readonly minor?: number;
  readonly patch?: number;
  readonly pre: readonly string[];
}

/** A requirement: every comparator must match (`>=0.12.0, <1.0.0`). */
export interface Requirement {
  readonly comparators: readonly Comparator[];
}

const COMPARATOR = new RegExp(
  `^(=|>=|>|<=|<|~|\\^)?\\s*${NUMBER}(?:\\.(${NUMBER.slice(1, -1)}|[*xX]))?(?:\\.(${NUMBER.slice(1, -1)}|[*xX]))?(?:-(${PRE}))?(?:\\+${BUILD})?$`,
);

const isWild = (text: string | undefined): boolean => text === '*' || text === 'x' || text === 'X';

const parseComparator = (text: string): Comparator | undefined => {
  const found = COMPARATOR.exec(text);
  if (found === null) return undefined;
  const op = (found[1] ?? '^') as Op;
  const [minorText, patchText, preText] = [found[3], found[4], found[5]];
  const major = part(found[2] as string);
  if (major === undefined) return undefined;
  // A wildcard ends the version (`1.*.3` is refused) and takes no operator but `=` (`1.*` is `=1`).
  if (isWild(minorText) && patchText !== undefined && !isWild(patchText)) return undefined;
  const wild = isWild(minorText) || isWild(patchText);
  if (wild && found[1] !== undefined && op !== '=') return undefined;
  if (wild && preText !== undefined) return undefined;
  const minor = minorText === undefined || isWild(minorText) ? undefined : part(minorText);
  const patch = patchText === undefined || isWild(patchText) ? undefined : part(patchText);
  if (minorText !== undefined && !isWild(minorText) && minor === undefined) return undefined;
  if (patchText !== undefined && !isWild(patchText) && patch === undefined) return undefined;
  // A pre-release needs the whole version (`1.2-rc` is refused).
  if (preText !== undefined && patch === undefined) return undefined;
  return {
    op: wild ? '=' : op,
    major,
    ...(minor !== undefined && { minor }),
    ...(patch !== undefined && { patch }),
    pre: preText === undefined ? [] : preText.split('.'),
  };
};

/**
 * A requirement as Rust's `VersionReq::parse` reads it: comparators separated by commas, each an
 * optional operator (`=`, `>`, `>=`, `<`, `<=`, `~`, `^`; none is `^`) and a version whose minor and
 * patch may be left out or be a wildcard (`*`, `x`), or `*` alone. Anything else (`||`, blanks
 * between comparators, a trailing comma) is refused, as there.
 */
export const parseRequirement = (text: string): Result<Requirement, string> => {
  const trimmed = text.trim();
  if (trimmed === '*') return ok({ comparators: [] });
  if (trimmed === '') return err('empty version requirement');
  const comparators: Comparator[] = [];
  for (const piece of trimmed.split(',')) {
    const comparator = parseComparator(piece.trim());
    if (comparator === undefined)
      return err(
        `invalid version requirement ${JSON.stringify(text)} (expected comparators like ">=0.12.0, <1.0.0")`,
      );
    comparators.push(comparator);
  }
  return ok({ comparators });
};

const version = (major: number, minor: number, patch: number, pre: readonly string[] = []): Version => ({
  major,
  minor,
  patch,
  pre,
});

/** Whether `v` is at least `low` and below `high` (either bound may be absent). */
const within = (v: Version, low: Version | undefined, high: Version | undefined): boolean =>
  (low === undefined || compareVersions(v, low) >= 0) && (high === undefined || compareVersions(v, high) < 0);

/** The lowest pre-release of a version: where a `<` bound stops (`<1.0.0` excludes `1.0.0-rc`). */
const floor = (major: number, minor: number, patch: number): Version => version(major, minor, patch, ['0']);

const matchesComparator = (v: Version, c: Comparator): boolean => {
  const { major, minor, patch, pre } = c;
  const exact = minor !== undefined && patch !== undefined ? version(major, minor, patch, pre) : undefined;
  // Below a whole version's bound, pre-releases of the bound itself are left out (Rust's semver
  // matches a pre-release only against a comparator naming its own major.minor.patch).
  const bound = (mj: number, mn: number, pt: number) => floor(mj, mn, pt);
  switch (c.op) {
    case '=':
      if (exact !== undefined) return compareVersions(v, exact) === 0;
      if (minor !== undefined) return within(v, version(major, minor, 0), bound(major, minor + 1, 0));
      return within(v, version(major, 0, 0), bound(major + 1, 0, 0));
    case '>':
      if (exact !== undefined) return compareVersions(v, exact) > 0;
      if (minor !== undefined) return within(v, version(major, minor + 1, 0), undefined);
      return within(v, version(major + 1, 0, 0), undefined);
    case '>=':
      return within(v, exact ?? version(major, minor ?? 0, 0), undefined);
    case '<':
      return within(v, undefined, exact ?? bound(major, minor ?? 0, 0));
    case '<=':
      if (exact !== undefined) return compareVersions(v, exact) <= 0;
      if (minor !== undefined) return within(v, undefined, bound(major, minor + 1, 0));
      return within(v, undefined, bound(major + 1, 0, 0));
    case '~':
      if (minor === undefined) return within(v, version(major, 0, 0), bound(major + 1, 0, 0));
      return within(v, exact ?? version(major, minor, 0), bound(major, minor + 1, 0));
    case '^':
      if (minor === undefined) return within(v, version(major, 0, 0), bound(major + 1, 0, 0));
      if (major > 0) return within(v, exact ?? version(major, minor, 0), bound(major + 1, 0, 0));
      if (minor > 0 || patch === undefined)
        return within(v, exact ?? version(0, minor, 0), bound(0, minor + 1, 0));
      return compareVersions(v, exact ?? version(0, 0, patch)) === 0;
  }
};

/**
 * Whether `v` meets every comparator. A pre-release version matches only when some comparator
 * names its own major.minor.patch with a pre-release, as in Rust's semver.
 */
export const satisfies = (v: Version, requirement: Requirement): boolean => {
  if (!requirement.comparators.every((c) => matchesComparator(v, c))) return false;
  if (v.pre.length === 0) return true;
  return requirement.comparators.some(
    (c) => c.pre.length > 0 && c.major === v.major && c.minor === v.minor && c.patch === v.patch,
  );
};
