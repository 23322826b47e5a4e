import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../cli/helpers.js';

/**
 * Issue 10 class 8 (spec §2): config.toml, manifests and state files must be regular files (a
 * symbolic link to one is fine) of at most 4 MiB, in UTF-8. A FIFO, a device, a directory, a huge
 * file or bytes that are not UTF-8 are an error for the config file and a warning for a manifest or
 * a state file, and reading never blocks nor loads unbounded data. Both the library (`loadHooks`,
 * in a child process so that a hang or a memory blow-up cannot take the test runner with it) and
 * `cosh-hooks validate` are driven.
 */

const INDEX = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'cosh-special-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** How a hostile file is made at `path`; `message` is what the reader says about it. */
const KINDS = [
  {
    kind: 'a FIFO with no writer',
    make: (path: string) => execFileSync('mkfifo', [path]),
    message: 'not a regular file (a FIFO)',
  },
  {
    kind: 'a symbolic link to /dev/zero',
    make: (path: string) => symlinkSync('/dev/zero', path),
    message: 'not a regular file (a character device)',
  },
  {
    kind: 'a directory',
    make: (path: string) => mkdirSync(path),
    message: 'not a regular file (a directory)',
  },
  {
    kind: 'a 5 MiB file',
    make: (path: string) => writeFileSync(path, Buffer.alloc(5 * 1024 * 1024, 0x20)),
    message: 'larger than 4 MiB (5242880 bytes)',
  },
  {
    kind: 'invalid UTF-8',
    make: (path: string) => writeFileSync(path, Buffer.from('\n\n  caf\xe9 \n', 'latin1')),
    message: 'not UTF-8: invalid byte at line 3, byte offset 7',
  },
] as const;

let cases = 0;

/** A sandbox with a good config, a good extension and good state files; `hostile` replaces one. */
const setup = (
  hostile: 'config' | 'manifest' | 'hooks-state' | 'extensions-state',
  make: (path: string) => void,
) => {
  cases += 1;
  const dir = join(root, `case-${cases}`);
  const extensions = join(dir, 'extensions');
  const states = join(dir, 'states');
  for (const folder of [join(extensions, 'good'), join(extensions, 'bad'), states, join(dir, 'system')])
    mkdirSync(folder, { recursive: true });
  const files = {
    config: join(dir, 'config.toml'),
    manifest: join(extensions, 'bad', 'cosh-extension.json'),
    'hooks-state': join(states, 'hooks.json'),
    'extensions-state': join(states, 'extensions.json'),
  };
  const write = (key: keyof typeof files, text: string) => {
    if (key === hostile) make(files[key]);
    else writeFileSync(files[key], text);
  };
  write('config', '[[hooks.Stop]]\nname = "from-config"\ncommand = "true"\n');
  writeFileSync(
    join(extensions, 'good', 'cosh-extension.json'),
    JSON.stringify({
      name: 'good',
      hooks: { Stop: [{ hooks: [{ type: 'command', name: 'from-good', command: 'true' }] }] },
    }),
  );
  write(
    'manifest',
    JSON.stringify({
      name: 'bad',
      hooks: { Stop: [{ hooks: [{ type: 'command', name: 'from-bad', command: 'true' }] }] },
    }),
  );
  write('hooks-state', '{"disabled":[]}');
  write('extensions-state', '{"disabled":[]}');
  const options = {
    configPath: files.config,
    home: dir,
    extensionsDirs: [extensions],
    systemExtensionsDir: join(dir, 'system'),
    stateDir: states,
  };
  const flags = [
    '--config',
    files.config,
    '--home',
    dir,
    '--extensions-dir',
    extensions,
    '--system-extensions-dir',
    join(dir, 'system'),
    '--state-dir',
    states,
  ];
  return { file: files[hostile], options, flags };
};

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `args` under node, killed after 10 s (a hang) and capped at 256 MB of heap (a blow-up). */
const runNode = (args: readonly string[]): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });

/** `loadHooks(options)` in a child: the result as JSON, with chains reduced to hook names. */
const loadInChild = async (options: object) => {
  const script = `
    const { loadHooks } = await import(${JSON.stringify(INDEX)});
    const result = loadHooks(${JSON.stringify(options)});
    const names = result.ok ? result.registry.Stop.filter((h) => h.enabled).map((h) => h.name) : null;
    process.stdout.write(JSON.stringify({ ok: result.ok, errors: result.ok ? [] : result.errors, warnings: result.warnings, names }));
  `;
  const outcome = await runNode(['--input-type=module', '-e', script]);
  expect({ code: outcome.code, signal: outcome.signal, stderr: outcome.stderr }).toStrictEqual({
    code: 0,
    signal: null,
    stderr: '',
  });
  return JSON.parse(outcome.stdout) as {
    ok: boolean;
    errors: unknown[];
    warnings: unknown[];
    names: string[] | null;
  };
};

const validate = (flags: readonly string[]) => runNode([BIN, 'validate', ...flags]);

describe.each(KINDS)('$kind', ({ make, message }) => {
  it(
    'as config.toml: an error from loadHooks and from validate (exit 1); manifests and states still read',
    { timeout: 30_000 },
    async () => {
      const { file, options, flags } = setup('config', make);
      expect(await loadInChild(options)).toStrictEqual({
        ok: false,
        errors: [{ file, message }],
        warnings: [],
        names: null,
      });
      const validated = await validate(flags);
      expect([validated.code, validated.signal, validated.stdout]).toStrictEqual([
        1,
        null,
        `error: ${file}: ${message}\n1 error\n`,
      ]);
    },
  );

  it(
    'as a manifest: a warning naming it, that extension off, everything else loaded',
    { timeout: 30_000 },
    async () => {
      const { file, options, flags } = setup('manifest', make);
      expect(await loadInChild(options)).toStrictEqual({
        ok: true,
        errors: [],
        warnings: [{ file, message: `extension not loaded: ${message}` }],
        names: ['from-config', 'from-good'],
      });
      const validated = await validate(flags);
      expect([validated.code, validated.signal, validated.stdout]).toStrictEqual([
        1,
        null,
        `warning: ${file}: extension not loaded: ${message}\n1 warning\n`,
      ]);
    },
  );

  it.each(['hooks-state', 'extensions-state'] as const)(
    'as the %s file: a warning, the file ignored, every hook loaded',
    { timeout: 30_000 },
    async (which) => {
      const { file, options, flags } = setup(which, make);
      expect(await loadInChild(options)).toStrictEqual({
        ok: true,
        errors: [],
        warnings: [{ file, message: `${message}; ignored` }],
        names: ['from-config', 'from-bad', 'from-good'],
      });
      const validated = await validate(flags);
      expect([validated.code, validated.signal, validated.stdout]).toStrictEqual([
        1,
        null,
        `warning: ${file}: ${message}; ignored\n1 warning\n`,
      ]);
    },
  );
});

describe('files that are fine', () => {
  it(
    'a symbolic link to a regular config file, a 4 MiB manifest and a BOM are read',
    { timeout: 30_000 },
    async () => {
      const { options } = setup('config', (path) => {
        const target = `${path}.real`;
        writeFileSync(target, '\ufeff[[hooks.Stop]]\nname = "linked"\ncommand = "true"\n');
        symlinkSync(target, path);
      });
      expect(await loadInChild(options)).toStrictEqual({
        ok: true,
        errors: [],
        warnings: [],
        names: ['linked', 'from-bad', 'from-good'],
      });
      const big = setup('manifest', (path) => {
        const text = JSON.stringify({
          name: 'bad',
          hooks: { Stop: [{ hooks: [{ type: 'command', name: 'from-bad', command: 'true' }] }] },
        });
        writeFileSync(path, text + ' '.repeat(4 * 1024 * 1024 - Buffer.byteLength(text)));
      });
      expect((await loadInChild(big.options)).names).toStrictEqual(['from-config', 'from-bad', 'from-good']);
    },
  );
});

describe('fire --event-file (the event is read as a stream, bounded)', () => {
  const dir = join(root, 'event-file');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.toml'), '[[hooks.PreToolUse]]\nname = "guard"\ncommand = "true"\n');
  const flags = ['--config', join(dir, 'config.toml'), '--home', dir, '--system-extensions-dir', dir];

  /** `fire` under a 4 GB address-space limit: reading a device without end fails it, not the host. */
  const fire = (eventFile: string, input?: string) =>
    new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        'sh',
        [
          '-c',
          'ulimit -v 4000000; exec "$@"',
          'sh',
          process.execPath,
          BIN,
          'fire',
          'PreToolUse',
          '--event-file',
          eventFile,
          ...flags,
        ],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({
          code,
          signal,
          stdout: Buffer.concat(out).toString(),
          stderr: Buffer.concat(err).toString(),
        });
      });
    });

  it('/dev/zero: exit 1, "larger than 32 MiB", no crash', { timeout: 30_000 }, async () => {
    const result = await fire('/dev/zero');
    expect([result.code, result.signal, result.stdout]).toStrictEqual([1, null, '']);
    expect(result.stderr).toBe('cosh-hooks: cannot read /dev/zero: larger than 32 MiB\n');
  });

  it('bytes that are not UTF-8: exit 1 naming where', { timeout: 30_000 }, async () => {
    const file = join(dir, 'latin1.json');
    writeFileSync(file, Buffer.from('{"tool_name":\n"caf\xe9"}', 'latin1'));
    const result = await fire(file);
    expect([result.code, result.stdout]).toStrictEqual([1, '']);
    expect(result.stderr).toBe(
      `cosh-hooks: cannot read ${file}: not UTF-8: invalid byte at line 2, byte offset 18\n`,
    );
  });

  it('a FIFO with a writer and stdin (-) are read whole', { timeout: 30_000 }, async () => {
    const fifo = join(dir, 'event.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `printf '%s' '{"tool_name":"from-fifo"}' > "$0"`, fifo]);
    const viaFifo = await fire(fifo);
    writer.kill();
    expect([viaFifo.code, viaFifo.stderr]).toStrictEqual([0, '']);
    expect(viaFifo.stdout).toContain('tool from-fifo');
    const viaStdin = await fire('-', '{"tool_name":"from-stdin"}');
    expect([viaStdin.code, viaStdin.stderr]).toStrictEqual([0, '']);
    expect(viaStdin.stdout).toContain('tool from-stdin');
  });
});
