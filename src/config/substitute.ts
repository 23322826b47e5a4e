import type { Dialect } from '../registry/dialect.js';

/** Values substituted into `command` and `env` values at load time (spec §3). */
export interface ExtensionVariables {
  /** Absolute folder of the extension. */
  readonly extensionPath: string;
  /** Absolute workspace root. */
  readonly workspacePath: string;
}

/** The environment variable each path is also given to the hook as (spec §3, §4.2). */
const VARIABLE_OF = {
  extensionPath: 'COSH_EXTENSION_PATH',
  workspacePath: 'COSH_WORKSPACE_PATH',
} as const;

type PathName = keyof typeof VARIABLE_OF;

/**
 * `${extensionPath}`, `${workspacePath}`, `${/}` and `${pathSeparator}` (the name another agent
 * CLI uses for `${/}`). Anything else, `${HOME}` included, is left for `/bin/sh` to expand.
 */
const PLACEHOLDER = /^\$\{(extensionPath|workspacePath|\/|pathSeparator)\}/;

/** Characters that mean nothing to sh in any position of a word, quoted or not. */
const PLAIN_PATH = /^[A-Za-z0-9_./,:@%+=-]+$/;

/** The raw values: for `env` values, which no shell reads. */
export const substitute = (text: string, variables: ExtensionVariables): string =>
  text.replace(/\$\{(extensionPath|workspacePath|\/|pathSeparator)\}/g, (_, name: string) =>
    name === 'extensionPath' || name === 'workspacePath' ? variables[name] : '/',
  );

/** Where a placeholder stands, as sh will read the command. */
type Context = 'unquoted' | 'double' | 'single';

/** What stands for a path in each context: an expansion sh never parses again, one word. */
const expansionIn = (context: Context, variable: string): string => {
  switch (context) {
    case 'unquoted':
      return `"\${${variable}}"`;
    case 'double':
      return `\${${variable}}`;
    case 'single':
      // sh expands nothing inside single quotes: close them, expand in double quotes, reopen.
      return `'"\${${variable}}"'`;
  }
};

/** One open construct of the shell's grammar that changes how quotes are read inside it. */
type Frame = 'double' | 'command' | 'backquote';

/** A placeholder found at some index: how long it is, and what stands for it in each context. */
interface Found {
  readonly length: number;
  readonly replacement: (context: Context) => string;
}

/**
 * Substitutes the placeholders of a hook `command` so that the paths are data, never shell code
 * (spec §3). A path made only of characters that mean nothing to sh (letters, digits, `_ . / , :
 * @ % + = -`) is pasted as is: nothing changes for the usual install folders, and commands with no
 * other shell syntax still run without sh. Any other path is replaced by an expansion of the
 * variable the hook gets it in (`COSH_EXTENSION_PATH`, `COSH_WORKSPACE_PATH`), chosen by where the
 * placeholder stands:
 *
 * - unquoted: `"${COSH_EXTENSION_PATH}"`;
 * - inside double quotes: `${COSH_EXTENSION_PATH}`;
 * - inside single quotes: `'"${COSH_EXTENSION_PATH}"'` (close, expand, reopen).
 *
 * sh never parses the result of an expansion again, so no character of the path can run, and the
 * quoting keeps it one word. The context is read the way sh reads it (see `rewriteInContext`).
 */
export const substituteCommand = (command: string, variables: ExtensionVariables): string => {
  const plain = (name: PathName) => PLAIN_PATH.test(variables[name]);
  return rewriteInContext(command, (text, i) => {
    const placeholder = PLACEHOLDER.exec(text.slice(i, i + 17));
    if (placeholder === null) return undefined;
    const name = placeholder[1] as string;
    return {
      length: placeholder[0].length,
      replacement: (context) =>
        name === 'extensionPath' || name === 'workspacePath'
          ? plain(name)
            ? variables[name]
            : expansionIn(context, VARIABLE_OF[name])
          : '/',
    };
  });
};

/** A loaded hook's command as its dialect's agent would run it: Gemini's project variables quoted. */
export const commandOfDialect = (dialect: Dialect | undefined, command: string): string =>
  dialect === 'gemini' ? quoteProjectDirs(command) : command;

/**
 * Gemini CLI replaces `$GEMINI_PROJECT_DIR` and `$CLAUDE_PROJECT_DIR` in a hook's command with the
 * shell-quoted project folder before the shell sees it, so its documentation writes them unquoted
 * (`$GEMINI_PROJECT_DIR/.gemini/hooks/check.sh`). cosh-hooks pastes no path into a shell line:
 * each becomes the quoted expansion of the same variable, which the hook's environment holds
 * (`"${GEMINI_PROJECT_DIR}"` unquoted), so a folder with spaces or shell syntax stays one word of
 * data. `${GEMINI_PROJECT_DIR}` and a longer name (`$GEMINI_PROJECT_DIRS`) are left to sh.
 */
export const quoteProjectDirs = (command: string): string =>
  rewriteInContext(command, (text, i) => {
    const name = PROJECT_DIR.exec(text.slice(i, i + 20))?.[1];
    return name === undefined
      ? undefined
      : { length: name.length + 1, replacement: (context) => expansionIn(context, name) };
  });

/** `$GEMINI_PROJECT_DIR` or `$CLAUDE_PROJECT_DIR`, not followed by another character of a name. */
const PROJECT_DIR = /^\$(GEMINI_PROJECT_DIR|CLAUDE_PROJECT_DIR)(?![A-Za-z0-9_])/;

/**
 * Copies `command`, replacing each placeholder `find` reports by its replacement for the quoting
 * context it stands in. The context is read the way sh reads it: backslash escapes, quotes, `$( )`
 * and backquotes (each starts a fresh quoting context), comments. A placeholder whose `$` is
 * escaped (`\${extensionPath}`) is text for sh and is left as it is. Misreading the context could
 * only split or misplace a value: its text never enters the command.
 */
const rewriteInContext = (
  command: string,
  find: (command: string, index: number) => Found | undefined,
): string => {
  let out = '';
  let single = false;
  const frames: Frame[] = [];
  /** Open `(` inside each `$( )`, so that its own `)` is told from the one that closes it. */
  const parens: number[] = [];
  const top = (): Frame | undefined => frames[frames.length - 1];
  let i = 0;
  while (i < command.length) {
    const char = command[i] as string;
    if (char === '$') {
      const found = find(command, i);
      if (found !== undefined) {
        out += found.replacement(single ? 'single' : top() === 'double' ? 'double' : 'unquoted');
        i += found.length;
        continue;
      }
    }
    out += char;
    i += 1;
    if (single) {
      if (char === "'") single = false;
      continue;
    }
    const frame = top();
    if (char === '\\') {
      // The next character is literal (inside double quotes only some are, but skipping one
      // character never misreads a quote there either).
      if (i < command.length) out += command[i] as string;
      i += 1;
      continue;
    }
    if (frame === 'double') {
      if (char === '"') frames.pop();
      else if (char === '`') frames.push('backquote');
      else if (char === '$' && command[i] === '(') {
        out += '(';
        i += 1;
        frames.push('command');
        parens.push(0);
      }
      continue;
    }
    // Unquoted: at the top, or inside `$( )` or backquotes.
    if (char === "'") single = true;
    else if (char === '"') frames.push('double');
    else if (char === '`') {
      if (frame === 'backquote') frames.pop();
      else frames.push('backquote');
    } else if (char === '$' && command[i] === '(') {
      out += '(';
      i += 1;
      frames.push('command');
      parens.push(0);
    } else if (frame === 'command' && char === '(') {
      parens[parens.length - 1] = (parens[parens.length - 1] ?? 0) + 1;
    } else if (frame === 'command' && char === ')') {
      const open = parens[parens.length - 1] ?? 0;
      if (open > 0) parens[parens.length - 1] = open - 1;
      else {
        frames.pop();
        parens.pop();
      }
    } else if (char === '#' && (i === 1 || /[\s;&|()]/.test(command[i - 2] as string))) {
      // A comment runs to the end of the line: its quotes open nothing.
      const end = command.indexOf('\n', i);
      const stop = end < 0 ? command.length : end;
      out += command.slice(i, stop);
      i = stop;
    }
  }
  return out;
};
