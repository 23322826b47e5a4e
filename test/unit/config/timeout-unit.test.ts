import { describe, expect, it } from 'vitest';
import { decodeConfigText } from '../../../src/config/config-file.js';
import { decodeManifestText } from '../../../src/config/manifest.js';
import { formatProblem } from '../../../src/config/problems.js';

const FILE = '/home/u/.copilot-shell/config.toml';
const toml = (...lines: string[]) => lines.join('\n');

describe('a timeout under 100 ms: a warning that names the unit (30 means 30 ms here, 30 s in Claude and cosh-core v1)', () => {
  it.each([1, 30, 99])(
    'timeout = %i in [[hooks.<Event>]] warns with file:line and the ms it means',
    (timeout) => {
      const result = decodeConfigText(
        toml('[[hooks.PreToolUse]]', 'name = "guard"', 'command = "x"', `timeout = ${timeout}`),
        FILE,
      );
      expect(result.errors).toEqual([]);
      expect(result.warnings.map(formatProblem)).toEqual([
        `${FILE}:4: hooks.PreToolUse[0].timeout: timeout = ${timeout} is ${timeout} ms; timeouts here are milliseconds (write ${timeout * 1000} for ${timeout} s)`,
      ]);
      // The hook still loads with the value as written: the warning makes validate fail, not run.
      expect(result.hooks.PreToolUse[0]?.timeoutMs).toBe(timeout);
    },
  );

  it('in [[imported_hooks]] too', () => {
    const result = decodeConfigText(
      toml('[[imported_hooks]]', 'event = "Stop"', 'name = "g"', 'command = "x"', 'timeout = 30'),
      FILE,
    );
    expect(result.warnings.map(formatProblem)).toEqual([
      `${FILE}:5: imported_hooks[0].timeout: timeout = 30 is 30 ms; timeouts here are milliseconds (write 30000 for 30 s)`,
    ]);
  });

  it('in an inline table and in an invalid file too (reported with its errors)', () => {
    const result = decodeConfigText(
      toml('[hooks]', 'Stop = [ { name = "a", command = "x", timeout = 5 }, { name = "b", command = 3 } ]'),
      FILE,
    );
    expect(result.errors).not.toEqual([]);
    expect(result.warnings.map((problem) => [problem.line, problem.path])).toEqual([
      [2, 'hooks.Stop[0].timeout'],
    ]);
  });

  it.each([100, 5000, 600000])('timeout = %i is quiet', (timeout) => {
    const result = decodeConfigText(
      toml('[[hooks.Stop]]', 'name = "a"', 'command = "x"', `timeout = ${timeout}`),
      FILE,
    );
    expect(result.warnings).toEqual([]);
  });

  it('a legacy manifest (milliseconds, as cosh-core reads it) warns the same way', () => {
    const manifest = {
      name: 'x',
      hooks: { Stop: [{ hooks: [{ type: 'command', name: 'a', command: 'x', timeout: 10 }] }] },
    };
    const result = decodeManifestText(JSON.stringify(manifest, null, 2), '/e/cosh-extension.json', {
      extensionPath: '/e',
      workspacePath: '/w',
    });
    expect(result.ok).toBe(true);
    expect(result.warnings.map(formatProblem)).toEqual([
      '/e/cosh-extension.json:11: hooks.Stop[0].hooks[0].timeout: "timeout": 10 is 10 ms; timeouts here are milliseconds (write 10000 for 10 s)',
    ]);
  });
});
