import { describe, expect, it } from 'vitest';
import { defineHooks } from '../../../src/registry/define.js';
import { mayApply } from '../../../src/registry/chain.js';

const none = () => undefined;
const registry = defineHooks({
  PreToolUse: [{ name: 'guard', matcher: 'shell', run: none }],
  PostToolUse: [{ name: 'watch', matcher: 'shell', observe: true, run: none }],
  BeforeModel: [{ name: 'off', enabled: false, run: none }],
  Notification: [{ name: 'idle', matcher: 'idle_prompt', run: none }],
  Stop: [{ name: 'watch-stop', observe: true, run: none }],
});

describe('mayApply: whether an event can meet any enabled hook or observer (so a host may skip it)', () => {
  it.each([
    ['PreToolUse', 'shell', true],
    ['PreToolUse', 'read', false],
    // Matchers see tool-name aliases: `run_shell_command` is cosh-core's `shell`.
    ['PreToolUse', 'run_shell_command', true],
    // No matched text given: any enabled hook of the event counts.
    ['PreToolUse', undefined, true],
    ['PostToolUse', 'shell', true],
    ['PostToolUse', 'read', false],
    ['BeforeModel', undefined, false],
    ['AfterModel', undefined, false],
    ['Notification', 'idle_prompt', true],
    ['Notification', 'permission_prompt', false],
    ['Stop', undefined, true],
    // Matchers are ignored on events without a matched field: a text given there changes nothing.
    ['Stop', 'anything', true],
    ['UserPromptSubmit', undefined, false],
  ] as const)('%s %s: %s', (name, text, expected) => expect(mayApply(registry, name, text)).toBe(expected));
});
