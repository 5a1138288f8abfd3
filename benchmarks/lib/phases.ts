// Building blocks every scenario uses: a measured phase (event-loop delay, CPU of the process, of
// its main thread, of its hubs and of its children, RSS), probing /health and /health/live at a
// fixed rate together, and the healthy backends' configuration entries.
import { type FixedRate, fixedRate, type RawSaturation, type Saturation, saturateRaw, summarizeSaturation } from './load.ts';
import { childrenCpuMeter, cpuMeter, machineMeter, rssMB, threadCpuMeter } from './procs.ts';
import { type Agent, buildDist, type EldSnapshot, type Entry, FIXTURES, fixtureServer, type ServerEntry, startAgent, type ThreadInfo, tmpRoot, waitHealthy } from './service.ts';
import { mean, sleep } from './stats.ts';

export type PhaseCost = {
  eld: EldSnapshot;
  /** The measured process (all its threads), % of one core. */
  cpuPct: number;
  /** Its main thread alone, % of one core. */
  mainCpuPct: number;
  /** Each hub thread of a service (none for other processes), % of one core. */
  hubCpuPct: number[];
  /** A service's backend worker threads together, % of one core. */
  backendWorkersCpuPct: number;
  /** Its descendants (the backends), % of one core. */
  childrenCpuPct: number;
  /** The whole machine, every process, % of all cores. */
  machineBusyPct: number;
  rssStartMB: number;
  rssEndMB: number;
};
export type SaturationPhase = Saturation & PhaseCost;
export type FixedPhase = { health: FixedRate; live: FixedRate } & PhaseCost;

export type Measured = { eld: () => Promise<EldSnapshot>; rss: () => number; pid: number; threads?: () => ThreadInfo[] };

/** Runs `fn` as one phase: resets the event-loop histogram, reads CPU and RSS around it. */
export async function phase<T>(target: Measured, fn: () => Promise<T>): Promise<T & PhaseCost> {
  await target.eld(); // reset
  const rssStartMB = target.rss();
  const cpu = cpuMeter(target.pid);
  const main = threadCpuMeter(target.pid, target.pid);
  const threads = target.threads?.() ?? [];
  const hubs = threads.filter((t) => t.role === 'hub').map((t) => threadCpuMeter(target.pid, t.tid));
  const backendWorkers = threads.filter((t) => t.role === 'backend').map((t) => threadCpuMeter(target.pid, t.tid));
  const children = childrenCpuMeter(target.pid);
  const machine = machineMeter();
  const value = await fn();
  const cpuPct = cpu();
  const mainCpuPct = main();
  // A hub that was replaced during the phase reads NaN: left out.
  const hubCpuPct = hubs.map((meter) => meter()).filter(Number.isFinite);
  const backendWorkersCpuPct = backendWorkers.map((meter) => meter()).filter(Number.isFinite).reduce((a, b) => a + b, 0);
  const childrenCpuPct = children();
  const machineBusyPct = machine();
  const eld = await target.eld();
  return { ...value, eld, cpuPct, mainCpuPct, hubCpuPct, backendWorkersCpuPct, childrenCpuPct, machineBusyPct, rssStartMB, rssEndMB: target.rss() };
}

/**
 * Two servers saturated in turn, `slices` times each, `seconds` in all for each. This machine's
 * speed swings by a third or more within seconds (benchmarks/README.md, "Sixth pass: what a
 * bare server gets under the same load"): two figures taken minutes apart compare the machine's moods, not the two servers.
 * CPU figures are the slices' mean, the event-loop delay the worst slice's.
 */
export async function saturateInTurns(
  a: { target: Measured; url: string },
  b: { target: Measured; url: string },
  seconds: number,
  connections: number,
  slices: number,
): Promise<[SaturationPhase, SaturationPhase]> {
  const parts: [(RawSaturation & PhaseCost)[], (RawSaturation & PhaseCost)[]] = [[], []];
  for (let i = 0; i < slices; i++) {
    for (const [k, side] of [a, b].entries()) parts[k]!.push(await phase(side.target, () => saturateRaw(side.url, seconds / slices, connections)));
  }
  return [mergeSlices(parts[0]), mergeSlices(parts[1])];
}

function mergeSlices(slices: (RawSaturation & PhaseCost)[]): SaturationPhase {
  const avg = (pick: (p: PhaseCost) => number) => mean(slices.map(pick));
  const eld = slices.map((s) => s.eld);
  return {
    ...summarizeSaturation(slices),
    eld: {
      samples: eld.reduce((n, e) => n + e.samples, 0),
      p50Ms: mean(eld.map((e) => e.p50Ms)),
      p99Ms: Math.max(...eld.map((e) => e.p99Ms)),
      maxMs: Math.max(...eld.map((e) => e.maxMs)),
      meanMs: mean(eld.map((e) => e.meanMs)),
    },
    cpuPct: avg((p) => p.cpuPct),
    mainCpuPct: avg((p) => p.mainCpuPct),
    hubCpuPct: slices[0]!.hubCpuPct.map((_, i) => avg((p) => p.hubCpuPct[i] ?? Number.NaN)),
    backendWorkersCpuPct: avg((p) => p.backendWorkersCpuPct),
    childrenCpuPct: avg((p) => p.childrenCpuPct),
    machineBusyPct: avg((p) => p.machineBusyPct),
    rssStartMB: slices[0]!.rssStartMB,
    rssEndMB: slices[slices.length - 1]!.rssEndMB,
  };
}

/** 200/s (or `rate`) on /health and as many on /health/live, at once. */
export async function fixedBoth(healthUrl: string, liveUrl: string, rate: number, seconds: number) {
  const [health, live] = await Promise.all([fixedRate(healthUrl, rate, seconds), fixedRate(liveUrl, rate, seconds)]);
  return { health, live };
}

/** Median of a few RSS reads 50 ms apart. */
export async function steadyRss(pid: number): Promise<number> {
  const reads: number[] = [];
  for (let i = 0; i < 5; i++) {
    reads.push(rssMB(pid));
    await sleep(50);
  }
  return reads.sort((a, b) => a - b)[2]!;
}

/**
 * The RSS once the service has settled: read `seconds` after `since` (a performance.now() time).
 * An idle service returns memory for a while after it starts: V8's memory reducer collects an
 * idle isolate's heap some seconds after its last major GC and the pages go back (the empty
 * service 86 → 76 MB within 15-30 s, 20 backends 424 → 343 MB within 60-90 s; benchmarks/README.md).
 */
export async function settledRss(pid: number, since: number, seconds: number): Promise<number> {
  await sleep(Math.max(0, since + seconds * 1000 - performance.now()));
  return steadyRss(pid);
}

export function healthyServers(count: number, marker: string, prefix = 'h', env: Record<string, string> = {}): Record<string, ServerEntry> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, fixtureServer(FIXTURES.healthy, `${prefix}${i}`, marker, {}, env)]));
}

/**
 * The small scripts' start: a service with `count` healthy backends (the tsc build unless
 * `entry` is `source`), returned once every backend is healthy; stopped again if they are not.
 */
export async function startWithHealthy(script: string, count: number, options: { entry: Entry; serveArgs?: string[]; cpuProfDir?: string }): Promise<{ agent: Agent; names: string[]; marker: string; tmp: string }> {
  const marker = `bench-${script}-${process.pid}-${Date.now().toString(36)}`;
  const tmp = tmpRoot(marker);
  if (options.entry === 'dist') buildDist();
  const servers = healthyServers(count, marker);
  const names = Object.keys(servers);
  const agent = await startAgent({ entry: options.entry, servers, marker, tmp, serveArgs: options.serveArgs ?? [], ...(options.cpuProfDir ? { cpuProfDir: options.cpuProfDir } : {}) });
  try {
    await waitHealthy(agent, names, 60_000);
  } catch (error) {
    await agent.stop();
    throw error;
  }
  return { agent, names, marker, tmp };
}
