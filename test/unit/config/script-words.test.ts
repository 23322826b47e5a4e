import { describe, expect, it } from 'vitest';
import { scriptWords } from '../../../src/config/script-words.js';

const W = '/w s';
const paths = (command: string) => scriptWords(command, W);

describe('scriptWords: the files a command runs, read from its text', () => {
  it.each([
    ['python3 .copilot-shell/hooks/guard.py --strict', ['.copilot-shell/hooks/guard.py']],
    ['./hooks/guard.sh', ['./hooks/guard.sh']],
    ['/usr/local/bin/guard --x', ['/usr/local/bin/guard']],
    ['sh -e hooks/a.sh arg', ['hooks/a.sh']],
    ['node lib.mjs', ['lib.mjs']],
    ['env -i FOO=1 python3 hooks/g.py', ['hooks/g.py']],
    ['FOO=1 ./g.sh', ['./g.sh']],
    ["bash 'hooks/with space.sh'", ['hooks/with space.sh']],
    ['sh "$COSH_WORKSPACE_PATH/h.sh"', ['/w s/h.sh']],
    ['sh ${CLAUDE_PROJECT_DIR}/h.sh', ['/w s/h.sh']],
    ['logger -t x', []],
    ['jq . > out.json', []],
    ['./a.sh; python3 b.py | ./c.sh', ['./a.sh', 'b.py', './c.sh']],
    ['sh a\\ b.sh', ['a b.sh']],
  ])('%s', (command, expected) => {
    expect(paths(command).paths).toEqual(expected);
  });

  it('a word the shell must expand is not determined, and says why', () => {
    expect(paths('python3 $HOME/g.py')).toEqual({
      paths: [],
      undetermined: 'a shell expansion in "$HOME/g.py"',
    });
    expect(paths('sh `pick`').undetermined).toBe('a command substitution in "`pick`"');
    expect(paths('sh hooks/*.sh').undetermined).toBe('a glob in "hooks/*.sh"');
    expect(paths("sh 'open").undetermined).toBe('an unclosed quote in "open"');
  });

  it('runs in linear time on a hostile command (no backtracking, bounded words)', () => {
    const hostile = `sh ${'"a\\"'.repeat(20_000)} ${'x/ '.repeat(40_000)}`;
    const found = paths(hostile);
    expect(found.paths.length).toBeLessThanOrEqual(16);
  });
});
