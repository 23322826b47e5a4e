/**
 * The command modules, each loaded when its command runs: `--version`, `--help` and a usage error
 * load commander and the program's text, not the engine (RxJS, io-ts, the config parsers, the
 * executor). docs/performance.md (cold start) has the figures.
 */
export const loadCommands = () => import('./commands.js');
export const loadImport = () => import('./import.js');
export const loadInit = () => import('./init.js');
export const loadReplay = () => import('./replay.js');
export const loadTrust = () => import('./trust.js');
export const loadMcpProxy = () => import('./mcp-proxy.js');
