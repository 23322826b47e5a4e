/**
 * Which names a project hook's `env` table may set, for trust (docs/configuration.md, trust): none
 * that makes a shell, an interpreter, the dynamic loader or a tool the script runs read code or
 * configuration from elsewhere, and none that moves a workspace variable. A deny-list of exact
 * names, prefixes and generic shapes (anything ending in PATH, OPTIONS, PRELOAD, LIB…), compared
 * in upper case. Pure.
 */

const EXACT = new Set([
  'ENV',
  'BASH_ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'IFS',
  'HOME',
  'SHELL',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'BROWSER',
  'PROMPT_COMMAND',
  'GLIBC_TUNABLES',
  'TMPDIR',
  'CLAUDE_PROJECT_DIR',
  'GEMINI_PROJECT_DIR',
  'CLAUDE_PLUGIN_ROOT',
]);

const PREFIXES = [
  'LD_',
  'DYLD_',
  'BASH_',
  'ZSH',
  'ZDOTDIR',
  'PYTHON',
  'PERL',
  'RUBY',
  'GEM_',
  'BUNDLE',
  'LUA_',
  'NODE_',
  'NPM_',
  'YARN_',
  'XDG_',
  'GIT_',
  'JAVA',
  'JDK_',
  '_JAVA',
  'MALLOC_',
  'GCONV',
];

const SUFFIXES = [
  'PATH',
  'PATHS',
  'OPTIONS',
  'OPTS',
  'OPT',
  'PRELOAD',
  'LIB',
  'LIBS',
  'HOME',
  'DIR',
  'DIRS',
  'CONFIG',
  'COMMAND',
  'CMD',
  'ASKPASS',
  'RC',
  'INIT',
  'STARTUP',
  'PROFILE',
];

/** Why a project hook may not set `name` in its `env`, or undefined when it may. */
export const envNameRefusal = (name: string): string | undefined => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `env ${JSON.stringify(name)}: not a plain variable name`;
  const upper = name.toUpperCase();
  const refusedName =
    EXACT.has(upper) ||
    PREFIXES.some((prefix) => upper.startsWith(prefix)) ||
    SUFFIXES.some((suffix) => upper.endsWith(suffix));
  return refusedName
    ? `env ${name}: a variable that can make a shell, an interpreter, the loader or a tool read code or configuration from elsewhere (or move a workspace variable)`
    : undefined;
};
