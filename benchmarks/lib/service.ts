// Starting and stopping what the benchmarks measure: `agent serve` (from a private build or from
// source through tsx) with the event-loop preload, and the bare node:http baseline. Everything
// listens on 127.0.0.1 and is stopped by PID; what it left behind is reported.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { descendants, isAlive, killPids, rssMB, waitUntilDead } from './procs.ts';
import { sleep } from './stats.ts';
import { newestWorkerSource } from '../../lib/shared/worker-entry.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BENCH = path.join(ROOT, 'benchmarks');
export const FIXTURES = {
  healthy: path.join(BENCH, 'fixtures/healthy.mjs'),
  crasher: path.join(BENCH, 'fixtures/crasher.mjs'),
  flooder: path.join(BENCH, 'fixtures/flooder.mjs'),
};
const PRELOAD = pathToFileURL(path.join(BENCH, 'eld-preload.mjs')).href;
const THREADS_PRELOAD = pathToFileURL(path.join(BENCH, 'threads-preload.mjs')).href;
const TRACE_PRELOAD = pathToFileURL(path.join(BENCH, 'trace-preload.mjs')).href;
const BUILD_DIR = path.join(BENCH, '.tmp/build');

/** `dist`: a private `tsc` build (what ships); `source`: bin/agent.ts through tsx (what tests run). */
export type Entry = 'dist' | 'source';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * The worker bundles (build/workers/*.mjs, `npm run bundle`, part of `npm run build`), made again
 * when a source in lib/ or workers/ is newer: the service uses them only when they are fresh.
 */
export function bundleWorkers(log: (line: string) => void = () => {}): void {
  const sources = newestWorkerSource();
  // The names scripts/bundle-workers.mjs writes. A name it no longer writes (backend.mjs) made this
  // rebuild before every service start, rewriting the bundle while running services' workers read it.
  const bundles = ['backend.cjs', 'hub.mjs'].map((name) => path.join(ROOT, 'build/workers', name));
  if (bundles.every((file) => fs.existsSync(file) && fs.statSync(file).mtimeMs >= sources)) return;
  log('bundling the worker entries (scripts/bundle-workers.mjs) ...');
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bundle-workers.mjs')], { cwd: ROOT, stdio: 'pipe', timeout: 120_000 });
}

/**
 * Compiles lib/, workers/ and bin/ into benchmarks/.tmp/build with the project's build config,
 * unless that build is newer than every source file. Type errors do not stop the emit. The
 * worker bundles are refreshed too (what `npm run build` ships).
 */
export function buildDist(log: (line: string) => void = () => {}): string {
  bundleWorkers(log);
  const entry = path.join(BUILD_DIR, 'bin/agent.js');
  const stamp = path.join(BUILD_DIR, '.stamp');
  const sources = Math.max(...['lib', 'workers', 'bin'].map((d) => newestMtime(path.join(ROOT, d))), fs.statSync(path.join(ROOT, 'package.json')).mtimeMs);
  if (fs.existsSync(stamp) && fs.existsSync(entry) && fs.statSync(stamp).mtimeMs > sources) return entry;
  log(`building ${path.relative(ROOT, BUILD_DIR)} with tsc ...`);
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD_DIR], { cwd: ROOT, stdio: 'pipe', timeout: 120_000 });
  } catch (error) {
    if (!fs.existsSync(entry)) throw new Error(`build failed: ${(error as { stdout?: Buffer }).stdout?.toString() ?? error}`);
    log('tsc reported type errors; using its output anyway');
  }
  fs.writeFileSync(stamp, new Date().toISOString());
  return entry;
}

export type ServerEntry = { command: string; args: string[]; env?: Record<string, string>; restartOnExit?: boolean; maxRestarts?: number; restartDelay?: number; nice?: number };

/** What the service logged so far: bytes of every line; backends' stderr lines logged, and the counts of their repeated and suppressed summaries. */
export type LogTotals = { bytes: number; stderrLines: number; repeated: number; suppressed: number; summaries: Summary[] };
/** One `repeated` or `suppressed` log line, with when the harness read it (performance.now(), ms). */
export type Summary = { atMs: number; kind: 'repeated' | 'suppressed'; count: number };

export type Agent = {
  pid: number;
  port: number;
  base: string;
  spawnedAt: number;
  /** Its configuration file, and the node arguments that run the same build's CLI (`agent mcp status`). */
  configFile: string;
  cli: string[];
  /** Log lines seen so far, and how many of them were a backend's stderr. */
  logLines: () => number;
  /** The service's last 20 log lines (for an error that needs them). */
  logTail: () => string[];
  stderrLogLines: () => number;
  logTotals: () => LogTotals;
  /** "backend connected" log lines per backend name so far (first connections and restarts). */
  connects: () => Record<string, number>;
  /** Resets the main thread's event-loop delay histogram and returns what it held (ms). */
  eld: () => Promise<EldSnapshot>;
  rss: () => number;
  /** Its worker threads started so far (a restarted hub appears twice). */
  threads: () => ThreadInfo[];
  stop: () => Promise<StopReport>;
};

export type EldSnapshot = { samples: number; p50Ms: number; p99Ms: number; maxMs: number; meanMs: number };
export type StopReport = { exitMs: number; code: number | null; signal: string | null; leftovers: number[] };

let seq = 0;

// Every process started here that has not been stopped yet: if the harness itself dies (an
// uncaught error, Ctrl-C), they are sent SIGTERM by PID on the way out.
const live = new Set<number>();
process.once('exit', () => killPids([...live], 'SIGTERM'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killPids([...live], 'SIGTERM');
    process.exit(130);
  });
}
export function track(child: ChildProcess): void {
  if (!child.pid) return;
  const pid = child.pid;
  live.add(pid);
  child.once('exit', () => live.delete(pid));
}

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ...extra };
}

/** Kills `child` by PID with SIGTERM, waits for its exit, then checks `tracked` descendants are gone. */
async function stopChild(child: ChildProcess, exited: Promise<{ code: number | null; signal: string | null }>, tracked: number[], graceMs: number): Promise<StopReport> {
  const t0 = performance.now();
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const result = await Promise.race([exited, sleep(graceMs).then(() => null)]);
  let final = result;
  if (!final) {
    killPids([child.pid!], 'SIGKILL');
    final = await exited;
  }
  const exitMs = performance.now() - t0;
  const leftovers = await waitUntilDead(tracked, 3_000);
  killPids(leftovers, 'SIGKILL');
  return { exitMs, code: final.code, signal: final.signal, leftovers };
}

export type AgentOptions = {
  entry: Entry;
  servers: Record<string, ServerEntry>;
  /** Marker put on every command line this run starts, for the final sweep. */
  marker: string;
  tmp: string;
  /** Write V8 CPU profiles (main thread and workers) of the service into this directory. */
  cpuProfDir?: string;
  /** More `agent serve` flags (`--mcp-workers 2`, `--worker-nice 0`). */
  serveArgs?: string[];
  /** Load benchmarks/trace-preload.mjs, writing hop timestamps of traced calls into this directory. */
  traceDir?: string;
};

/** A worker thread of the service, as benchmarks/threads-preload.mjs reported it. */
export type ThreadInfo = { tid: number; role: 'hub' | 'backend' | 'other'; name: string };

export async function startAgent(options: AgentOptions): Promise<Agent> {
  const dir = fs.mkdtempSync(path.join(options.tmp, `agent-${++seq}-`));
  const configFile = path.join(dir, 'mcp.json');
  fs.writeFileSync(configFile, JSON.stringify({ mcpServers: options.servers }, null, 2));
  const eldFile = path.join(dir, 'eld.ndjson');
  const threadsFile = path.join(dir, 'threads.ndjson');
  const serveArgs = ['serve', '--port', '0', '--host', '127.0.0.1', '--config', configFile, '--health-info-level', 'full', '--health-rate-limit', '0', '--no-reload', ...(options.serveArgs ?? [])];
  // BENCH_PERF=1: JIT code named for `perf record` (benchmarks/README.md).
  const prof = [...(options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : []), ...(process.env.BENCH_PERF ? ['--perf-basic-prof'] : [])];
  const preloads = ['--import', PRELOAD, '--import', THREADS_PRELOAD, ...(options.traceDir ? ['--import', TRACE_PRELOAD] : [])];
  const args =
    options.entry === 'dist'
      ? [...prof, ...preloads, buildDist(), ...serveArgs]
      : [...prof, '--import', 'tsx', ...preloads, path.join(ROOT, 'bin/agent.ts'), ...serveArgs];
  const spawnedAt = performance.now();
  const env = cleanEnv({ BENCH_ELD_FILE: eldFile, BENCH_THREADS_FILE: threadsFile, ...(options.traceDir ? { BENCH_TRACE_DIR: options.traceDir } : {}) });
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  track(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let lines = 0;
  let stderrLines = 0;
  const totals: LogTotals = { bytes: 0, stderrLines: 0, repeated: 0, suppressed: 0, summaries: [] };
  const connects: Record<string, number> = {};
  let port = 0;
  const tail: string[] = [];
  let buffered = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines++;
      totals.bytes += Buffer.byteLength(line) + 1;
      if (line.includes('"stream":"stderr"')) {
        stderrLines++;
        const summary = /"(repeated|suppressed)":(\d+)/.exec(line);
        if (!summary) totals.stderrLines++;
        else {
          const kind = summary[1] as Summary['kind'];
          totals[kind] += Number(summary[2]);
          totals.summaries.push({ atMs: performance.now(), kind, count: Number(summary[2]) });
        }
      }
      if (line.includes('"msg":"backend connected"')) {
        const name = /"backend":"([^"]+)"/.exec(line)?.[1] ?? '?';
        connects[name] = (connects[name] ?? 0) + 1;
      }
      if (!port) {
        const m = /"msg":"listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(line);
        if (m) port = Number(m[1]);
      }
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  });
  const deadline = Date.now() + 30_000;
  while (!port) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      killPids([child.pid!]);
      throw new Error(`agent serve did not start (${child.exitCode ?? child.signalCode ?? 'timeout'}):\n${tail.join('\n')}`);
    }
    await sleep(10);
  }
  const pid = child.pid!;
  let eldSeen = 0;
  return {
    pid,
    port,
    base: `http://127.0.0.1:${port}`,
    spawnedAt,
    configFile,
    cli: options.entry === 'dist' ? [buildDist()] : ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts')],
    logLines: () => lines,
    logTail: () => [...tail],
    stderrLogLines: () => stderrLines,
    logTotals: () => ({ ...totals, summaries: [...totals.summaries] }),
    connects: () => ({ ...connects }),
    rss: () => rssMB(pid),
    threads: () =>
      (fs.existsSync(threadsFile) ? fs.readFileSync(threadsFile, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ThreadInfo),
    async eld() {
      const want = eldSeen + 1;
      process.kill(pid, 'SIGUSR2');
      const until = Date.now() + 5_000;
      for (;;) {
        const text = fs.existsSync(eldFile) ? fs.readFileSync(eldFile, 'utf8') : '';
        const all = text.split('\n').filter(Boolean);
        if (all.length >= want) {
          eldSeen = all.length;
          const { samples, p50Ms, p99Ms, maxMs, meanMs } = JSON.parse(all[all.length - 1]!) as EldSnapshot;
          return { samples, p50Ms, p99Ms, maxMs, meanMs };
        }
        if (Date.now() > until) throw new Error('no event-loop delay report from the service within 5 s');
        await sleep(5);
      }
    },
    async stop() {
      const tracked = descendants(pid);
      const report = await stopChild(child, exited, tracked, 15_000);
      fs.rmSync(dir, { recursive: true, force: true });
      return report;
    },
  };
}

export type Bare = {
  pid: number;
  port: number;
  base: string;
  rss: () => number;
  eld: () => Promise<EldSnapshot>;
  /** bare-churn only: crasher restarts and flooder stderr bytes read so far. */
  churnStats: () => Promise<ChurnStats>;
  stop: () => Promise<StopReport>;
};

/** What bare-churn.mjs spawns beside its HTTP server (see that file). */
export type BareChurnConfig = { healthy: number; crashers: number; flooders: number; floodMBps: number; restartDelay: number; nice: number };
export type ChurnStats = { restarts: number; stderrBytes: number; elapsedMs: number };

/**
 * The bare baseline in its own process, answering `body`, with the same event-loop preload; with
 * `churn`, bare-churn.mjs, which also runs the churn mix; with `thinGateway` (a fixture),
 * thin-gateway.mjs in front of that fixture instead (`body` unused).
 */
export async function startBare(body: string, options: { marker: string; tmp: string; churn?: BareChurnConfig; thinGateway?: string }): Promise<Bare> {
  const dir = fs.mkdtempSync(path.join(options.tmp, `bare-${++seq}-`));
  const bodyFile = path.join(dir, 'body.json');
  fs.writeFileSync(bodyFile, body);
  const eldFile = path.join(dir, 'eld.ndjson');
  const script = options.churn
    ? [path.join(BENCH, 'bare-churn.mjs'), bodyFile, JSON.stringify({ ...options.churn, fixtures: FIXTURES })]
    : options.thinGateway
      ? [path.join(BENCH, 'thin-gateway.mjs'), options.thinGateway]
      : [path.join(BENCH, 'bare-server.mjs'), bodyFile];
  const child = spawn(process.execPath, ['--import', PRELOAD, ...script, options.marker], {
    cwd: ROOT,
    env: cleanEnv({ BENCH_ELD_FILE: eldFile }),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  track(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lines: string[] = [];
  let waiter: (() => void) | null = null;
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    buffered += c;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      waiter?.();
    }
  });
  const nextLine = async (timeoutMs: number, what: string): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (!lines.length) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what}: the bare server exited`);
      if (Date.now() > deadline) throw new Error(`${what}: no answer within ${timeoutMs} ms`);
      await Promise.race([new Promise<void>((r) => (waiter = r)), sleep(100)]);
      waiter = null;
    }
    return lines.shift()!;
  };
  let port: number;
  try {
    port = (JSON.parse(await nextLine(10_000, 'bare server start')) as { port: number }).port;
  } catch (error) {
    killPids([child.pid!, ...descendants(child.pid!)]);
    throw error;
  }
  const pid = child.pid!;
  let eldSeen = 0;
  return {
    pid,
    port,
    base: `http://127.0.0.1:${port}`,
    rss: () => rssMB(pid),
    async eld() {
      process.kill(pid, 'SIGUSR2');
      const until = Date.now() + 5_000;
      for (;;) {
        const all = (fs.existsSync(eldFile) ? fs.readFileSync(eldFile, 'utf8') : '').split('\n').filter(Boolean);
        if (all.length > eldSeen) {
          eldSeen = all.length;
          return JSON.parse(all[all.length - 1]!) as EldSnapshot;
        }
        if (Date.now() > until) throw new Error('no event-loop delay report from the bare server within 5 s');
        await sleep(5);
      }
    },
    async churnStats() {
      if (!options.churn) throw new Error('churnStats: not a bare-churn server');
      child.stdin!.write('stats\n');
      return JSON.parse(await nextLine(5_000, 'bare-churn stats')) as ChurnStats;
    },
    async stop() {
      const report = await stopChild(child, exited, descendants(pid), 5_000);
      fs.rmSync(dir, { recursive: true, force: true });
      return report;
    },
  };
}

/** Runs `node <script> ...args` to completion (bounded), returning its first stdout line as JSON and the time from spawn until that line. */
/** `nice`: the script and everything it starts run at that nice value (through nice(1), so no thread of it starts at 0). */
export async function runScript<T>(script: string, args: string[], timeoutMs: number, nice = 0): Promise<{ result: T; firstLineMs: number; pid: number; leftovers: number[] }> {
  const spawnedAt = performance.now();
  const command = nice > 0 ? ['nice', '-n', String(nice), process.execPath] : [process.execPath];
  const child = spawn(command[0]!, [...command.slice(1), script, ...args], { cwd: ROOT, env: cleanEnv({}), stdio: ['ignore', 'pipe', 'inherit'] });
  track(child);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let firstLineMs = Number.NaN;
  let out = '';
  let tracked: number[] = [];
  const line = new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n') && Number.isNaN(firstLineMs)) {
        firstLineMs = performance.now() - spawnedAt;
        tracked = descendants(child.pid!);
        resolve(out.slice(0, out.indexOf('\n')));
      }
    });
    void exited.then(() => reject(new Error(`${path.basename(script)} exited without a result`)));
  });
  const timer = setTimeout(() => killPids([child.pid!, ...descendants(child.pid!)]), timeoutMs);
  try {
    const first = await line;
    const done = await Promise.race([exited, sleep(10_000).then(() => null)]);
    if (!done) killPids([child.pid!]);
    const leftovers = await waitUntilDead(tracked, 3_000);
    killPids(leftovers);
    return { result: JSON.parse(first) as T, firstLineMs, pid: child.pid!, leftovers };
  } finally {
    clearTimeout(timer);
  }
}

/** A benchmark fixture as a server entry: `node <fixture> <marker>`, named by FIXTURE_NAME. */
export function fixtureServer(fixture: string, name: string, marker: string, extra: Partial<ServerEntry> = {}, env: Record<string, string> = {}): ServerEntry {
  return { command: process.execPath, args: [fixture, marker], env: { FIXTURE_NAME: name, ...env }, ...extra };
}

type HealthBody = { servers?: { total?: number; details?: { name: string; healthy: boolean }[] }; configuration?: { loaded?: boolean } };

/** ms from the service's spawn until /health reports the configuration loaded and every backend in `names` healthy. */
export async function waitHealthy(agent: Agent, names: string[], timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer from /health';
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`${agent.base}/health`);
      const body = (await res.json()) as HealthBody;
      const healthy = new Set((body.servers?.details ?? []).filter((d) => d.healthy).map((d) => d.name));
      if (body.configuration?.loaded && names.every((n) => healthy.has(n))) return performance.now() - agent.spawnedAt;
      last = `last /health: ${JSON.stringify(body).slice(0, 2000)}`;
    } catch (error) {
      last = `last /health attempt: ${(error as Error).message}`;
    }
    await sleep(25);
  }
  const missing = names.join(', ');
  throw new Error(`backends not all healthy within ${timeoutMs} ms: ${missing}\n${last}\nthe service's last log lines:\n${agent.logTail().join('\n')}`);
}

/** A scratch directory for one benchmark process; it goes when the process exits. */
export function tmpRoot(marker: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agent-bench-${marker}-`));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export { isAlive };
