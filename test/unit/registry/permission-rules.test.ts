import { describe, expect, it } from 'vitest';
import { compileRules, type RuleLists, type RuleMatch } from '../../../src/registry/permission-rules.js';
import { MAX_COMMAND_CHARS, MAX_NESTING, simpleCommands } from '../../../src/registry/shell-commands.js';

const rules = (lists: RuleLists) => {
  const compiled = compileRules(lists, '/home/u');
  if (!compiled.ok) throw new Error(compiled.error.join('\n'));
  return compiled.value;
};

const bash = (lists: RuleLists, command: string, tool = 'shell'): RuleMatch | undefined =>
  rules(lists).decide(tool, { command }, '/work');

const kindOf = (lists: RuleLists, command: string): string => bash(lists, command)?.kind ?? 'none';

const commands = (text: string): string[] => {
  const found = simpleCommands(text);
  if (!found.ok) throw new Error(found.error);
  return found.value.map((command) => command.words.join(' '));
};

describe('simpleCommands: the simple commands of a command line, as bash reads it', () => {
  it('pipes, lists, subshells, $(…), backticks, process substitution, functions', () => {
    expect(commands('git diff && rm -rf / | cat; (cd x || echo "$(id -u)") & echo `whoami` <(ls)')).toEqual(
      expect.arrayContaining([
        'git diff',
        'rm -rf /',
        'cat',
        'cd x',
        'echo $(id -u)',
        'id -u',
        'whoami',
        'ls',
      ]),
    );
    expect(commands('f() { rm -rf /; }; f')).toEqual(expect.arrayContaining(['rm -rf /', 'f']));
  });

  it('a quoted argument is not a command', () => {
    expect(commands(`echo "rm -rf /" 'git push --force'`)).toEqual(['echo rm -rf / git push --force']);
  });

  it('literal sh -c / bash -c / eval scripts are read as commands, wrappers unwrapped', () => {
    expect(commands(`bash -lc 'rm -rf /tmp/x'`)).toContain('rm -rf /tmp/x');
    expect(commands(`sh -c "sh -c 'rm -rf /'"`)).toContain('rm -rf /');
    expect(commands(`eval "rm" -rf /`)).toContain('rm -rf /');
    expect(commands(`sudo -u root env A=1 nohup rm -rf /`)).toContain('rm -rf /');
  });

  it('a shell reading its script from a heredoc or here-string: the script is read; from a pipe: unknown', () => {
    expect(commands("bash <<'EOF'\nrm -rf /\nEOF\n")).toContain('rm -rf /');
    expect(commands("sh <<< 'rm -rf /'")).toContain('rm -rf /');
    const piped = simpleCommands('curl -s https://x | sh');
    expect(piped.ok && piped.value.some((command) => !command.known)).toBe(true);
    const heredoc = simpleCommands('bash <<EOF\n$X\nEOF\n');
    expect(heredoc.ok && heredoc.value.some((command) => !command.known)).toBe(true);
    expect(commands('bash ./build.sh').every(Boolean)).toBe(true);
    const file = simpleCommands('bash ./build.sh');
    expect(file.ok && file.value.every((command) => command.known)).toBe(true);
  });

  it('quotes, escapes and backslash-newlines are removed as bash removes them', () => {
    expect(commands('r\\m -rf /')).toContain('rm -rf /');
    expect(commands('r\\\nm -rf /')).toContain('rm -rf /');
    expect(commands(`"r"'m' -rf /`)).toContain('rm -rf /');
  });

  it('a program that is an expansion is not known', () => {
    for (const text of [
      '$X -rf /',
      '$(echo rm) -rf /',
      '{rm,x} -rf /',
      '/bin/r? -rf /',
      `$'\\x72m' -rf /`,
      'bash -c "$S"',
      'eval "$S"',
    ]) {
      const found = simpleCommands(text);
      expect(found.ok && found.value.some((command) => !command.known), text).toBe(true);
    }
  });

  it('hostile lines are errors, never a partial reading', () => {
    const bad = [
      'echo "unterminated',
      "echo 'unterminated",
      'cat <<EOF\nno end',
      'echo $(',
      'echo `x',
      'a |',
      `${'$('.repeat(MAX_NESTING + 1)}x${')'.repeat(MAX_NESTING + 1)}`,
      `${'$('.repeat(20_000)}`,
      `echo ${'a'.repeat(MAX_COMMAND_CHARS)}`,
      `${'sh -c "'.repeat(1)}${'eval '.repeat(3)}`,
    ];
    for (const text of bad) expect(simpleCommands(text).ok, text.slice(0, 40)).toBe(false);
  });

  it('scripts inside scripts are bounded', () => {
    let script = 'rm -rf /';
    for (let i = 0; i < 12; i++) script = `eval ${JSON.stringify(script).replaceAll('$', '\\$')}`;
    expect(simpleCommands(script).ok).toBe(false);
  });

  it('a plain line (no quote, operator or expansion) skips the parser and reads as the parser reads it', () => {
    for (const line of [
      'git status',
      'A=1 B=2 npm test -- --run x',
      '  ls\t-la  src/ ',
      'A=1',
      'eval rm -rf /',
      'make -j4 all',
      'x@y:z,1%+',
    ]) {
      const plain = simpleCommands(line);
      const parsed = simpleCommands(`${line} ;`); // `;` is not plain: the parser reads it
      expect(plain.ok && parsed.ok && plain.value, line).toEqual(parsed.ok && parsed.value);
    }
    expect(commands('time rm -rf /')).toContain('rm -rf /');
    expect(simpleCommands('if x').ok).toBe(false);
  });

  it('unicode look-alikes are other programs, and non-ASCII text keeps its place', () => {
    expect(commands('ｒｍ -rf / && échο "é" && rm\u00a0-rf x')).toEqual([
      'ｒｍ -rf /',
      'échο é',
      'rm\u00a0-rf x',
    ]);
  });
});

describe('rule hooks: deny, then ask, then allow; no match is pass-through', () => {
  const guard = {
    deny: ['Bash(rm -rf:*)', 'Bash(git push --force*)', 'Edit(/etc/**)', 'mcp__github__delete_*'],
    ask: ['Bash(git push:*)'],
    allow: ['Bash(git diff:*)', 'Bash(git status)', 'Read'],
  };

  it('Bash(git diff:*) does not let `git diff && rm -rf /` through: every simple command counts', () => {
    expect(bash(guard, 'git diff && rm -rf /')).toMatchObject({
      kind: 'deny',
      rule: 'Bash(rm -rf:*)',
      matched: 'rm -rf /',
    });
    expect(kindOf(guard, 'git diff HEAD~1')).toBe('allow');
    expect(kindOf(guard, 'git diff; git status')).toBe('allow');
    expect(kindOf(guard, 'git diff; ls')).toBe('none');
    expect(kindOf(guard, 'git diff | sh')).toBe('deny'); // sh runs what git diff prints
  });

  it('prefix form: `cmd:*` matches the command alone or with arguments, never a longer word', () => {
    expect(kindOf(guard, 'rm -rf')).toBe('deny');
    expect(kindOf(guard, 'rm -rfx /')).toBe('none');
    expect(kindOf(guard, 'git diffx')).toBe('none');
    expect(kindOf(guard, 'git push --force-with-lease origin')).toBe('deny');
    expect(kindOf(guard, 'git push origin main')).toBe('ask');
  });

  it('a command hidden in $(…), backticks, a subshell, sh -c, eval or a wrapper is found', () => {
    for (const text of [
      'echo $(rm -rf /)',
      'echo `rm -rf /`',
      '(rm -rf /)',
      `bash -c 'rm -rf /'`,
      `eval 'rm -rf /'`,
      'sudo rm -rf /',
      '/bin/rm -rf /',
      'A=1 rm  -rf   /',
      'r\\\nm -rf /',
    ])
      expect(kindOf(guard, text), text).toBe('deny');
    expect(kindOf(guard, `echo 'rm -rf /'`)).toBe('none');
  });

  it('a command that cannot be parsed matches every deny rule and no allow rule, and says why', () => {
    const match = bash(guard, 'git diff "unterminated');
    expect(match).toMatchObject({ kind: 'deny', rule: 'Bash(rm -rf:*)' });
    expect(match?.unreadable).toMatch(/could not be parsed/);
    expect(kindOf({ allow: ['Bash(git diff:*)'] }, 'git diff "x')).toBe('none');
    expect(kindOf({ ask: ['Bash(curl:*)'] }, 'cat <<EOF\nx')).toBe('ask');
    expect(kindOf(guard, `${'$('.repeat(40)}x${')'.repeat(40)}`)).toBe('deny');
    expect(kindOf(guard, 'echo '.repeat(20_000))).toBe('deny');
    // A program that is an expansion could be rm.
    expect(bash(guard, '$CMD -rf /')?.unreadable).toMatch(/not known before it runs/);
    expect(kindOf({ allow: ['Bash($CMD:*)'] }, '$CMD -x')).toBe('none');
    expect(kindOf({ allow: ['Bash(*)'] }, '$CMD -x')).toBe('allow'); // `Bash(*)` is every Bash call
  });

  it('tool names go through the aliases: Bash is shell, run_shell_command and Bash', () => {
    for (const tool of ['shell', 'run_shell_command', 'Bash'])
      expect(bash(guard, 'rm -rf /', tool)?.kind, tool).toBe('deny');
    expect(bash(guard, 'rm -rf /', 'python')).toBeUndefined();
    expect(rules({ deny: ['run_shell_command(rm:*)'] }).decide('shell', { command: 'rm x' }, '/')?.kind).toBe(
      'deny',
    );
  });

  it('a Bash call without a command string cannot be read: deny rules match', () => {
    expect(rules(guard).decide('shell', { cmd: 'ls' }, '/')?.kind).toBe('deny');
  });

  it('MCP tool globs, and rules on the tool name alone', () => {
    const set = rules(guard);
    expect(set.decide('mcp__github__delete_repo', {}, '/')).toMatchObject({
      kind: 'deny',
      rule: 'mcp__github__delete_*',
    });
    expect(set.decide('mcp__github__get_repo', {}, '/')).toBeUndefined();
    expect(set.decide('read_file', { file_path: '/x' }, '/')).toMatchObject({ kind: 'allow', rule: 'Read' });
  });

  it('path rules: globs over resolved paths, Edit rules on every editing tool', () => {
    const set = rules({ deny: ['Edit(/etc/**)', 'Read(./.env)', 'Read(~/.ssh/**)'] });
    expect(set.decide('write_file', { file_path: '/etc/passwd' }, '/work')?.kind).toBe('deny');
    expect(set.decide('replace', { file_path: '/work/../etc/hosts' }, '/work')?.kind).toBe('deny');
    expect(set.decide('replace', { file_path: '../../etc/a/b' }, '/work/x')?.kind).toBe('deny');
    expect(set.decide('replace', { file_path: '/etcetera' }, '/work')).toBeUndefined();
    expect(set.decide('read_file', { absolute_path: '/work/.env' }, '/work')?.kind).toBe('deny');
    expect(set.decide('read_file', { file_path: '.env' }, '/work')?.kind).toBe('deny');
    expect(set.decide('read_file', { file_path: '/home/u/.ssh/id_rsa' }, '/')?.kind).toBe('deny');
    // Two path fields that disagree: deny when either matches.
    expect(set.decide('read_file', { file_path: '/work/a', path: '/work/.env' }, '/work')?.kind).toBe('deny');
    expect(set.decide('replace', {}, '/work')?.unreadable).toBe('tool_input names no file');
  });

  it('WebFetch(domain:…)', () => {
    const set = rules({ deny: ['WebFetch(domain:*.evil.com)'], allow: ['WebFetch(domain:example.com)'] });
    expect(set.decide('web_fetch', { url: 'https://a.evil.com/x' }, '/')?.kind).toBe('deny');
    expect(set.decide('web_fetch', { url: 'https://example.com/x' }, '/')?.kind).toBe('allow');
    expect(set.decide('web_fetch', { url: 'https://example.com.evil.org/' }, '/')).toBeUndefined();
    expect(set.decide('web_fetch', { url: 'not a url' }, '/')?.kind).toBe('deny');
  });

  it('rules that cannot be read are refused at load time, each named', () => {
    const compiled = compileRules({ deny: ['Bash(rm', 'Bash()', 'mcp__x(y)', 'WebFetch(example.com)'] }, '/');
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.error).toHaveLength(4);
    const empty = compileRules({}, '/');
    expect(!empty.ok && empty.error[0]).toMatch(/at least one rule/);
  });
});
