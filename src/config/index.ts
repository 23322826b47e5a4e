/**
 * Configuration: `config.toml`, extension manifests and disabled state -> a resolved Registry
 * (spec §2–§4). io-ts and fp-ts are used inside this folder only; the API returns plain values.
 */
export { loadHooks, DEFAULT_SYSTEM_EXTENSIONS_DIR } from './load.js';
export type { LoadOptions, LoadResult, LoadedSources } from './load.js';
export { formatProblem } from './problems.js';
export type { ConfigProblem } from './problems.js';
export { decodeForeignText } from './foreign.js';
export type { ForeignHook, DecodedForeign } from './foreign.js';
export { foreignHooksToToml } from './foreign-toml.js';
export type { ForeignSettings } from './foreign-load.js';
export { watchHooks } from './watch.js';
export type { WatchOptions } from './watch.js';
export type { UntrustedHook } from './layers.js';
