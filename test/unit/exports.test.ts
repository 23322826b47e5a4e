import { describe, expect, it } from 'vitest';

// Resolved through package.json "exports" against the built dist/ (npm test builds first).
describe('package entry points', () => {
  it('exports the engine, the operators and the testing kit', async () => {
    const root = await import('cosh-hooks');
    const operators = await import('cosh-hooks/operators');
    const testing = await import('cosh-hooks/testing');
    for (const name of [
      'hookPipeline',
      'createDispatcher',
      'defineHooks',
      'decodeEvent',
      'aggregate',
      'JsonLine',
      'redactText',
      'redactJson',
    ]) {
      expect(typeof (root as Record<string, unknown>)[name], name).toBe('function');
    }
    for (const name of [
      'admitEvents',
      'matchHooks',
      'runHooks',
      'stopOnBlock',
      'foldDecision',
      'concatMapByKey',
    ]) {
      expect(typeof (operators as Record<string, unknown>)[name], name).toBe('function');
      expect((root as Record<string, unknown>)[name], `${name} from the root`).toBe(
        (operators as Record<string, unknown>)[name],
      );
    }
    for (const name of ['fakeExecutor', 'createTestScheduler', 'testDeps', 'commandHook']) {
      expect(typeof (testing as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
