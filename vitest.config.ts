import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two tiers. `fast` is what `npm test` runs (the README's test command, ≤ 90 s on 2 cores): unit,
 * marble, type, docs, integration and CLI tests. `slow` holds the tests that are slow by nature
 * (signal storms, special files, property runs over thousands of inputs, the packed tarball
 * installed into a host, the spawn helper under memory pressure); `npm run test:all` runs both
 * tiers and is what CI runs.
 */
const SLOW = [
  'test/reliability/host-signals.test.ts',
  'test/reliability/special-files.test.ts',
  'test/reliability/lost-writes.test.ts',
  'test/reliability/catastrophic-matchers.test.ts',
  'test/reliability/process-limits.test.ts',
  'test/reliability/terminal-output.test.ts',
  'test/reliability/*.property.test.ts',
  'test/integration/spawn-helper.test.ts',
  'test/package/consumer.test.ts',
  'test/package/adapters.test.ts',
  'test/package/adapters-lc.test.ts',
  // Each README install method in a scratch host (npm install from the cache; a git install builds).
  'test/package/install-methods.test.ts',
  // Real processes for many seconds: persistent hooks recycling and backing off, deadlines against
  // slots and a blocked event loop, the Claude/Gemini compat fixtures, the audit file and OTLP export.
  'test/integration/persistent.test.ts',
  'test/integration/hook-time.test.ts',
  'test/cli/compat.test.ts',
  'test/cli/audit.test.ts',
  // The MCP proxy in front of the reference servers: each test starts a proxy and a server (seconds).
  'test/cli/mcp-proxy.test.ts',
  // The agent frameworks' real loops: loading LangChain or OpenAI Agents alone takes some 6 s.
  'test/integration/langchain-adapter.test.ts',
  'test/integration/openai-agents-adapter.test.ts',
  'test/cli/audit-stderr.test.ts',
  // doctor on examples/config.toml (11 hooks, node observers) and fire with observers: a dozen processes.
  'test/cli/doctor-observers.test.ts',
  // The command and the executor through many real processes, a few seconds each: npm test stays
  // under 90 s on 2 cores (docs/execution.md#guarantees-and-their-tests); CI runs them all.
  'test/cli/layers.test.ts',
  'test/cli/cosh-core.test.ts',
  'test/cli/redaction.test.ts',
  'test/cli/run.test.ts',
  'test/integration/executor.test.ts',
  'test/cli/persistent.test.ts',
  'test/reliability/host-exit.test.ts',
  'test/cli/commands.test.ts',
  'test/reliability/hostile-hooks.test.ts',
  'test/cli/process.test.ts',
  'test/cli/more-events.test.ts',
  'test/integration/compat.test.ts',
  'test/reliability/deep-structures.test.ts',
  'test/cli/replay.test.ts',
  // Loading the AI SDK alone takes seconds (its peers' suites are above).
  'test/integration/ai-sdk.test.ts',
  'test/cli/fail-loud.test.ts',
  'test/cli/init.test.ts',
  'test/reliability/spawn-env.test.ts',
  'test/reliability/path-injection.test.ts',
  'test/integration/observers.test.ts',
  // 220 sessions with 1 MB ids under a 64 MB heap: about 30 s of one core.
  'test/reliability/bounded-sessions.test.ts',
  // Six runs of the built command line and library, each checking what it loaded.
  'test/cli/lazy-loads.test.ts',
];

export default defineConfig({
  test: {
    // One worker per core: most files wait on real processes, and vitest's default leaves a core idle.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW] },
      },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
