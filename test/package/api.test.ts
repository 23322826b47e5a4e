// The public API, locked: every name each entry point exports (values and types). Adding,
// renaming or removing a public name is a decision; make it here, in the same commit, on purpose.
// On a mismatch the test prints which names were added and which removed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const API: Readonly<Record<string, readonly string[]>> = {
  'cosh-hooks': [
    'AuditConfigRecord',
    'AuditRecord',
    'Dispatcher',
    'EventInput',
    'Hook',
    'HookDecision',
    'HookDefinitionError',
    'HookDefinitions',
    'HookError',
    'HookEvent',
    'HookNotification',
    'JsonLine',
    'OutputLine',
    'PipelineDeps',
    'Registry',
    'Session',
    'SessionClosedError',
    'auditConfigRecord',
    'concatRegistries',
    'createDispatcher',
    'createSession',
    'defaultDeps',
    'defineHooks',
    'encodeLine',
    'formatProblem',
    'hookPipeline',
    'isDecision',
    'loadHooks',
    'redactJson',
    'redactText',
    'registryOf',
    'traceAudit',
    'watchHooks',
  ],
  'cosh-hooks/executors': [
    'CommandExecutor',
    'HookEmission',
    'HookExecutor',
    'HookProgress',
    'HookResult',
    'ProcessExecutorOptions',
    'RunScopedExecutor',
    'hookExecutor',
    'processExecutor',
    'resultOnly',
  ],
  'cosh-hooks/operators': [
    'admitEvents',
    'concatMapByKey',
    'foldDecision',
    'matchHooks',
    'parseLines',
    'runHooks',
    'runObservers',
    'stopOnBlock',
    'withLatestRegistry',
  ],
  'cosh-hooks/ai-sdk': ['AiSdkHooks', 'HookBlockedError', 'TurnInput', 'TurnOutcome', 'aiSdkHooks'],
  'cosh-hooks/testing': [
    'commandHook',
    'createTestScheduler',
    'event',
    'fakeExecutor',
    'progress',
    'results',
    'testDeps',
  ],
  'cosh-hooks/langchain': ['LangChainHooksOptions', 'langchainHooks'],
  'cosh-hooks/openai-agents': ['OpenAIAgentsHooks', 'OpenAIAgentsHooksOptions', 'openaiAgentsHooks'],
};

/** The source file of each entry point (package.json "exports" points at their build). */
const ENTRIES: Readonly<Record<string, string>> = {
  'cosh-hooks': 'src/index.ts',
  'cosh-hooks/operators': 'operators/index.ts',
  'cosh-hooks/executors': 'src/executors.ts',
  'cosh-hooks/testing': 'src/testing/index.ts',
  'cosh-hooks/ai-sdk': 'src/adapters/ai-sdk.ts',
  'cosh-hooks/langchain': 'src/adapters/langchain.ts',
  'cosh-hooks/openai-agents': 'src/adapters/openai-agents.ts',
};

interface Exported {
  readonly name: string;
  readonly isValue: boolean;
  readonly doc: string;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every export of each entry point, with whether it exists at run time and its TSDoc text. */
const readApi = (): Record<string, Exported[]> => {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.lib.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.lib.json not readable');
  const program = ts.createProgram(
    Object.values(ENTRIES).map((file) => `${root}${file}`),
    config.options,
  );
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    Object.entries(ENTRIES).map(([entry, file]) => {
      const source = program.getSourceFile(`${root}${file}`);
      const module = source && checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${file}: not a module`);
      const exported = checker.getExportsOfModule(module).map((symbol): Exported => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const typeOnly = symbol.declarations?.some((d) => ts.isTypeOnlyExportDeclaration(d)) ?? false;
        return {
          name: symbol.getName(),
          isValue: !typeOnly && (target.flags & ts.SymbolFlags.Value) !== 0,
          doc: ts.displayPartsToString(target.getDocumentationComment(checker)).trim(),
        };
      });
      return [entry, exported.sort((a, b) => (a.name < b.name ? -1 : 1))];
    }),
  );
};

const api = readApi();

const difference = (actual: readonly string[], locked: readonly string[]): string => {
  const added = actual.filter((name) => !locked.includes(name));
  const removed = locked.filter((name) => !actual.includes(name));
  return [
    added.length > 0 ? `added (not in the lock): ${added.join(', ')}` : '',
    removed.length > 0 ? `removed (still in the lock): ${removed.join(', ')}` : '',
    'If this change of the public API is intended, update API in test/package/api.test.ts.',
  ]
    .filter(Boolean)
    .join('\n');
};

/** How many public names each entry point has, and in all: the count docs/architecture.md gives. */
const publicNameCounts = (): Record<string, number> => ({
  ...Object.fromEntries(Object.entries(api).map(([entry, names]) => [entry, names.length])),
  total: Object.values(api).reduce((sum, names) => sum + names.length, 0),
});

describe('the public API', () => {
  it('has 59 names in four entry points (101 before they were cut to the ones a host writes) and 10 in the adapters', () => {
    const counts = publicNameCounts();
    console.log(`public API: ${JSON.stringify(counts)}`);
    expect(counts).toEqual({
      'cosh-hooks': 33,
      'cosh-hooks/executors': 10,
      'cosh-hooks/operators': 9,
      'cosh-hooks/testing': 7,
      'cosh-hooks/ai-sdk': 5,
      'cosh-hooks/langchain': 2,
      'cosh-hooks/openai-agents': 3,
      total: 69,
    });
  });

  it('docs/architecture.md lists every public name once, under its entry point', () => {
    const page = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('\n## Public API'));
    const listed: Record<string, string[]> = {};
    let entry = '';
    for (const line of section.split('\n')) {
      const heading = /^### `([^`]+)`/.exec(line);
      if (heading?.[1] !== undefined) entry = heading[1];
      const item = /^- `([A-Za-z_]+)`/.exec(line);
      if (item?.[1] !== undefined) (listed[entry] ??= []).push(item[1]);
    }
    expect(
      Object.fromEntries(Object.entries(listed).map(([name, names]) => [name, [...names].sort()])),
    ).toEqual(Object.fromEntries(Object.entries(API).map(([name, names]) => [name, [...names].sort()])));
  });

  for (const entry of Object.keys(ENTRIES)) {
    it(`${entry} exports exactly the locked names`, () => {
      const names = (api[entry] ?? []).map((exported) => exported.name);
      const locked = [...(API[entry] ?? [])].sort();
      expect(names, difference(names, locked)).toEqual(locked);
    });

    it(`${entry}: every exported name has a TSDoc comment`, () => {
      const undocumented = (api[entry] ?? []).filter((exported) => exported.doc === '').map((e) => e.name);
      expect(undocumented).toEqual([]);
    });

    it(`${entry}: the built module has exactly the value exports at run time`, async () => {
      const module = (await import(entry)) as Record<string, unknown>;
      const values = (api[entry] ?? []).filter((exported) => exported.isValue).map((e) => e.name);
      expect(Object.keys(module).sort()).toEqual(values);
    });
  }

  it('exports each name from one entry point only', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [entry, exported] of Object.entries(api)) {
      for (const { name } of exported) {
        const first = seen.get(name);
        if (first !== undefined) twice.push(`${name} (${first} and ${entry})`);
        seen.set(name, entry);
      }
    }
    expect(twice).toEqual([]);
  });
});
