import { describe, expect, it } from 'vitest';
import { parseRequirement, parseVersion, satisfies } from '../../../src/config/semver.js';

const matches = (requirement: string, version: string): boolean => {
  const req = parseRequirement(requirement);
  const ver = parseVersion(version);
  if (!req.ok || ver === undefined) throw new Error(`bad input ${requirement} / ${version}`);
  return satisfies(ver, req.value);
};

describe('parseVersion: SemVer 2.0, as cosh-core checks a manifest version', () => {
  it.each(['1.0.0', '0.13.0', '10.20.30', '1.0.0-alpha.1', '1.0.0+build.5', '1.0.0-rc.1+b'])(
    'accepts %s',
    (text) => {
      expect(parseVersion(text)).toBeDefined();
    },
  );
  it.each([
    '',
    '1',
    '1.0',
    '01.0.0',
    '1.00.0',
    '1.0.0-',
    '1.0.0-01',
    'v1.0.0',
    ' 1.0.0',
    '1.0.0.0',
    '1.0.x',
    '1.0.0-a..b',
  ])('refuses %j', (text) => {
    expect(parseVersion(text)).toBeUndefined();
  });
});

describe('parseRequirement / satisfies: Rust semver VersionReq (comma-separated comparators)', () => {
  it.each([
    ['>=0.12.0', '0.13.0', true],
    ['>=0.14.0', '0.13.0', false],
    ['>=0.12.0, <1.0.0', '0.13.0', true],
    ['>=0.12.0, <0.13.0', '0.13.0', false],
    ['0.13', '0.13.5', true], // bare = caret
    ['0.12', '0.13.0', false], // ^0.12 stops before 0.13
    ['^0.13.0', '0.13.9', true],
    ['^1.2.3', '1.9.0', true],
    ['^1.2.3', '2.0.0', false],
    ['^0.0.3', '0.0.4', false],
    ['~0.13.1', '0.13.4', true],
    ['~0.13.1', '0.14.0', false],
    ['~1', '1.9.9', true],
    ['=0.13.0', '0.13.0', true],
    ['=0.13', '0.13.7', true],
    ['=0.13', '0.14.0', false],
    ['>0.12', '0.13.0', true],
    ['>0.13', '0.13.9', false],
    ['<=0.13', '0.13.9', true],
    ['<0.13', '0.12.9', true],
    ['*', '0.13.0', true],
    ['0.*', '0.13.0', true],
    ['0.13.*', '0.13.2', true],
    ['1.*', '0.13.0', false],
    ['>=0.13.0-alpha', '0.13.0', true],
    ['<0.13.0-rc.1', '0.13.0', false],
  ])('%s matches %s: %s', (requirement, version, expected) => {
    expect(matches(requirement, version)).toBe(expected);
  });

  it.each([
    '',
    ' ',
    '>=',
    '>=a.b.c',
    '0.13.0 || 0.14.0',
    '>=0.12.0 <1.0.0',
    '=>0.1.0',
    '^*',
    '1.2.3.4',
    ',',
    '>=0.12.0,',
    '01.2.3',
  ])('refuses %j', (requirement) => {
    expect(parseRequirement(requirement).ok).toBe(false);
  });
});
