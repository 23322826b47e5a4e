import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preToolUse } from './fixtures.js';
import { rawSeries, type Context, type Measured } from './measurement.js';
import { cpuNs } from './procfs.js';
import { formatNumber, type Row } from './report.js';
import { median, summarize } from './stats.js';

/**
 * Measurement 11: the audit outputs of `cosh-hooks run` driven as an agent drives it: one event,
 * wait for its decision, then the next. What is measured is the CPU time of the cosh-hooks process
 * (every thread, libuv's thread pool included: /proc schedstat) over `events` events after
 * `warmup` ones, so start-up is not in it, with `--audit FILE` or `--otlp-endpoint URL` against
 * the same run without either, the three running side by side and taking events in turn. A row's
 * figure is the median over rounds of (audited − plain) per event: what the output adds.
 */

const BIN = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

/** The persistent hook: a Node co-process that parses each event and allows it. */
const LOOP_HOOK = `import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin })) {
  const event = JSON.parse(line);
  const answer = { decision: 'allow', reason: 'checked ' + event.tool_name, cosh_request_id: event.cosh_request_id };
  process.stdout.write(JSON.stringify(answer) + '\\n');
}
`;

type Output = 'plain' | 'file' | 'otlp';
type HookCase = 'none' | 'persistent';

interface Setting {
  readonly dir: string;
  readonly home: string;
  readonly collector: string;
  readonly warmup: number;
  readonly events: number;
}

/** A local OTLP/HTTP collector that accepts every batch and counts the spans in it. */
const startCollector = async (): Promise<{
  readonly url: string;
  readonly spans: () => number;
  readonly server: Server;
}> => {
  let spans = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans: () => spans, server };
};

/** A `cosh-hooks run` child driven one event at a time. */
interface PacedChild {
  /** Sends event `n` and resolves once its decision line is read. */
  readonly send: (n: number) => Promise<void>;
  /** Nanoseconds of CPU the process has used so far. */
  readonly cpu: () => number;
  /** Ends its input; resolves once it exited with 0. */
  readonly close: () => Promise<void>;
}

const startPaced = (setting: Setting, hookCase: HookCase, output: Output): PacedChild => {
  const config = join(setting.dir, `${hookCase}.toml`);
  const auditFile = join(setting.dir, `audit-${hookCase}.jsonl`);
  rmSync(auditFile, { force: true });
  const args = [BIN, 'run', '--config', config, '--home', setting.home, '--workspace', setting.dir];
  if (output === 'file') args.push('--audit', auditFile);
  if (output === 'otlp') args.push('--otlp-endpoint', setting.collector);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...env, HOME: setting.home, NO_COLOR: '1' },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let buffered = '';
  let decided: (() => void) | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.startsWith('{"type":"hook_decision"')) {
        const resolve = decided;
        decided = undefined;
        resolve?.();
      }
    }
  });
  return {
    send: (n) =>
      new Promise<void>((resolve) => {
        decided = resolve;
        child.stdin.write(`${JSON.stringify(preToolUse(setting.dir, n))}\n`);
      }),
    cpu: () => {
      const used = cpuNs(child.pid!);
      if (used === undefined) throw new Error(`paced run (${hookCase}, ${output}) is gone`);
      return used;
    },
    close: async () => {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`paced run (${hookCase}, ${output}) ended with ${code}`);
    },
  };
};

const OUTPUTS = ['plain', 'file', 'otlp'] as const;

/**
 * One round: the three runs side by side, sent the same events in turn (each still one at a time:
 * the next only after its decision), so whatever the machine does meanwhile falls on all three
 * alike. Nanoseconds of CPU per event of each, over the measured events.
 */
const pacedRound = async (setting: Setting, hookCase: HookCase): Promise<Record<Output, number>> => {
  const children = OUTPUTS.map((output) => startPaced(setting, hookCase, output));
  try {
    for (let n = 0; n < setting.warmup; n++) for (const child of children) await child.send(n);
    const before = children.map((child) => child.cpu());
    for (let n = 0; n < setting.events; n++) {
      const order = n % 2 === 0 ? children : [...children].reverse();
      for (const child of order) await child.send(setting.warmup + n);
    }
    const used = children.map((child, i) => (child.cpu() - before[i]!) / setting.events);
    return { plain: used[0]!, file: used[1]!, otlp: used[2]! };
  } finally {
    await Promise.all(children.map((child) => child.close()));
  }
};

const us = (ns: number) => `${formatNumber(ns / 1000)} µs`;

export const measurePacedAudit = async (context: Context): Promise<Measured> => {
  const { dir } = context.fixtures;
  const home = join(dir, 'paced-home');
  mkdirSync(home, { recursive: true });
  const hook = join(dir, 'paced-allow-loop.mjs');
  writeFileSync(hook, LOOP_HOOK);
  chmodSync(hook, 0o755);
  writeFileSync(join(dir, 'none.toml'), '');
  writeFileSync(
    join(dir, 'persistent.toml'),
    `[[hooks.PreToolUse]]\nname = "loop"\ncommand = ${JSON.stringify(`${process.execPath} ${hook}`)}\npersistent = true\n`,
  );
  const collector = await startCollector();
  const counts = context.quick ? { warmup: 0, iterations: 2 } : { warmup: 1, iterations: 5 };
  const setting: Setting = {
    dir,
    home,
    collector: collector.url,
    warmup: context.quick ? 200 : 500,
    events: context.quick ? 1000 : 3000,
  };
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  try {
    for (const hookCase of ['none', 'persistent'] as const) {
      context.log(
        `11 paced run, ${hookCase === 'none' ? 'no hook' : 'a persistent hook'}: ${counts.iterations} rounds of plain / --audit FILE / --otlp-endpoint, ${setting.events} events each`,
      );
      const samples: Record<Output, number[]> = { plain: [], file: [], otlp: [] };
      for (let round = 0; round < counts.warmup + counts.iterations; round++) {
        const used = await pacedRound(setting, hookCase);
        if (round < counts.warmup) continue;
        for (const output of OUTPUTS) samples[output].push(used[output]);
      }
      const spansPerEvent = hookCase === 'none' ? 1 : 2;
      const added = (subject: readonly number[], per: number) =>
        subject.map((value, round) => (value - samples.plain[round]!) / per);
      const fileAdded = added(samples.file, 1);
      const otlpAdded = added(samples.otlp, spansPerEvent);
      const plain = summarize(samples.plain);
      const which = hookCase === 'none' ? 'no hook' : 'one persistent Node hook';
      const [fileId, otlpId] = hookCase === 'none' ? ['13a', '13c'] : ['13b', '13d'];
      rows.push(
        {
          id: fileId,
          what: `paced \`run --audit FILE\`, ${which}: CPU added per event vs the same run without --audit`,
          subject: `${us(summarize(samples.file).median)}/event: +${us(median(fileAdded))}`,
          baseline: `${us(plain.median)}/event`,
          ratio: median(samples.file.map((value, round) => value / samples.plain[round]!)),
          target: { op: '<=', limit: 10, unit: 'µs' },
          checked: median(fileAdded) / 1000,
        },
        {
          id: otlpId,
          what: `paced \`run --otlp-endpoint\` (local collector), ${which}: CPU added per span (${spansPerEvent} per event) vs the same run without`,
          subject: `${us(summarize(samples.otlp).median)}/event: +${us(median(otlpAdded))}/span`,
          baseline: `${us(plain.median)}/event`,
          ratio: median(samples.otlp.map((value, round) => value / samples.plain[round]!)),
          target: { op: '<=', limit: 12, unit: 'µs' },
          checked: median(otlpAdded) / 1000,
        },
      );
      raw[`pacedAudit_${hookCase}_ns`] = {
        plain: rawSeries(samples.plain),
        file: rawSeries(samples.file),
        otlp: rawSeries(samples.otlp),
        fileAddedPerEvent: rawSeries(fileAdded),
        otlpAddedPerSpan: rawSeries(otlpAdded),
      };
    }
    if (collector.spans() === 0)
      throw new Error('the collector received no span: the OTLP rows measured nothing');
  } finally {
    collector.server.close();
  }
  return { rows, raw };
};
