import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';
import type { SyntaxKind } from 'jsonc-parser';
import type * as TomlParser from 'toml-eslint-parser';
import type { AST } from 'toml-eslint-parser';
import { formatPath, type ConfigProblem, type Issue, type Segment } from './problems.js';

/**
 * The positional parsers, loaded (synchronously, as loading hooks is) on the first problem to
 * locate: a valid file never loads them, and `cosh-hooks run` starts without their 80 KB.
 */
const load = createRequire(import.meta.url);
let toml: typeof TomlParser | undefined;
let jsonc: typeof JsoncParser | undefined;
const positionalToml = () => (toml ??= load('toml-eslint-parser') as typeof TomlParser);
const jsonScanner = () => (jsonc ??= load('jsonc-parser') as typeof JsoncParser);

type TOMLProgram = AST.TOMLProgram;
type TOMLKey = AST.TOMLKey;
type TOMLKeyValue = AST.TOMLKeyValue;
type TOMLContentNode = AST.TOMLContentNode;

/**
 * Where values sit in a document: formatted path (`hooks.PreToolUse[1].timeout`) -> 1-based line.
 * The real parsers (smol-toml, JSON.parse) give values without positions, so problems found later by
 * the codecs are located in the text again with positional parsers (toml-eslint-parser, jsonc-parser's
 * scanner). They are only ever given text the real parser accepted, and only to find lines: what a
 * document means is always what the real parser said.
 */
export type Locations = ReadonlyMap<string, number>;

/**
 * The line of `path`, or of its closest located ancestor (a missing key points at its table; the
 * empty path is the document itself, located only for JSON, where it starts with `{`).
 */
export const lineOf = (locations: Locations, path: readonly Segment[]): number | undefined => {
  for (let length = path.length; length >= 0; length -= 1) {
    const line = locations.get(formatPath(path.slice(0, length)));
    if (line !== undefined) return line;
  }
  return undefined;
};

/**
 * Paths longer than this are not located (their closest located ancestor is reported instead). No
 * config, manifest or state key lives that deep, and a path is copied at every level: walking a
 * hostile document (JSON.parse accepts any depth, smol-toml any length of dotted key) without a
 * bound would cost time quadratic in its depth.
 */
const MAX_LOCATED_DEPTH = 64;

/** Locations as they are found; the first mention of a path wins: it is where a reader looks. */
const recorder = () => {
  const found = new Map<string, number>();
  const record = (path: readonly Segment[], line: number): void => {
    if (path.length > MAX_LOCATED_DEPTH) return;
    const key = formatPath(path);
    if (!found.has(key)) found.set(key, line);
  };
  /** `[...base, ...keys]` and each of its prefixes longer than `base`, all on one line. */
  const recordKeys = (base: readonly Segment[], keys: readonly Segment[], line: number): void => {
    for (let length = 1; length <= keys.length && base.length + length <= MAX_LOCATED_DEPTH; length += 1) {
      record([...base, ...keys.slice(0, length)], line);
    }
  };
  return { found, record, recordKeys };
};

// ----- TOML

const keyParts = (key: TOMLKey): string[] =>
  key.keys.map((part) => (part.type === 'TOMLBare' ? part.name : part.value));

/**
 * Locations of every table header, key and array element in a TOML document, with the indexes
 * of arrays of tables resolved: the second `[[hooks.PreToolUse]]` is `hooks.PreToolUse[1]`, and a
 * `[hooks.PreToolUse.env]` after it is `hooks.PreToolUse[1].env`.
 *
 * The syntax tree comes from toml-eslint-parser; the document's values came from smol-toml, which
 * already accepted this text. Where the two parsers disagree (the locator rejects the text, or
 * runs out of stack: smol-toml stops at 1,000 levels of nesting, toml-eslint-parser managed 5,000
 * in our tests), no line is reported rather than a wrong one. The tree is walked without recursion.
 */
export const tomlLocations = (text: string): Locations => {
  let program: TOMLProgram;
  try {
    // smol-toml skips a byte order mark; toml-eslint-parser does not. Lines are unchanged.
    program = positionalToml().parseTOML(text.startsWith('\uFEFF') ? text.slice(1) : text, {
      tomlVersion: '1.1.0',
    });
  } catch {
    return new Map();
  }
  const { found, record, recordKeys } = recorder();
  // Depth first, in document order: items are pushed in reverse so the first is walked first.
  const pending: { readonly node: TOMLKeyValue | TOMLContentNode; readonly path: readonly Segment[] }[] = [];
  const pushAll = (
    items: { readonly node: TOMLKeyValue | TOMLContentNode; readonly path: readonly Segment[] }[],
  ) => {
    for (let index = items.length - 1; index >= 0; index -= 1) pending.push(items[index]!);
  };
  const walk = () => {
    for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
      const { node, path } = item;
      if (path.length > MAX_LOCATED_DEPTH) continue;
      if (node.type === 'TOMLKeyValue') {
        const keys = keyParts(node.key);
        recordKeys(path, keys, node.loc.start.line);
        pending.push({ node: node.value, path: [...path, ...keys] });
      } else {
        record(path, node.loc.start.line);
        if (node.type === 'TOMLArray')
          pushAll(node.elements.map((element, index) => ({ node: element, path: [...path, index] })));
        else if (node.type === 'TOMLInlineTable') pushAll(node.body.map((entry) => ({ node: entry, path })));
      }
    }
  };
  for (const entry of program.body[0].body) {
    if (entry.type === 'TOMLTable') {
      recordKeys([], entry.resolvedKey, entry.loc.start.line);
      pushAll(entry.body.map((keyValue) => ({ node: keyValue, path: entry.resolvedKey })));
    } else pending.push({ node: entry, path: [] });
    walk();
  }
  return found;
};

// ----- JSON

/**
 * The scanner's token kinds this walker needs. jsonc-parser declares them as a `const enum`, which
 * isolated modules cannot read, so the documented values are repeated here (checked by the type).
 */
const Token = {
  OpenBrace: 1,
  CloseBrace: 2,
  OpenBracket: 3,
  CloseBracket: 4,
  Comma: 5,
  Colon: 6,
  EOF: 17,
} as const satisfies Record<string, SyntaxKind>;

/** An open array or object while tokens are read; `path` is undefined past the located depth. */
type Container =
  | { readonly kind: 'array'; readonly path: readonly Segment[] | undefined; next: number }
  | {
      readonly kind: 'object';
      readonly path: readonly Segment[] | undefined;
      key: string;
      awaitingKey: boolean;
    };

/**
 * Locations of every member and element of a JSON document that `JSON.parse` accepted. The tokens
 * come from jsonc-parser's scanner (strings and escapes handled there); the structure is followed
 * with an explicit stack, so depth costs no call stack (JSON.parse accepts 100,000 levels, and
 * jsonc-parser's own tree builder recurses and overflows at about 10,000).
 */
export const jsonLocations = (text: string): Locations => {
  const { found, record } = recorder();
  const scanner = jsonScanner().createScanner(text, true);
  const open: Container[] = [];
  for (let token = scanner.scan(); token !== Token.EOF; token = scanner.scan()) {
    const top = open[open.length - 1];
    if (token === Token.CloseBrace || token === Token.CloseBracket) {
      open.pop();
      continue;
    }
    if (token === Token.Colon) continue;
    if (token === Token.Comma) {
      if (top?.kind === 'object') top.awaitingKey = true;
      continue;
    }
    const line = scanner.getTokenStartLine() + 1;
    if (top?.kind === 'object' && top.awaitingKey) {
      top.key = scanner.getTokenValue();
      top.awaitingKey = false;
      if (top.path !== undefined) record([...top.path, top.key], line);
      continue;
    }
    // A value starts here: the document itself, an array element, or a member's value.
    let path: Segment[] | undefined;
    if (top === undefined) path = [];
    else if (top.kind === 'array') {
      path = top.path === undefined ? undefined : [...top.path, top.next];
      top.next += 1;
    } else path = top.path === undefined ? undefined : [...top.path, top.key];
    if (path !== undefined) record(path, line);
    const inner = path !== undefined && path.length < MAX_LOCATED_DEPTH ? path : undefined;
    if (token === Token.OpenBracket) open.push({ kind: 'array', path: inner, next: 0 });
    else if (token === Token.OpenBrace)
      open.push({ kind: 'object', path: inner, key: '', awaitingKey: true });
  }
  return found;
};

/** 1-based line and column of a character offset. */
export const lineAndColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
};

/**
 * Turns codec issues of one file into problems with their line. The text is scanned for locations
 * once, on the first issue: a valid file costs no scan.
 */
export const problemLocator = (file: string, locationsOf: () => Locations) => {
  let locations: Locations | undefined;
  return (issue: Issue): ConfigProblem => {
    locations ??= locationsOf();
    const line = lineOf(locations, issue.path);
    const path = formatPath(issue.path);
    return {
      file,
      ...(line !== undefined && { line }),
      // The document itself has no path to show: `file:1: message` rather than `file:1: : message`.
      ...(path !== '' && { path }),
      message: issue.message,
    };
  };
};
