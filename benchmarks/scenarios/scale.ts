// `scale` and `large` (issue 14): what N healthy backends cost. The service is probed at a fixed
// rate on /health from the moment it listens until every backend is healthy (the start-up), and
// again for as long once they are all up; then `agent mcp status` is timed, and the plain script
// spawns and initializes the same N fixtures in the same run (the yardstick for the ready time).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioContext } from '../lib/context.ts';
import { type FixedRate, fixedRate, fixedRateUntil } from '../lib/load.ts';
import { healthyServers, settledRss, steadyRss } from '../lib/phases.ts';
import { type Agent, BENCH, cleanEnv, type Entry, FIXTURES, ROOT, runScript, startAgent, type StopReport, waitHealthy } from '../lib/service.ts';
import { latencySummary, sleep } from '../lib/stats.ts';

export type ScaleOptions = {
  backends: number;
  entry: Entry;
  /** Probes per second on /health, during the start-up and after it. */
  rate: number;
  /** Length of the probe after the start-up, s (at least as many probes as the start-up had is better). */
  afterSeconds: number;
  settleMs: number;
  readyTimeoutMs: number;
  /** `agent mcp status` runs timed. */
  statusRuns: number;
  /** RSS read again this long after every backend was healthy, once the service has settled, s. */
  settledSeconds: number;
  serveArgs?: string[];
  /** The backends' `protocolVersion` (absent: the service's default, `auto`); the plain script negotiates the same. */
  protocol?: 'auto' | 'legacy' | '2026-07-28';
};

export type ScaleRun = {
  backends: number;
  serveArgs: string[];
  /** 1-minute load average when the scenario started. */
  load: number;
  readyMs: number;
  /** RSS `settleMs` after every backend was healthy, and `settledSeconds` after (benchmarks/lib/phases.ts, settledRss). */
  rssMB: number;
  rssSettledMB: number;
  /** /health from listening until every backend was healthy, and once they were. */
  startup: FixedRate;
  after: FixedRate;
  /** `agent mcp status` wall time (a fresh CLI process each time), ms. */
  status: { p50: number; max: number };
  /** What the service process holds once they are up (the next limits): threads, open file descriptors, memory mappings (vm.max_map_count). */
  limits: { threads: number; fds: number; maps: number };
  /** /proc/<pid>/smaps_rollup of the service then, MB: anonymous memory (heaps, stacks, malloc) and file-backed (code of node and its libraries). */
  smaps: { rssMB: number; anonymousMB: number; fileMB: number; privateDirtyMB: number };
  /** The plain script stopped after a legacy initialize (the yardstick of the ready target), and with the service's handshake (plain-spawn.mjs). */
  plain: { readyMs: number; connectMs: number; count: number };
  plainService: { readyMs: number; connectMs: number; count: number };
};

// Threads, file descriptors and memory mappings of a process, from /proc.
function processLimits(pid: number): { threads: number; fds: number; maps: number } {
  const threads = Number(/^Threads:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').filter(Boolean).length;
  return { threads, fds, maps };
}

function smapsRollup(pid: number): ScaleRun['smaps'] {
  const kB: Record<string, number> = {};
  for (const line of fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) kB[m[1]!] = Number(m[2]);
  }
  const mb = (k: string) => (kB[k] ?? 0) / 1024;
  return { rssMB: mb('Rss'), anonymousMB: mb('Anonymous'), fileMB: mb('Rss') - mb('Anonymous'), privateDirtyMB: mb('Private_Dirty') };
}

function timeStatus(cli: string[], configFile: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...cli, 'mcp', 'status', '--config', configFile], { cwd: ROOT, env: cleanEnv({}), timeout: 30_000 }, (error) =>
      error ? reject(error) : resolve(performance.now() - t0),
    );
  });
}

/** `more`: further phases on the same service once the figures above are taken (the suite's saturation phases). */
export async function scale<T extends object = object>(ctx: ScenarioContext, o: ScaleOptions, what: string, stops: StopReport[], more?: (agent: Agent) => Promise<T>): Promise<ScaleRun & Partial<T>> {
  ctx.log(what);
  const load = os.loadavg()[0]!;
  const protocol = o.protocol ?? 'auto';
  const servers = o.protocol ? Object.fromEntries(Object.entries(healthyServers(o.backends, ctx.marker)).map(([n, e]) => [n, { ...e, protocolVersion: o.protocol }])) : healthyServers(o.backends, ctx.marker);
  const agent = await startAgent({ entry: o.entry, servers, marker: ctx.marker, tmp: ctx.tmp, ...(o.serveArgs ? { serveArgs: o.serveArgs } : {}) });
  let run: Omit<ScaleRun, 'plain'> & Partial<T>;
  try {
    const ready = waitHealthy(agent, Object.keys(servers), o.readyTimeoutMs);
    const startup = await fixedRateUntil(`${agent.base}/health`, o.rate, ready, o.readyTimeoutMs / 1000);
    const readyMs = await ready;
    const readyAt = performance.now();
    await sleep(o.settleMs);
    const rssMB = await steadyRss(agent.pid);
    const limits = processLimits(agent.pid);
    const smaps = smapsRollup(agent.pid);
    const after = await fixedRate(`${agent.base}/health`, o.rate, o.afterSeconds);
    const times: number[] = [];
    for (let i = 0; i < o.statusRuns; i++) times.push(await timeStatus(agent.cli, agent.configFile));
    const { p50, max } = latencySummary(times);
    const extra: Partial<T> = (await more?.(agent)) ?? {};
    const rssSettledMB = await settledRss(agent.pid, readyAt, o.settledSeconds);
    run = { backends: o.backends, serveArgs: o.serveArgs ?? [], load, readyMs, rssMB, rssSettledMB, startup, after, status: { p50, max }, limits, smaps, ...extra } as typeof run;
  } finally {
    stops.push(await agent.stop());
  }
  const plain = async (handshake: 'service' | 'initialize') => {
    ctx.log(`plain script (${o.backends} backends, ${handshake === 'service' ? `the service's handshake, ${protocol}` : 'initialize only, legacy'})`);
    const args = handshake === 'service' ? ['--handshake', 'service', '--negotiation', protocol] : ['--handshake', 'initialize', '--negotiation', 'legacy'];
    const plainRun = await runScript<{ count: number; connectMs: number }>(path.join(BENCH, 'plain-spawn.mjs'), [...args, String(o.backends), FIXTURES.healthy, ctx.marker], o.readyTimeoutMs);
    if (plainRun.leftovers.length) ctx.log(`  plain script left ${plainRun.leftovers.length} process(es); killed`);
    return { readyMs: plainRun.firstLineMs, connectMs: plainRun.result.connectMs, count: plainRun.result.count };
  };
  return { ...run, plain: await plain('initialize'), plainService: await plain('service') };
}
