import { describe, expect, it } from 'vitest';
import { invocationOf } from '../../../src/exec/process/command.js';

describe('invocationOf', () => {
  it.each<[string, string, string[]]>([
    ['./hook.sh', './hook.sh', []],
    ['/opt/hooks/check', '/opt/hooks/check', []],
    ['python3 /opt/hooks/check.py', 'python3', ['/opt/hooks/check.py']],
    ['  node\thook.js   --mode=strict -v ', 'node', ['hook.js', '--mode=strict', '-v']],
    [
      'guard --user=me@example.com 1,2 50% +x a:b',
      'guard',
      ['--user=me@example.com', '1,2', '50%', '+x', 'a:b'],
    ],
  ])('%j runs directly', (command, file, args) => {
    expect(invocationOf(command)).toStrictEqual({ file, args });
  });

  it.each([
    ['a pipe', 'cat | jq .'],
    ['a sequence', 'cat >/dev/null; echo x'],
    ['a redirection', 'hook 2>&1'],
    ['a variable', 'hook $HOME'],
    ['single quotes', "hook 'a b'"],
    ['double quotes', 'hook "a"'],
    ['a backslash', 'hook a\\ b'],
    ['a glob', 'hook *.txt'],
    ['a tilde', '~/hook.sh'],
    ['a comment', 'hook # note'],
    ['a newline', 'hook\nother'],
    ['background', 'hook &'],
    ['a subshell', '(hook)'],
    ['a brace group', '{ hook; }'],
    ['an assignment', 'DEBUG=1 hook'],
    ['a non-ASCII word', 'hook héllo'],
    ['the exit builtin', 'exit 2'],
    ['the echo builtin', 'echo hi'],
    ['the null builtin', ':'],
    ['the dot builtin', '. ./lib.sh'],
    ['a reserved word', 'if true'],
    ['exec', 'exec ./hook'],
    ['the bash source builtin', 'source /opt/hook.sh'],
    ['the bash let builtin', 'let x=1'],
    ['the bash declare builtin', 'declare -x A'],
    ['a bash test', '[[ -f x ]]'],
    ['a test bracket', '[ -f x ]'],
    ['an empty command', ''],
    ['a blank command', '   '],
  ])('%s goes through sh', (_name, command) => {
    expect(invocationOf(command)).toStrictEqual({ file: '/bin/sh', args: ['-c', command] });
  });
});
