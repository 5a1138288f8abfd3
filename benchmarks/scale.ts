// Targeted start-up and memory runs (issue 14), faster than the whole suite: per round, an empty
// service (the RSS floor), then the `scale` scenario (scenarios/scale.ts) once per start
// concurrency asked for, each followed by the plain script with the same backends.
//
//   node --import tsx benchmarks/scale.ts [--backends 50] [--concurrency 2[,4,...]] [--rounds 1]
//                                          [--rate 200] [--after 5] [--settled 60] [--protocol auto|legacy|2026-07-28]
//                                          [--source] [--no-write] [-- <serve flags>]
//
// `--concurrency` values go to `agent serve --worker-start-concurrency` (0 = no limit; `default`
// = the flag left out). Prints one row per run with the 1-minute load average and writes
// benchmarks/results/<date>-scale.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkArgs } from './lib/args.ts';
import type { ScenarioContext } from './lib/context.ts';
import { killPids, processesWith } from './lib/procs.ts';
import { BENCH, buildDist, type Entry, startAgent, type StopReport, tmpRoot, waitHealthy } from './lib/service.ts';
import { settledRss, steadyRss } from './lib/phases.ts';
import { round, sleep } from './lib/stats.ts';
import { scale, type ScaleRun } from './scenarios/scale.ts';

export type ScaleBenchOptions = {
  backends: number;
  concurrency: (number | 'default')[];
  rounds: number;
  rate: number;
  afterSeconds: number;
  entry: Entry;
  serveArgs: string[];
  settleMs: number;
  readyTimeoutMs: number;
  statusRuns: number;
  /** RSS read again this long after ready, once the service has settled (`--settled`), s. */
  settledSeconds: number;
  /** The backends' protocolVersion (`--protocol`; absent: the service's default). */
  protocol?: 'auto' | 'legacy' | '2026-07-28';
  log: (line: string) => void;
};

export type ScaleRow = ScaleRun & { round: number; concurrency: number | 'default'; emptyRssMB: number; emptySettledRssMB: number };

/** RSS of a service with no backends once its configuration has loaded, and `settledSeconds` later, MB. */
async function emptyRss(o: ScaleBenchOptions, ctx: ScenarioContext, stops: StopReport[]): Promise<{ atReady: number; settled: number }> {
  const agent = await startAgent({ entry: o.entry, servers: {}, marker: ctx.marker, tmp: ctx.tmp, serveArgs: o.serveArgs });
  try {
    await waitHealthy(agent, [], o.readyTimeoutMs);
    const readyAt = performance.now();
    await sleep(Math.max(o.settleMs, 1000));
    const atReady = await steadyRss(agent.pid);
    return { atReady, settled: await settledRss(agent.pid, readyAt, o.settledSeconds) };
  } finally {
    stops.push(await agent.stop());
  }
}

export async function runScaleBench(o: ScaleBenchOptions): Promise<{ rows: ScaleRow[]; stops: StopReport[]; leftovers: { pid: number; cmdline: string }[] }> {
  const marker = `bench-run-${process.pid}-${Date.now().toString(36)}`;
  const tmp = tmpRoot(marker);
  const stops: StopReport[] = [];
  const t0 = performance.now();
  const since = () => `${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s  load ${os.loadavg()[0]!.toFixed(1).padStart(4)}`;
  const ctx: ScenarioContext = {
    marker,
    tmp,
    log: (line) => o.log(`${since()}  ${line}`),
    withAgent: () => Promise.reject(new Error('not used')),
    fixedRate: o.rate,
    connections: 0,
  };
  if (o.entry === 'dist') buildDist(o.log);
  const rows: ScaleRow[] = [];
  let leftovers: { pid: number; cmdline: string }[] = [];
  try {
    for (let r = 1; r <= o.rounds; r++) {
      ctx.log(`round ${r}: empty service`);
      const empty = await emptyRss(o, ctx, stops);
      for (const c of o.concurrency) {
        const serveArgs = [...o.serveArgs, ...(c === 'default' ? [] : ['--worker-start-concurrency', String(c)])];
        const run = await scale(
          ctx,
          { backends: o.backends, ...(o.protocol ? { protocol: o.protocol } : {}), entry: o.entry, rate: o.rate, afterSeconds: o.afterSeconds, settleMs: o.settleMs, readyTimeoutMs: o.readyTimeoutMs, statusRuns: o.statusRuns, settledSeconds: o.settledSeconds, serveArgs },
          `round ${r}: ${o.backends} backends, start concurrency ${c}`,
          stops,
        );
        rows.push({ ...run, round: r, concurrency: c, emptyRssMB: empty.atReady, emptySettledRssMB: empty.settled });
      }
    }
  } finally {
    leftovers = processesWith(marker);
    killPids(leftovers.map((p) => p.pid), 'SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return { rows, stops, leftovers };
}

/** One line per run: what the README's tables quote. */
export function scaleTable(rows: ScaleRow[]): Record<string, unknown>[] {
  return rows.map((r) => ({
    round: r.round,
    conc: r.concurrency,
    load: round(r.load, 1),
    backends: r.backends,
    'ready ms': Math.round(r.readyMs),
    'plain ms': Math.round(r.plain.readyMs),
    '÷ plain': round(r.readyMs / r.plain.readyMs, 2),
    "plain service's handshake ms": Math.round(r.plainService.readyMs),
    '÷ that': round(r.readyMs / r.plainService.readyMs, 2),
    'RSS 0 MB': round(r.emptyRssMB, 1),
    'RSS MB': round(r.rssMB, 1),
    'MB/backend': round((r.rssMB - r.emptyRssMB) / r.backends, 2),
    'settled: RSS 0 / MB/backend': `${round(r.emptySettledRssMB, 1)} / ${round((r.rssSettledMB - r.emptySettledRssMB) / r.backends, 2)}`,
    'start p50/p99/max ms': `${round(r.startup.p50, 1)} / ${round(r.startup.p99, 1)} / ${round(r.startup.max, 1)}`,
    'after p99 ms': round(r.after.p99, 2),
    'p99 ÷': round(r.startup.p99 / r.after.p99, 1),
    'status ms': Math.round(r.status.p50),
    'threads / fds / maps': `${r.limits.threads} / ${r.limits.fds} / ${r.limits.maps}`,
    'anon / file MB': `${round(r.smaps.anonymousMB, 1)} / ${round(r.smaps.fileMB, 1)}`,
  }));
}

function protocolOption(value: string | undefined): { protocol?: ScaleBenchOptions['protocol'] } {
  if (value === undefined) return {};
  if (value === 'auto' || value === 'legacy' || value === '2026-07-28') return { protocol: value };
  process.stderr.write(`--protocol: expected auto, legacy or 2026-07-28, got ${JSON.stringify(value)}\n`);
  process.exit(2);
}

function argValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dash = process.argv.indexOf('--');
  const argv = dash === -1 ? process.argv.slice(2) : process.argv.slice(2, dash);
  const serveArgs = dash === -1 ? [] : process.argv.slice(dash + 1);
  checkArgs(
    {
      usage: 'node --import tsx benchmarks/scale.ts [--backends 50] [--concurrency 2[,4,...]] [--rounds 1] [--rate 200] [--after 5] [--settled 60] [--protocol auto|legacy|2026-07-28] [--source] [--no-write] [-- <serve flags>]',
      flags: ['--source', '--no-write'],
      options: ['--backends', '--concurrency', '--rounds', '--rate', '--after', '--settled', '--protocol'],
    },
    argv,
  );
  const options: ScaleBenchOptions = {
    backends: Number(argValue(argv, '--backends') ?? 50),
    concurrency: (argValue(argv, '--concurrency') ?? 'default').split(',').map((c) => (c === 'default' ? 'default' : Number(c))),
    rounds: Number(argValue(argv, '--rounds') ?? 1),
    rate: Number(argValue(argv, '--rate') ?? 200),
    afterSeconds: Number(argValue(argv, '--after') ?? 5),
    entry: argv.includes('--source') ? 'source' : 'dist',
    serveArgs,
    settleMs: 500,
    // 200 backends on a busy 2-core machine can take minutes.
    readyTimeoutMs: 600_000,
    statusRuns: 3,
    settledSeconds: Number(argValue(argv, '--settled') ?? 60),
    ...protocolOption(argValue(argv, '--protocol')),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const loadStart = os.loadavg();
  const result = await runScaleBench(options);
  console.table(scaleTable(result.rows));
  process.stdout.write(`load average before ${loadStart.map((l) => l.toFixed(2)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  if (result.leftovers.length) process.stdout.write(`leftovers killed: ${result.leftovers.map((p) => p.pid).join(' ')}\n`);
  if (!argv.includes('--no-write')) {
    const dir = path.join(BENCH, 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-scale.json`);
    fs.writeFileSync(file, JSON.stringify({ options: { ...options, log: undefined }, loadAverage: { start: loadStart, end: os.loadavg() }, rows: result.rows, stops: result.stops }, null, 2));
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  }
}
