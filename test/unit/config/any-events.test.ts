import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { EVENT_NAMES } from '../../../src/events/names.js';

const FILE = '/home/u/.copilot-shell/config.toml';
const toml = (...lines: string[]) => lines.join('\n');
const errorsOf = (text: string) =>
  decodeConfigText(text, FILE).errors.map(({ file: _file, ...rest }) => rest);
/** Per event, the names of its hooks in chain order. */
const chains = (text: string) =>
  Object.fromEntries(
    Object.entries(decodeConfigText(text, FILE).hooks)
      .filter(([, hooks]) => hooks.length > 0)
      .map(([event, hooks]) => [event, hooks.map((hook) => hook.name)]),
  );

describe('[[hooks.any]]: one table for a hook on several or all events', () => {
  it("a list of events: the hook runs on each, after that event's own tables", () => {
    const text = toml(
      '[[hooks.any]]',
      'events = ["PreToolUse", "Stop"]',
      'name = "log"',
      'command = "cat > /dev/null"',
      'observe = true',
      '',
      '[[hooks.PreToolUse]]',
      'name = "guard"',
      'command = "true"',
    );
    expect(errorsOf(text)).toEqual([]);
    expect(chains(text)).toEqual({ PreToolUse: ['guard', 'log'], Stop: ['log'] });
    const log = decodeConfigText(text, FILE).hooks.Stop[0];
    expect(log).toMatchObject({
      name: 'log',
      observe: true,
      origin: { file: FILE, line: 1, path: 'hooks.any[0]' },
    });
  });

  it('"*" is every event', () => {
    const text = toml('[[hooks.any]]', 'events = "*"', 'name = "log"', 'command = "true"');
    expect(chains(text)).toEqual(Object.fromEntries(EVENT_NAMES.map((event) => [event, ['log']])));
  });

  it('bad events are errors with file:line and the field, like every other key', () => {
    expect(
      errorsOf(
        toml(
          '[hooks]',
          '[[hooks.any]]',
          'name = "a"',
          'command = "true"',
          'events = ["PreToolUse", "pretooluse", "Stop", "Stop"]',
          '',
          '[[hooks.any]]',
          'name = "b"',
          'command = "true"',
          'events = []',
          '',
          '[[hooks.any]]',
          'name = "c"',
          'command = "true"',
          '',
          '[[hooks.any]]',
          'name = "d"',
          'command = "true"',
          'events = "all"',
          'evnets = "*"',
        ),
      ),
    ).toEqual([
      {
        line: 5,
        path: 'hooks.any[0].events[1]',
        message: `unknown event name (expected one of ${EVENT_NAMES.join(', ')}); did you mean PreToolUse?`,
      },
      { line: 5, path: 'hooks.any[0].events[3]', message: 'Stop is listed twice' },
      {
        line: 10,
        path: 'hooks.any[1].events',
        message: 'an empty list: name at least one event, or write "*" for all',
      },
      {
        line: 12,
        path: 'hooks.any[2].events',
        message: `missing required key (expected "*" or an array of event names (${EVENT_NAMES.join(', ')}))`,
      },
      {
        line: 19,
        path: 'hooks.any[3].events',
        message: `expected "*" or an array of event names (${EVENT_NAMES.join(', ')}), got "all"`,
      },
      {
        line: 20,
        path: 'hooks.any[3].evnets',
        message:
          'unknown key (expected events, name, command, timeout, matcher, fail_closed, persistent, env, description, redact, observe, fail_open, sequential, dialect, deny, ask, allow, reason, system_message)',
      },
    ]);
  });

  it('a matcher is a warning only when none of the events has a tool to match', () => {
    const warnings = (events: string) =>
      decodeConfigText(
        toml('[[hooks.any]]', `events = ${events}`, 'name = "a"', 'command = "true"', 'matcher = "^shell$"'),
        FILE,
      ).warnings.map((warning) => warning.path);
    expect(warnings('["PreToolUse", "Stop"]')).toEqual([]);
    expect(warnings('"*"')).toEqual([]);
    expect(warnings('["SessionStart", "Stop"]')).toEqual(['hooks.any[0].matcher']);
  });
});
