import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { decodeManifestText } from '../../../src/config/manifest.js';
import type { HookEvent } from '../../../src/events/codecs.js';
import { chainFor, observersFor } from '../../../src/registry/chain.js';
import { defineHooks, HookDefinitionError } from '../../../src/registry/define.js';
import { registryOf } from '../../../src/registry/index.js';

const shell = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/',
  tool_name: 'shell',
  tool_input: {},
} as HookEvent;

describe('observe = true, in every place a hook is declared', () => {
  it('config.toml: an observer is never in the chain; observersFor finds it (matcher applied)', () => {
    const decoded = decodeConfigText(
      [
        '[[hooks.PreToolUse]]',
        'name = "guard"',
        'command = "true"',
        '[[hooks.PreToolUse]]',
        'name = "logger"',
        'command = "true"',
        'observe = true',
        '[[hooks.PreToolUse]]',
        'name = "file-logger"',
        'command = "true"',
        'observe = true',
        'matcher = "^write_file$"',
      ].join('\n'),
      '/c.toml',
    );
    expect(decoded.errors).toStrictEqual([]);
    const registry = registryOf((name) => decoded.hooks[name]);
    expect(chainFor(registry, shell).map((hook) => hook.name)).toStrictEqual(['guard']);
    expect(observersFor(registry, shell).map((hook) => hook.name)).toStrictEqual(['logger']);
  });

  it('config.toml: observe must be a boolean, named with its path', () => {
    const decoded = decodeConfigText(
      '[[hooks.Stop]]\nname = "x"\ncommand = "true"\nobserve = "yes"\n',
      '/c.toml',
    );
    expect(decoded.errors.map((problem) => problem.path)).toStrictEqual(['hooks.Stop[0].observe']);
  });

  it('cosh-extension.json: an entry with "observe": true', () => {
    const decoded = decodeManifestText(
      JSON.stringify({
        name: 'agent-sec-core',
        hooks: {
          PreToolUse: [
            {
              hooks: [
                { type: 'command', name: 'scanner', command: 'true' },
                { type: 'command', name: 'observability', command: 'true', observe: true },
              ],
            },
          ],
        },
      }),
      '/ext/cosh-extension.json',
      { extensionPath: '/ext', workspacePath: '/w' },
    );
    expect(decoded.ok).toBe(true);
    const hooks = decoded.ok ? decoded.value.hooks.PreToolUse : [];
    expect(hooks.map((hook) => [hook.name, hook.observe === true])).toStrictEqual([
      ['scanner', false],
      ['observability', true],
    ]);
    // `observe` is a known manifest key: no "unknown key ignored" warning for it.
    expect(decoded.warnings).toStrictEqual([]);
  });

  it('defineHooks: observe on function and command hooks', () => {
    const registry = defineHooks({
      PreToolUse: [
        { name: 'fn', observe: true, run: () => undefined },
        { name: 'cmd', observe: true, command: 'true', persistent: true },
        { name: 'guard', run: () => undefined },
      ],
    });
    expect(chainFor(registry, shell).map((hook) => hook.name)).toStrictEqual(['guard']);
    expect(observersFor(registry, shell).map((hook) => hook.name)).toStrictEqual(['fn', 'cmd']);
    expect(() => defineHooks({ Stop: [{ name: 'x', run: () => undefined, timeout: 0 }] })).toThrow(
      HookDefinitionError,
    );
  });
});
