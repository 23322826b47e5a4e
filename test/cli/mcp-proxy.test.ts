import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, finished, hookTable, jsonl, jsonLines, prints, sandbox, start } from './helpers.js';

/**
 * `cosh-hooks mcp-proxy` driven by the SDK's own client, in front of the real reference servers
 * (`@modelcontextprotocol/server-everything` and `server-filesystem`, installed from the lock),
 * and of `test/fixtures/mcp/odd-server.mjs` for the upstream failures.
 */

const require = createRequire(import.meta.url);
const binOf = (name: string): string => {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0] ?? '');
};
const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
const FILESYSTEM = binOf('@modelcontextprotocol/server-filesystem');
const ODD = fileURLToPath(new URL('../fixtures/mcp/odd-server.mjs', import.meta.url));

const box = sandbox('');
afterAll(() => box.remove());
let configs = 0;
/** A config file of its own per test: the hooks, and the log file each `log` hook appends to. */
const withConfig = (...tables: string[]): { flags: string[]; log: string } => {
  configs += 1;
  const log = box.path(`events-${configs}.jsonl`);
  const config = box.write(`config-${configs}.toml`, tables.join('\n').replaceAll('LOG', log));
  return {
    flags: ['--config', config, '--home', box.dir, '--system-extensions-dir', box.path('system-extensions')],
    log,
  };
};
const logHook = (event: string) =>
  hookTable(event, { name: `log-${event}`, command: `{ cat; echo; } >> LOG` });
const events = (log: string): Record<string, unknown>[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];

interface Connected {
  readonly client: Client;
  readonly stderr: () => string;
  readonly errors: Error[];
  readonly pid: number | null;
}

const connect = async (
  args: readonly string[],
  elicit?: (message: string) => ElicitResult,
): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp-proxy', ...args],
    env: { ...process.env } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: elicit === undefined ? {} : { elicitation: {} } },
  );
  if (elicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors, pid: transport.pid };
};

const everything = ['--name', 'everything', '--', process.execPath, EVERYTHING, 'stdio'];
const textOf = (result: unknown): string =>
  ((result as { content: { text?: string }[] }).content[0]?.text ?? '') as string;

describe('mcp-proxy over stdio, in front of server-everything', () => {
  it('forwards an allowed call and gives PreToolUse the MCP names and ids; lists, prompts and resources pass through', async () => {
    const { flags, log } = withConfig(logHook('PreToolUse'), logHook('PostToolUse'), logHook('SessionStart'));
    const proxy = await connect([...flags, ...everything]);
    const tools = await proxy.client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('echo');
    expect((await proxy.client.listPrompts()).prompts.length).toBeGreaterThan(0);
    expect((await proxy.client.listResources()).resources.length).toBeGreaterThan(0);
    const result = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    await proxy.client.close();
    const seen = events(log);
    const start = seen.find((event) => event['hook_event_name'] === 'SessionStart');
    const pre = seen.find((event) => event['hook_event_name'] === 'PreToolUse');
    const post = seen.find((event) => event['hook_event_name'] === 'PostToolUse');
    expect(pre).toMatchObject({
      tool_name: 'mcp__everything__echo',
      tool_input: { message: 'hello' },
      mcp_server: { name: 'everything', source: 'proxy' },
      session_id: start?.['session_id'],
    });
    expect(typeof pre?.['tool_use_id']).toBe('string');
    expect(post).toMatchObject({
      tool_name: 'mcp__everything__echo',
      tool_use_id: pre?.['tool_use_id'],
      tool_response: { content: [{ type: 'text', text: 'Echo: hello' }] },
    });
    expect(proxy.errors).toStrictEqual([]);
  });

  it('patches the arguments with updated_input and replaces the result with updated_tool_response', async () => {
    const { flags } = withConfig(
      hookTable('PreToolUse', {
        name: 'patch',
        matcher: '^mcp__everything__echo$',
        command: prints({ hookSpecificOutput: { updated_input: { message: 'patched' } } }),
      }),
      hookTable('PostToolUse', {
        name: 'replace',
        matcher: '^mcp__everything__get-sum$',
        command: prints({ hookSpecificOutput: { updated_tool_response: 'the sum is secret' } }),
      }),
    );
    const proxy = await connect([...flags, ...everything]);
    expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'original' } }))).toBe(
      'Echo: patched',
    );
    expect(await proxy.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).toStrictEqual({
      content: [{ type: 'text', text: 'the sum is secret' }],
    });
    await proxy.client.close();
  });

  it('a PostToolUse block withholds the result', async () => {
    const { flags } = withConfig(
      hookTable('PostToolUse', {
        name: 'withhold',
        command: prints({ decision: 'block', reason: 'no leaks' }),
      }),
    );
    const proxy = await connect([...flags, '--allow-unguarded', ...everything]);
    expect(await proxy.client.callTool({ name: 'echo', arguments: { message: 'x' } })).toStrictEqual({
      content: [{ type: 'text', text: 'no leaks' }],
      isError: true,
    });
    await proxy.client.close();
  });

  it('ask: an elicitation where the client supports it (accept runs, decline blocks), a block where it does not', async () => {
    const { flags } = withConfig(
      hookTable('PreToolUse', {
        name: 'confirm',
        command: prints({ decision: 'ask', reason: 'echo is loud' }),
      }),
    );
    const asked: string[] = [];
    let answer: ElicitResult['action'] = 'accept';
    const withElicitation = await connect([...flags, ...everything], (message) => {
      asked.push(message);
      return { action: answer };
    });
    expect(
      textOf(await withElicitation.client.callTool({ name: 'echo', arguments: { message: 'hi' } })),
    ).toBe('Echo: hi');
    expect(asked[0]).toContain('echo is loud');
    expect(asked[0]).toContain('mcp__everything__echo');
    answer = 'decline';
    expect(
      await withElicitation.client.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    ).toStrictEqual({
      content: [{ type: 'text', text: 'the user did not confirm (decline): echo is loud' }],
      isError: true,
    });
    await withElicitation.client.close();

    const without = await connect([...flags, ...everything]);
    expect(await without.client.callTool({ name: 'echo', arguments: { message: 'hi' } })).toStrictEqual({
      content: [
        {
          type: 'text',
          text: 'confirmation was required and this client cannot ask for it (no elicitation support): echo is loud',
        },
      ],
      isError: true,
    });
    await without.client.close();
  });

  it('fail_closed: a guard that crashes blocks the call', async () => {
    const { flags } = withConfig(
      hookTable('PreToolUse', { name: 'crashing-guard', command: 'exit 7', fail_closed: true }),
    );
    const proxy = await connect([...flags, ...everything]);
    const result = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(result['isError']).toBe(true);
    expect(textOf(result)).toContain('crashing-guard');
    await proxy.client.close();
  });

  it('a Claude Code hook pack matching mcp__… works unchanged', async () => {
    const settings = box.write(
      'claude-settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'mcp__everything__.*',
              hooks: [
                {
                  type: 'command',
                  command: prints({
                    hookSpecificOutput: {
                      hookEventName: 'PreToolUse',
                      permissionDecision: 'deny',
                      permissionDecisionReason: 'no everything tools here',
                    },
                  }),
                },
              ],
            },
          ],
        },
      }),
    );
    const { flags } = withConfig();
    const proxy = await connect([...flags, '--claude-settings', settings, ...everything]);
    expect(await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } })).toStrictEqual({
      content: [{ type: 'text', text: 'no everything tools here' }],
      isError: true,
    });
    await proxy.client.close();
  });

  it('progress passes through; a cancelled call stops its running hook, and the upstream never gets it', async () => {
    const pidFile = box.path('slow-hook.pid');
    const { flags, log } = withConfig(
      hookTable('PreToolUse', {
        name: 'slow',
        matcher: '^mcp__everything__echo$',
        command: `echo $$ > ${pidFile}; sleep 30`,
      }),
      logHook('PostToolUse'),
    );
    const proxy = await connect([...flags, ...everything]);
    const progress: number[] = [];
    const long = await proxy.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } },
      undefined,
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(textOf(long)).toContain('Long running operation completed');
    expect(progress).toStrictEqual([1, 2]);

    const abort = new AbortController();
    const call = proxy.client.callTool({ name: 'echo', arguments: { message: 'never' } }, undefined, {
      signal: abort.signal,
    });
    const pid = await until(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined));
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await until(() => (alive(pid) ? undefined : true));
    // The connection goes on, and the cancelled call never reached the upstream (no PostToolUse).
    expect(textOf(await proxy.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain(
      '5',
    );
    await proxy.client.close();
    expect(events(log).map((event) => event['tool_name'])).toStrictEqual([
      'mcp__everything__trigger-long-running-operation',
      'mcp__everything__get-sum',
    ]);
  });

  it('two clients at once: two sessions, each with its own upstream', async () => {
    const { flags, log } = withConfig(logHook('PreToolUse'));
    const [a, b] = await Promise.all([
      connect([...flags, ...everything]),
      connect([...flags, ...everything]),
    ]);
    const results = await Promise.all([
      a.client.callTool({ name: 'echo', arguments: { message: 'a' } }),
      b.client.callTool({ name: 'echo', arguments: { message: 'b' } }),
    ]);
    expect(results.map(textOf)).toStrictEqual(['Echo: a', 'Echo: b']);
    await Promise.all([a.client.close(), b.client.close()]);
    const sessions = new Set(events(log).map((event) => event['session_id']));
    expect(sessions.size).toBe(2);
  });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const until = async <T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('mcp-proxy in front of server-filesystem', () => {
  it('the recipe of docs/mcp.md: a denied write never reaches the server, the model reads the reason, the audit shows both', async () => {
    const root = box.path('fs-root');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(root, { recursive: true });
    // The recipe's config.toml, as the page shows it.
    const recipe = /```toml\n([\s\S]*?)```/.exec(
      readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8'),
    )?.[1];
    expect(recipe).toContain('mcp__filesystem__');
    const { flags } = withConfig(recipe ?? '');
    const auditFile = box.path('fs-audit.jsonl');
    const proxy = await connect([
      ...flags,
      '--audit',
      auditFile,
      '--name',
      'filesystem',
      '--',
      process.execPath,
      FILESYSTEM,
      root,
    ]);
    const target = join(root, 'written.txt');
    expect(
      await proxy.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } }),
    ).toStrictEqual({
      content: [{ type: 'text', text: 'this filesystem is read-only' }],
      isError: true,
    });
    expect(existsSync(target)).toBe(false);
    const listed = await proxy.client.callTool({ name: 'list_directory', arguments: { path: root } });
    expect(listed['isError']).not.toBe(true);
    await proxy.client.close();
    // The audit shows both calls: the denied write with its reason, and the listing let through.
    await until(() =>
      existsSync(auditFile) && readFileSync(auditFile, 'utf8').includes('SessionEnd') ? true : undefined,
    );
    const records = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const toolOf = new Map(
      records
        .filter((record) => record['record'] === 'event_received')
        .map((record) => [record['seq'], record['tool_name']]),
    );
    const decisions = records
      .filter((record) => record['record'] === 'decision' && record['hook_event_name'] === 'PreToolUse')
      .map((record) => [toolOf.get(record['seq']), record['decision'], record['reason']]);
    expect(decisions).toStrictEqual([
      ['mcp__filesystem__write_file', 'block', 'this filesystem is read-only'],
      ['mcp__filesystem__list_directory', 'none', undefined],
    ]);
  });
});

describe('mcp-proxy when things fail', () => {
  it('refuses to start on an invalid configuration: status 2, nothing on stdout', async () => {
    const config = box.write('broken.toml', '[[hooks.PreToolUse]]\nname = 1\n');
    const run = await cli([
      'mcp-proxy',
      '--config',
      config,
      '--home',
      box.dir,
      '--name',
      'everything',
      '--',
      process.execPath,
      EVERYTHING,
    ]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('broken.toml');
  });

  it('an upstream that crashes, hangs or writes garbage gives the client a protocol error, never a hang', async () => {
    const { flags } = withConfig();
    for (const [mode, message] of [
      [
        'crash',
        /-32000: cosh-hooks mcp-proxy: the upstream server `[^`]*odd-server\.mjs crash` exited with status 3/,
      ],
      [
        'garbage',
        /-32000: cosh-hooks mcp-proxy: the upstream server `[^`]*odd-server\.mjs garbage` wrote a line that is not a JSON-RPC message/,
      ],
      ['hang', /-32001: the upstream server did not answer within 2000 ms/],
    ] as const) {
      const proxy = await connect([
        ...flags,
        '--allow-unguarded',
        '--request-timeout',
        '2000',
        '--name',
        'odd',
        '--',
        process.execPath,
        ODD,
        mode,
      ]);
      await expect(proxy.client.callTool({ name: 'act', arguments: {} })).rejects.toThrow(message);
      await proxy.client.close();
    }
  });

  it(
    'passes a 50 MB result through as one frame; hook stderr never reaches stdout',
    { timeout: 120_000 },
    async () => {
      const size = 50 * 1024 * 1024;
      const { flags } = withConfig(
        hookTable('PreToolUse', { name: 'noisy', command: 'echo more noise >&2; exit 1' }),
      );
      // Raw pipes: the SDK's own stdio client stops at 10 MB a message.
      const proxy = start([
        'mcp-proxy',
        ...flags,
        '--name',
        'odd',
        '--',
        process.execPath,
        ODD,
        'big',
        String(size),
      ]);
      const done = finished(proxy);
      proxy.stdin.write(
        jsonl(
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'raw', version: '1' },
            },
          },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'act', arguments: {} } },
        ),
      );
      let seen = 0;
      proxy.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > size) proxy.stdin.end();
      });
      const run = await done;
      const frames = jsonLines(run.stdout);
      expect(frames.map((frame) => frame['id'])).toStrictEqual([1, 'big']);
      expect(textOf(frames[1]?.['result']).length).toBe(size);
      expect(run.stderr).toContain('hook noisy (PreToolUse): exited with code 1: more noise');
      expect(run.code).toBe(0);
    },
  );
});

/** A port free now (the system's pick), for a server started by a test. */
const freePort = async (): Promise<number> => {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

const httpClient = async (url: string, elicit = false): Promise<Client> => {
  const { StreamableHTTPClientTransport } =
    await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client(
    { name: 'http-client', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
};

/** A raw HTTP POST with the headers given (a forged Host or Origin), its status. */
const rawPost = async (url: string, headers: Record<string, string>): Promise<number> => {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
  });
};

describe('mcp-proxy on Streamable HTTP', () => {
  it('--listen: one session and one upstream per client, hooks on each; forged Host and Origin refused', async () => {
    const { flags, log } = withConfig(
      logHook('PreToolUse'),
      hookTable('PreToolUse', {
        name: 'no-sums',
        matcher: '^mcp__everything__get-sum$',
        command: prints({ decision: 'block', reason: 'no sums over HTTP' }),
      }),
    );
    const proxy = start(['mcp-proxy', ...flags, '--listen', '127.0.0.1:0', ...everything]);
    const done = finished(proxy);
    let stderr = '';
    proxy.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await until(() => /listening on (\S+)/.exec(stderr)?.[1]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const [a, b] = await Promise.all([httpClient(url), httpClient(url)]);
    const results = await Promise.all([
      a.callTool({ name: 'echo', arguments: { message: 'a' } }),
      b.callTool({ name: 'echo', arguments: { message: 'b' } }),
    ]);
    expect(results.map(textOf)).toStrictEqual(['Echo: a', 'Echo: b']);
    expect(await a.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).toStrictEqual({
      content: [{ type: 'text', text: 'no sums over HTTP' }],
      isError: true,
    });
    const sessions = events(log).map((event) => event['session_id']);
    expect(new Set(sessions).size).toBe(2);

    const port = new URL(url).port;
    expect(await rawPost(url, { host: `evil.example:${port}` })).toBe(403);
    expect(await rawPost(url, { origin: 'http://evil.example' })).toBe(403);
    expect(await rawPost(url, { origin: `http://localhost:${port}` })).toBe(200);

    await Promise.all([a.close(), b.close()]);
    proxy.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(143);
    expect(run.stdout).toBe('');
  });

  it('--upstream URL: the hooks in front of a server on Streamable HTTP', async () => {
    const port = await freePort();
    const { spawn } = await import('node:child_process');
    const server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let serverLog = '';
    server.stderr.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    try {
      await until(() => (serverLog.includes('listening') ? true : undefined), 20_000);
      const { flags } = withConfig(
        hookTable('PreToolUse', {
          name: 'patch',
          matcher: '^mcp__remote__echo$',
          command: prints({ hookSpecificOutput: { tool_input: { message: 'patched remotely' } } }),
        }),
      );
      const proxy = await connect([
        ...flags,
        '--name',
        'remote',
        '--upstream',
        `http://127.0.0.1:${port}/mcp`,
      ]);
      expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'x' } }))).toBe(
        'Echo: patched remotely',
      );
      expect((await proxy.client.listTools()).tools.map((tool) => tool.name)).toContain('get-sum');
      await proxy.client.close();
    } finally {
      server.kill();
    }
  });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const auditRecords = (file: string): Record<string, unknown>[] =>
  existsSync(file) ? jsonLines(readFileSync(file, 'utf8')) : [];

describe('mcp-proxy never forwards unguarded without a word', () => {
  it('--name is required: status 2, saying why, nothing on stdout, no upstream started', async () => {
    const { flags } = withConfig(logHook('PreToolUse'));
    const run = await cli(['mcp-proxy', ...flags, '--', process.execPath, EVERYTHING, 'stdio']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--name is required');
    expect(run.stderr).toContain('mcp__<NAME>__<tool>');
  });

  it('no PreToolUse hook (an observer is no guard): refuses to start, naming --allow-unguarded; with it, starts and says so', async () => {
    const { flags } = withConfig(
      logHook('PostToolUse'),
      hookTable('PreToolUse', { name: 'watcher', command: 'cat > /dev/null', observe: true }),
    );
    const refused = await cli(['mcp-proxy', ...flags, ...everything]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('no PreToolUse hook');
    expect(refused.stderr).toContain('--allow-unguarded');

    const proxy = await connect([...flags, '--allow-unguarded', ...everything]);
    expect(textOf(await proxy.client.callTool({ name: 'echo', arguments: { message: 'open' } }))).toBe(
      'Echo: open',
    );
    await proxy.client.close();
    expect(proxy.stderr()).toContain('no PreToolUse hook');
  });

  it('after the first tools/list, names on stderr and in the audit the tools no PreToolUse matcher selects, once', async () => {
    const { flags } = withConfig(
      hookTable('PreToolUse', {
        name: 'some-guard',
        matcher: '^mcp__everything__(echo|get-sum)$',
        command: 'exit 0',
      }),
    );
    const auditFile = box.path('unguarded-audit.jsonl');
    const proxy = await connect([...flags, '--audit', auditFile, ...everything]);
    const names = (await proxy.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('echo');
    const expected = names
      .filter((name) => name !== 'echo' && name !== 'get-sum')
      .map((name) => `mcp__everything__${name}`)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const line = await until(() => /unguarded tools[^\n]*/.exec(proxy.stderr())?.[0]);
    expect(line.slice(line.lastIndexOf(': ') + 2).split(', ')).toStrictEqual(expected);
    await proxy.client.listTools();
    await proxy.client.close();
    expect(proxy.stderr().match(/unguarded tools/g)).toHaveLength(1);
    await until(() => (readFileSync(auditFile, 'utf8').includes('SessionEnd') ? true : undefined));
    const notes = auditRecords(auditFile).filter(
      (record) => record['record'] === 'config' && record['subject'] === 'unguarded_tools',
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]?.['details']).toMatchObject({ server: 'everything', tools: expected });
  });

  it('a tools/call sent as a notification (no id) is never forwarded: said on stderr and in the audit', async () => {
    // The odd server exits on any tools/call: had the notification reached it, the proxy would end with 1.
    const { flags, log } = withConfig(logHook('PreToolUse'));
    const auditFile = box.path('notification-audit.jsonl');
    const proxy = start([
      'mcp-proxy',
      ...flags,
      '--audit',
      auditFile,
      '--name',
      'odd',
      '--',
      process.execPath,
      ODD,
      'crash',
    ]);
    const done = finished(proxy);
    let out = '';
    proxy.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (jsonLines(out).some((frame) => frame['id'] === 2)) proxy.stdin.end();
    });
    proxy.stdin.write(
      jsonl(
        INITIALIZE,
        INITIALIZED,
        { jsonrpc: '2.0', method: 'tools/call', params: { name: 'act', arguments: { x: 1 } } },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ),
    );
    const run = await done;
    expect(jsonLines(run.stdout).map((frame) => frame['id'])).toStrictEqual([1, 2]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/tools\/call of act sent as a notification \(no id\): not forwarded/);
    expect(events(log)).toStrictEqual([]);
    const notes = auditRecords(auditFile).filter(
      (record) => record['record'] === 'config' && record['subject'] === 'tools_call_notification',
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]?.['details']).toMatchObject({ server: 'odd', tool: 'act' });
  });

  it('an upstream command that cannot start: named with the cause in the -32000 error of the request and on stderr; exit 1', async () => {
    const { flags } = withConfig(logHook('PreToolUse'));
    const missing = box.path('no-such-server');
    // The SDK client, as an MCP client starts it: its initialize gets the reason.
    await expect(connect([...flags, '--name', 'gone', '--', missing, '--port', '1'])).rejects.toThrow(
      new RegExp(`-32000: .*${missing} --port 1.*ENOENT`),
    );
    // A client that writes only after the failure is answered too, and the proxy ends with 1.
    const proxy = start(['mcp-proxy', ...flags, '--name', 'gone', '--', missing]);
    const done = finished(proxy);
    let stderr = '';
    proxy.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await until(() => (stderr.includes('ENOENT') ? true : undefined));
    proxy.stdin.write(jsonl(INITIALIZE));
    const run = await done;
    const [answer] = jsonLines(run.stdout);
    expect(answer?.['error']).toMatchObject({ code: -32000 });
    expect(JSON.stringify(answer)).toContain(missing);
    expect(run.stderr).toContain(missing);
    expect(run.code).toBe(1);
  });

  it('an upstream URL that cannot be reached: named with the cause in the -32000 error and on stderr; exit 1', async () => {
    const { flags } = withConfig(logHook('PreToolUse'));
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const proxy = start(['mcp-proxy', ...flags, '--name', 'remote', '--upstream', url]);
    const done = finished(proxy);
    proxy.stdin.write(jsonl(INITIALIZE));
    const run = await done;
    const [answer] = jsonLines(run.stdout);
    expect(answer?.['error']).toMatchObject({ code: -32000 });
    const message = (answer?.['error'] as { message: string }).message;
    expect(message).toContain(url);
    expect(message).toContain('ECONNREFUSED');
    expect(run.stderr).toContain(url);
    expect(run.stderr).toContain('ECONNREFUSED');
    expect(run.code).toBe(1);
  });

  it('--listen: a session idle past --session-idle is closed with its upstream; its id is then unknown', async () => {
    const { flags, log } = withConfig(logHook('PreToolUse'), logHook('SessionEnd'));
    const proxy = start([
      'mcp-proxy',
      ...flags,
      '--listen',
      '127.0.0.1:0',
      '--session-idle',
      '500',
      '--name',
      'odd',
      '--',
      process.execPath,
      ODD,
      'pid',
    ]);
    const done = finished(proxy);
    let stderr = '';
    proxy.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await until(() => /listening on (\S+)/.exec(stderr)?.[1]);
    // The client goes away without a DELETE: it just stops sending.
    const client = await httpClient(url);
    const pid = Number(textOf(await client.callTool({ name: 'act', arguments: {} })));
    expect(pid).toBeGreaterThan(0);
    await until(() => (alive(pid) ? undefined : true));
    const ended = await until(() => events(log).find((event) => event['hook_event_name'] === 'SessionEnd'));
    expect(ended?.['reason']).toMatch(/idle for 500 ms/);
    await expect(client.callTool({ name: 'act', arguments: {} })).rejects.toThrow(/404|not found/i);
    proxy.kill('SIGTERM');
    expect((await done).code).toBe(143);
  });
});
