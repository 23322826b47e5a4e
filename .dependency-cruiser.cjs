/* global module */
/**
 * The one-way layers of docs/architecture.md, checked by `npm run lint` (`npm run lint:layers`):
 *
 *   events ← protocol ← registry ← dialects ← config
 *   operators ← pipeline ← host ← mcp, adapters
 *   pipeline ← cli (and src/testing, src/adapters, src/index.ts: the entry points)
 *   src/audit: records and builders beside output; the rest between operators and pipeline
 *   src/chain (running one hook) between exec's port and the operators
 *
 * `exec` imports events, protocol, registry and dialects; operators take only its port
 * (src/exec/port.ts); `output` imports events and protocol; src/result.ts imports nothing. Type-only
 * imports count like any other. Nothing in src/ or operators/ imports test/, bench/ or examples/,
 * and no module imports itself back through others.
 */

/** Modules of this repository (not node_modules, not Node built-ins). */
const OURS = '^(src|operators|test|bench|examples)/';
const RESULT = 'src/result\\.ts$';

/**
 * A layer (a folder) that may import, besides itself and src/result.ts, only `allowed`: folders
 * (`src/events/`) or single modules (`src/exec/port.ts`). Paths are from the top, `from` a folder.
 */
const layer = (name, from, allowed) => ({
  name,
  severity: 'error',
  comment: `${from} may import only ${allowed.join(', ')} and src/result.ts (docs/architecture.md)`,
  from: { path: `^${from}` },
  to: {
    path: OURS,
    pathNot: [`^${from}`, RESULT, ...allowed.map((path) => `^${path.replaceAll('.', '\\.')}`)],
  },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import loop: the layers point one way (docs/architecture.md)',
      from: {},
      to: { circular: true },
    },
    {
      name: 'result-imports-nothing',
      severity: 'error',
      comment: 'src/result.ts is imported by every layer and imports nothing of ours',
      from: { path: RESULT },
      to: { path: OURS },
    },
    layer('events-layer', 'src/events/', []),
    layer('protocol-layer', 'src/protocol/', ['src/events/']),
    layer('registry-layer', 'src/registry/', ['src/events/', 'src/protocol/']),
    layer('dialects-layer', 'src/dialects/', ['src/events/', 'src/protocol/', 'src/registry/']),
    layer('config-layer', 'src/config/', [
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/dialects/',
      // The one bounded file digest: what trust records is what the executor checks at each start.
      'src/exec/script-digest.ts',
      // The versions the package follows: cosh-core's, matched by a v1 manifest's compatibility.
      'src/version.ts',
    ]),
    layer('output-layer', 'src/output/', ['src/events/', 'src/protocol/']),
    // The audit's records and their builders sit beside `output` (operators/runObservers.ts makes
    // records); the rest of src/audit wraps a chain's run and is read by pipeline and cli only.
    layer('audit-records-layer', 'src/audit/(records|build)\\.ts', [
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/output/',
      'src/audit/records.ts',
    ]),
    layer('audit-layer', 'src/audit/', [
      'operators/',
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/output/',
      'src/version.ts',
    ]),
    {
      ...layer('exec-layer', 'src/exec/', ['src/events/', 'src/protocol/', 'src/registry/', 'src/dialects/']),
      // A hook's environment names the package's version (COSH_HOOKS_VERSION).
      to: {
        path: OURS,
        pathNot: ['^src/(exec|events|protocol|registry|dialects)/', RESULT, '^src/version\\.ts$'],
      },
    },
    // Running one hook (its deadlines, its dialect): below the operators, on the executor's port.
    layer('chain-layer', 'src/chain/', [
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/dialects/',
      'src/exec/port.ts',
    ]),
    layer('operators-layer', 'operators/', [
      'src/chain/',
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/dialects/',
      'src/output/',
      'src/exec/port.ts',
      'src/audit/records.ts',
      'src/audit/build.ts',
    ]),
    layer('pipeline-layer', 'src/pipeline/', [
      'operators/',
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/dialects/',
      'src/output/',
      'src/exec/',
      'src/audit/',
      'src/chain/',
    ]),
    // The host core (docs/hosts.md): an agent's events onto a session and its decisions read back
    // as what a host must do; below both the MCP gateway and the framework adapters.
    layer('host-layer', 'src/host/', [
      'src/events/',
      'src/protocol/',
      'src/registry/',
      'src/output/',
      'src/pipeline/',
    ]),
    // The MCP proxy (docs/mcp.md): the engine through a session, a decision read by the host core,
    // and its upstream command started by src/exec.
    layer('mcp-layer', 'src/mcp/', [
      'src/host/',
      'src/events/',
      'src/output/',
      'src/pipeline/',
      'src/exec/server-process.ts',
    ]),
    // The agent-framework adapters (cosh-hooks/ai-sdk, …): a session's host, above the pipeline.
    layer('adapters-layer', 'src/adapters/', [
      'src/host/',
      'src/events/',
      'src/protocol/',
      'src/output/',
      'src/pipeline/',
    ]),
    {
      name: 'entry-points-on-top',
      severity: 'error',
      comment: 'the CLI, the testing kit and the adapters are entry points: no layer imports them',
      from: { pathNot: '^src/(cli|testing|adapters)/' },
      to: { path: '^src/(cli|testing|adapters)/' },
    },
    {
      name: 'product-imports-no-tests',
      severity: 'error',
      comment: 'nothing in src/ or operators/ imports test/, bench/ or examples/',
      from: { path: '^(src|operators)/' },
      to: { path: '^(test|bench|examples)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
  },
};
