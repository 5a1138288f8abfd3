// The benchmark suite of issues 5 and 13: does the probe path stay fast while backends crash,
// restart and flood stderr and while MCP clients call tools, what does each backend cost, and what
// does the service add to a tool call?
//
//   node --import tsx benchmarks/run.ts [--quick] [--rounds <n>] [--source] [--no-write] [--cpu-prof]
//   npm run bench            full: every scenario twice, interleaved (about 13 minutes)
//   npm run bench -- --quick one round, short phases (about 3 minutes)
//
// Prints one table and writes benchmarks/results/<date>.json. Everything listens on 127.0.0.1,
// every phase has a fixed length, and every process started is stopped by PID and checked gone.
// See benchmarks/README.md for what each figure means.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FixedRate, saturate } from './lib/load.ts';
import { type ArgSpec, checkArgs } from './lib/args.ts';
import { agentRunner, type ScenarioContext, type WithAgent } from './lib/context.ts';
import { type CallFigures, connectHttp, connectStdio, floodRate, floodStats, measureCalls } from './lib/mcp.ts';
import { type FixedPhase, fixedBoth, healthyServers, phase, saturateInTurns, type SaturationPhase, settledRss } from './lib/phases.ts';
import type { CallWindow } from './lib/load-client.ts';
import { checkProfile, mainThreadProfile, type ProfileCheck } from './lib/profile-check.ts';
import { killPids, processesWith } from './lib/procs.ts';
import {
  type Agent,
  BENCH,
  buildDist,
  type EldSnapshot,
  type Entry,
  FIXTURES,
  fixtureServer,
  ROOT,
  type ServerEntry,
  startBare,
  type StopReport,
  tmpRoot,
} from './lib/service.ts';
import { mean, round, sleep } from './lib/stats.ts';
import { type BareChurn, bareChurn } from './scenarios/bare-churn.ts';
import { type Overhead, type OverheadOptions, overhead } from './scenarios/overhead.ts';
import { traffic, type TrafficOptions, type TrafficRun, type Variant } from './scenarios/traffic.ts';
import { scale, type ScaleRun } from './scenarios/scale.ts';
import { DEFAULT_WORKER_NICE } from '../lib/cli/serve-options.ts';

export type BenchOptions = {
  rounds: number;
  /** autocannon phases */
  saturationSeconds: number;
  connections: number;
  /** load-balancer-like probing of /health and /health/live at once, `fixedRate` req/s each */
  fixedRate: number;
  fixedSeconds: number;
  /** wait after "ready" before RSS is read and load starts */
  settleMs: number;
  idleBackends: number;
  churn: { healthy: number; crashers: number; flooders: number; floodMBps: number };
  scaleBackends: number;
  /** `large`: the start-up and memory figures of `scale` with many more backends (issue 14). */
  largeBackends: number;
  /** Probing after the start-up in `scale` and `large`, s (the start-up itself is probed as long as it lasts). */
  scaleAfterSeconds: number;
  /** `agent mcp status` runs timed in `scale` and `large`. */
  statusRuns: number;
  /** RSS read again this long after ready, once the service has settled (empty, scale, large), s. */
  settledSeconds: number;
  toolSerialSeconds: number;
  toolConcurrentSeconds: number;
  toolCallers: number;
  toolWarmupCalls: number;
  floodSeconds: number;
  /** `traffic`: MCP clients in another process while /health is probed, then saturated (phases as above). */
  traffic: Omit<TrafficOptions, 'fixedSeconds' | 'saturationSeconds'>;
  /** `traffic` again with other `--mcp-workers` / `--worker-nice` values, with shorter phases. */
  sweep: { variants: Variant[]; fixedSeconds: number; saturationSeconds: number };
  /** A `traffic` run with CPU profiles, in the first round, for the main-thread check (null: none). */
  profile: { fixedSeconds: number; saturationSeconds: number } | null;
  /** `overhead`: one client, directly and through the service. */
  overhead: OverheadOptions;
  entry: Entry;
  readyTimeoutMs: number;
  /** When set, every `agent serve` writes V8 CPU profiles (main thread and workers) here. */
  cpuProfDir?: string;
  log: (line: string) => void;
};

export const FULL: BenchOptions = {
  rounds: 2,
  saturationSeconds: 10,
  connections: 50,
  fixedRate: 200,
  fixedSeconds: 15,
  settleMs: 500,
  idleBackends: 10,
  churn: { healthy: 4, crashers: 4, flooders: 2, floodMBps: 15 },
  scaleBackends: 50,
  largeBackends: 200,
  scaleAfterSeconds: 10,
  statusRuns: 3,
  settledSeconds: 60,
  toolSerialSeconds: 0.5,
  toolConcurrentSeconds: 1.5,
  toolCallers: 10,
  toolWarmupCalls: 20,
  floodSeconds: 3,
  // Every backend worker, hub and child compiles its hot paths by itself: calls/s still rise for
  // about 15 s of traffic (benchmarks/README.md, "Warm-up"), so the figures start after 10 s.
  traffic: { backends: 10, clients: 10, textBytes: 4096, warmupCalls: 20, warmupSeconds: 10 },
  sweep: {
    variants: [
      { mcpWorkers: 1, workerNice: 0 },
      { mcpWorkers: 1, workerNice: 5 },
      { mcpWorkers: 1, workerNice: 10 },
      { mcpWorkers: 1, workerNice: 19 },
      { mcpWorkers: 2, workerNice: DEFAULT_WORKER_NICE },
    ],
    fixedSeconds: 6,
    saturationSeconds: 4,
  },
  profile: { fixedSeconds: 4, saturationSeconds: 3 },
  overhead: { textBytes: 4096, warmupCalls: 2000, serialSeconds: 3, concurrentSeconds: 3, callers: 10, traceCalls: 300 },
  entry: 'dist',
  readyTimeoutMs: 60_000,
  log: (line) => process.stderr.write(`${line}\n`),
};

/** About three minutes: one round, short phases, and 20 backends instead of 50 for `scale`. */
export const QUICK: BenchOptions = {
  ...FULL,
  rounds: 1,
  saturationSeconds: 1.5,
  fixedSeconds: 2,
  settleMs: 300,
  scaleBackends: 20,
  largeBackends: 20,
  scaleAfterSeconds: 3,
  settledSeconds: 20,
  toolSerialSeconds: 0.3,
  toolConcurrentSeconds: 0.8,
  floodSeconds: 2,
  sweep: { ...FULL.sweep, fixedSeconds: 2, saturationSeconds: 1.5 },
  profile: { fixedSeconds: 2, saturationSeconds: 1.5 },
  traffic: { ...FULL.traffic, warmupSeconds: 3 },
  overhead: { ...FULL.overhead, warmupCalls: 500, serialSeconds: 1, concurrentSeconds: 1, traceCalls: 100 },
};

/** The crashers' restartDelay in `churn` (bare-churn.mjs applies the service's backoff to it too). */
const CHURN_RESTART_DELAY_MS = 100;

// ---------------------------------------------------------------------------------------------
// Result shapes

export type AgentScenario = {
  backends: number;
  readyMs: number;
  rssMB: number;
  bodyBytes: number;
  saturationHealth: SaturationPhase;
  /** null for `scale`: /health/live reads no backend state, so 50 backends add nothing to it. */
  saturationLive: SaturationPhase | null;
  fixed: FixedPhase;
};

export type BareScenario = { bodyBytes: number; rssMB: number; saturation: SaturationPhase; fixed: FixedPhase };

export type Round = {
  round: number;
  /** 1-minute load average when the round started and ended. */
  loadAverage: { start: number; end: number };
  /** RSS once listening (after `settleMs`), and `settledSeconds` later. */
  empty: { rssMB: number; settledRssMB: number; listeningMs: number };
  /** `bareInTurns`: the bare server (same body), saturated in turns with the idle service's /health. */
  idle: AgentScenario & { bareInTurns: SaturationPhase; toolCalls: { mcpLegacy: CallFigures; mcpAuto: CallFigures } };
  direct: { toolCalls: CallFigures };
  bare: BareScenario;
  churn: AgentScenario & { flooders: { name: string; mbps: number }[]; crasherConnects: number; crasherConnectsPerSecond: number; readyBody: unknown };
  bareChurn: BareChurn;
  /** With, from issue 14, /health probed during the start-up and after it, and `agent mcp status` timed. */
  scale: AgentScenario & Pick<ScaleRun, 'startup' | 'after' | 'status' | 'rssSettledMB'>;
  /** The plain script: a legacy initialize of each backend (the yardstick of the ready target). */
  plain: { readyMs: number; connectMs: number; count: number };
  /** The plain script with the service's handshake (auto negotiation, then the lists). */
  plainService?: { readyMs: number; connectMs: number; count: number };
  /** `largeBackends` healthy backends, and the plain script with as many. */
  large: ScaleRun;
  flood: {
    captured: { mbps: number; cpuPct: number; flooderCpuPct: number; machineBusyPct: number; rssStartMB: number; rssEndMB: number; rssMaxMB: number; eld: EldSnapshot; stderrLogLines: number; stderrLogLinesSinceStart: number; seconds: number };
    devNull: { mbps: number };
  };
  /** 1 hub, the default worker nice. */
  traffic: TrafficRun;
  /** The main thread's CPU profile during `traffic` (first round only). */
  profile: ProfileCheck | null;
  overhead: Overhead;
  sweep: TrafficRun[];
};

export type Target = { name: string; rule: string; perRound: number[]; achieved: number; limit: number; pass: boolean };

export type BenchResult = {
  date: string;
  quick: boolean;
  machine: { cpus: number; model: string; node: string; platform: string; kernel: string; memoryGB: number };
  /** 1-minute load average before and after: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
  options: Omit<BenchOptions, 'log'>;
  rounds: Round[];
  summary: Record<string, number>;
  targets: Target[];
  stops: StopReport[];
  leftovers: { pid: number; cmdline: string }[];
  table: string;
};

// ---------------------------------------------------------------------------------------------
// Building blocks

// ---------------------------------------------------------------------------------------------
// The suite

export async function runBench(partial: Partial<BenchOptions> & { quick?: boolean } = {}): Promise<BenchResult> {
  const { quick = false, ...overrides } = partial;
  const o: BenchOptions = { ...(quick ? QUICK : FULL), ...overrides };
  const log = o.log;
  const marker = `bench-run-${process.pid}-${Date.now().toString(36)}`;
  const tmp = tmpRoot(marker);
  const stops: StopReport[] = [];
  const started = performance.now();
  const loadStart = os.loadavg()[0]!;
  // Every log line carries the 1-minute load average: on a shared machine it says which figures to distrust.
  const since = () => `${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  load ${os.loadavg()[0]!.toFixed(1).padStart(4)}`;
  if (o.entry === 'dist') buildDist(log);

  const agentPhases = async (agent: Agent, withLive = true, inTurns?: SaturationPhase): Promise<Pick<AgentScenario, 'saturationHealth' | 'saturationLive' | 'fixed'>> => {
    const saturationHealth = inTurns ?? (await phase(agent, () => saturate(`${agent.base}/health`, o.saturationSeconds, o.connections)));
    const saturationLive = withLive ? await phase(agent, () => saturate(`${agent.base}/health/live`, o.saturationSeconds, o.connections)) : null;
    const fixed = await phase(agent, () => fixedBoth(`${agent.base}/health`, `${agent.base}/health/live`, o.fixedRate, o.fixedSeconds));
    return { saturationHealth, saturationLive, fixed };
  };

  const withAgent: WithAgent = agentRunner({ entry: o.entry, marker, tmp, readyTimeoutMs: o.readyTimeoutMs, settleMs: o.settleMs, ...(o.cpuProfDir ? { cpuProfDir: o.cpuProfDir } : {}), log: (line) => log(`${since()}  ${line}`), stops });

  const ctx: ScenarioContext = { marker, tmp, log: (line) => log(`${since()}  ${line}`), withAgent, fixedRate: o.fixedRate, connections: o.connections };

  let bareBody: string | null = null;
  const rounds: Round[] = [];
  let leftovers: { pid: number; cmdline: string }[] = [];
  try {
    for (let r = 1; r <= o.rounds; r++) {
      const roundLoadStart = os.loadavg()[0]!;
      // 0 backends: the RSS floor.
      const empty = await withAgent(`round ${r}: empty (0 backends)`, {}, [], async (agent, readyMs, rss) => ({
        rssMB: rss,
        settledRssMB: await settledRss(agent.pid, performance.now() - o.settleMs, o.settledSeconds),
        listeningMs: readyMs,
      }));

      // idle: healthy backends, then tool calls through /mcp.
      const idleNames = Object.keys(healthyServers(o.idleBackends, marker));
      const idle = await withAgent(`round ${r}: idle (${o.idleBackends} healthy)`, healthyServers(o.idleBackends, marker), idleNames, async (agent, readyMs, rssMB) => {
        const sample = await (await fetch(`${agent.base}/health`)).text();
        bareBody ??= sample;
        // /health saturated in turns with the bare server (same body): the idle ÷ bare figure.
        const bareServer = await startBare(sample, { marker, tmp });
        let inTurns: [SaturationPhase, SaturationPhase];
        try {
          const slices = Math.max(2, Math.round(o.saturationSeconds / 2.5));
          inTurns = await saturateInTurns({ target: agent, url: `${agent.base}/health` }, { target: bareServer, url: `${bareServer.base}/` }, o.saturationSeconds, o.connections, slices);
        } finally {
          stops.push(await bareServer.stop());
        }
        const phases = await agentPhases(agent, true, inTurns[0]);
        const tool = `${idleNames[0]}_agent_echo`;
        const legacy = await connectHttp(agent.base, 'legacy');
        const mcpLegacy = await measureCalls(legacy, tool, o.toolSerialSeconds, o.toolConcurrentSeconds, o.toolCallers, o.toolWarmupCalls).finally(() => legacy.close());
        const auto = await connectHttp(agent.base, 'auto');
        const mcpAuto = await measureCalls(auto, tool, o.toolSerialSeconds, o.toolConcurrentSeconds, o.toolCallers, o.toolWarmupCalls).finally(() => auto.close());
        return { backends: o.idleBackends, readyMs, rssMB, bodyBytes: Buffer.byteLength(sample), ...phases, bareInTurns: inTurns[1], toolCalls: { mcpLegacy, mcpAuto } };
      });

      // traffic: MCP clients in another process while /health is probed, then saturated.
      const defaults: Variant = { mcpWorkers: 1, workerNice: DEFAULT_WORKER_NICE };
      const trafficOptions = { ...o.traffic, fixedSeconds: o.fixedSeconds, saturationSeconds: o.saturationSeconds, bareStops: stops };
      const trafficRun = await traffic(ctx, trafficOptions, defaults, `round ${r}: traffic (${o.traffic.backends} healthy, ${o.traffic.clients} MCP clients)`);

      // direct: the same fixture, the SDK client over stdio, no service in between.
      log(`${since()}  round ${r}: direct tool calls`);
      const directConn = await connectStdio(FIXTURES.healthy, [marker], { FIXTURE_NAME: 'direct' });
      const direct = { toolCalls: await measureCalls(directConn.client, 'echo', o.toolSerialSeconds, o.toolConcurrentSeconds, o.toolCallers, o.toolWarmupCalls).finally(() => directConn.client.close()) };

      // bare: a plain node:http server in its own process, same body size as idle /health.
      log(`${since()}  round ${r}: bare node:http`);
      const bareServer = await startBare(bareBody!, { marker, tmp });
      let bare: BareScenario;
      try {
        const saturation = await phase(bareServer, () => saturate(`${bareServer.base}/`, o.saturationSeconds, o.connections));
        const fixed = await phase(bareServer, () => fixedBoth(`${bareServer.base}/`, `${bareServer.base}/`, o.fixedRate, o.fixedSeconds));
        bare = { bodyBytes: Buffer.byteLength(bareBody!), rssMB: bareServer.rss(), saturation, fixed };
      } finally {
        stops.push(await bareServer.stop());
      }

      // overhead: one client, directly, through the service and through the thin gateway, with the
      // per-hop breakdown. Before scale and large: after 200 backends the load average stays high
      // for minutes, and one caller's latency is what a busy machine spoils first.
      const overheadRun = await overhead(ctx, o.overhead, `round ${r}: overhead`, stops);

      // churn: healthy + crashers restarting forever + flooders.
      const c = o.churn;
      const churnServers: Record<string, ServerEntry> = {
        ...healthyServers(c.healthy, marker),
        ...Object.fromEntries(Array.from({ length: c.crashers }, (_, i) => [`c${i}`, fixtureServer(FIXTURES.crasher, `c${i}`, marker, { restartOnExit: true, maxRestarts: 0, restartDelay: CHURN_RESTART_DELAY_MS })])),
        ...Object.fromEntries(Array.from({ length: c.flooders }, (_, i) => [`f${i}`, fixtureServer(FIXTURES.flooder, `f${i}`, marker, {}, { FLOOD_MBPS: String(c.floodMBps) })])),
      };
      const stable = Object.keys(churnServers).filter((n) => !n.startsWith('c'));
      const churn = await withAgent(`round ${r}: churn (${c.healthy} healthy, ${c.crashers} crashers, ${c.flooders} flooders)`, churnServers, stable, async (agent, readyMs, rssMB) => {
        const sample = await (await fetch(`${agent.base}/health`)).text();
        const mcp = await connectHttp(agent.base, 'legacy');
        try {
          const floodNames = stable.filter((n) => n.startsWith('f'));
          const before = await Promise.all(floodNames.map((n) => floodStats(mcp, `${n}_agent_stats`)));
          const connects0 = agent.connects();
          const t0 = performance.now();
          const phases = await agentPhases(agent);
          const phaseSeconds = (performance.now() - t0) / 1000;
          const connects1 = agent.connects();
          const after = await Promise.all(floodNames.map((n) => floodStats(mcp, `${n}_agent_stats`)));
          const readyBody = await (await fetch(`${agent.base}/health/ready`)).json();
          const crasherConnects = Object.keys(connects1)
            .filter((n) => n.startsWith('c'))
            .reduce((sum, n) => sum + (connects1[n] ?? 0) - (connects0[n] ?? 0), 0);
          const flooders = floodNames.map((name, i) => ({ name, mbps: floodRate(before[i]!, after[i]!) }));
          const crasherConnectsPerSecond = crasherConnects / phaseSeconds;
          return { backends: Object.keys(churnServers).length, readyMs, rssMB, bodyBytes: Buffer.byteLength(sample), ...phases, flooders, crasherConnects, crasherConnectsPerSecond, readyBody };
        } finally {
          await mcp.close();
        }
      });

      // bare-churn: the bare server spawning and restarting the same mix itself.
      log(`${since()}  round ${r}: bare-churn (bare node:http + ${c.crashers} crashers, ${c.flooders} flooders, ${c.healthy} healthy)`);
      const bareChurnConfig = { ...c, restartDelay: CHURN_RESTART_DELAY_MS, nice: DEFAULT_WORKER_NICE };
      const bareChurnRun = await bareChurn(ctx, bareBody!, bareChurnConfig, { saturation: o.saturationSeconds, fixed: o.fixedSeconds, warmMs: churn.readyMs + o.settleMs }, stops);

      // scale: many healthy backends, probed while they start and after; then the plain script
      // spawns and initializes the same backends (scenarios/scale.ts).
      const scaleOptions = { entry: o.entry, rate: o.fixedRate, afterSeconds: o.scaleAfterSeconds, settleMs: o.settleMs, readyTimeoutMs: o.readyTimeoutMs, statusRuns: o.statusRuns, settledSeconds: o.settledSeconds };
      const scaleRun = await scale(ctx, { ...scaleOptions, backends: o.scaleBackends }, `round ${r}: scale (${o.scaleBackends} healthy)`, stops, async (agent) => {
        const sample = await (await fetch(`${agent.base}/health`)).text();
        return { bodyBytes: Buffer.byteLength(sample), ...(await agentPhases(agent, false)) };
      });
      const scaleScenario: Round['scale'] = {
        backends: o.scaleBackends,
        readyMs: scaleRun.readyMs,
        rssMB: scaleRun.rssMB,
        rssSettledMB: scaleRun.rssSettledMB,
        bodyBytes: scaleRun.bodyBytes!,
        saturationHealth: scaleRun.saturationHealth!,
        saturationLive: null,
        fixed: scaleRun.fixed!,
        startup: scaleRun.startup,
        after: scaleRun.after,
        status: scaleRun.status,
      };
      const { plain, plainService } = scaleRun;

      // large: as scale, with many more backends (the same as scale with --quick).
      // 200 backends may take minutes on 2 cores: 1.5 s per backend at most.
      const largeOptions = { ...scaleOptions, readyTimeoutMs: Math.max(o.readyTimeoutMs, o.largeBackends * 1_500) };
      const large = await scale(ctx, { ...largeOptions, backends: o.largeBackends }, `round ${r}: large (${o.largeBackends} healthy)`, stops);

      // flood: one flooder writing as fast as it can, captured by the service; then to /dev/null.
      const floodServers = { flood: fixtureServer(FIXTURES.flooder, 'flood', marker, {}, { FLOOD_MBPS: '0' }) };
      const captured = await withAgent(`round ${r}: flood (captured)`, floodServers, ['flood'], async (agent) => {
        const mcp = await connectHttp(agent.base, 'legacy');
        try {
          const lines0 = agent.stderrLogLines();
          const s0 = await floodStats(mcp, 'flood_agent_stats');
          let rssMaxMB = 0;
          const result = await phase(agent, async () => {
            const until = performance.now() + o.floodSeconds * 1000;
            while (performance.now() < until) {
              rssMaxMB = Math.max(rssMaxMB, agent.rss());
              await sleep(100);
            }
            return {};
          });
          const s1 = await floodStats(mcp, 'flood_agent_stats');
          rssMaxMB = Math.max(rssMaxMB, result.rssEndMB);
          return { mbps: floodRate(s0, s1), cpuPct: result.cpuPct, flooderCpuPct: result.childrenCpuPct, machineBusyPct: result.machineBusyPct, rssStartMB: result.rssStartMB, rssEndMB: result.rssEndMB, rssMaxMB, eld: result.eld, stderrLogLines: agent.stderrLogLines() - lines0, stderrLogLinesSinceStart: agent.stderrLogLines(), seconds: o.floodSeconds };
        } finally {
          await mcp.close();
        }
      });
      log(`${since()}  round ${r}: flood (/dev/null)`);
      const nullConn = await connectStdio(FIXTURES.flooder, [marker], { FIXTURE_NAME: 'flood', FLOOD_MBPS: '0' }, 'ignore');
      let devNull: { mbps: number };
      try {
        const s0 = await floodStats(nullConn.client, 'stats');
        await sleep(Math.min(o.floodSeconds / 2, 3) * 1000);
        devNull = { mbps: floodRate(s0, await floodStats(nullConn.client, 'stats')) };
      } finally {
        await nullConn.client.close();
      }


      // The sweep: traffic with other --mcp-workers / --worker-nice values.
      const sweep: TrafficRun[] = [];
      for (const v of o.sweep.variants) {
        const what = `round ${r}: sweep (--mcp-workers ${v.mcpWorkers} --worker-nice ${v.workerNice})`;
        sweep.push(await traffic(ctx, { ...o.traffic, fixedSeconds: o.sweep.fixedSeconds, saturationSeconds: o.sweep.saturationSeconds }, v, what));
      }

      // The main thread's CPU profile during traffic (once): no SDK, zod or JSON-RPC frame may show.
      let profile: ProfileCheck | null = null;
      if (o.profile && r === 1) {
        const dir = path.join(tmp, 'profiles');
        const run = await traffic(ctx, { ...o.traffic, ...o.profile }, defaults, `round ${r}: traffic with CPU profiles (main-thread check)`, dir);
        const file = mainThreadProfile(dir, run.pid);
        if (!file) throw new Error(`no main-thread CPU profile of pid ${run.pid} in ${dir}`);
        profile = checkProfile(file);
        if (profile.forbiddenFrames.length) log(`  main-thread profile: ${profile.forbiddenFrames.map((f) => `${f.frame} (${f.category})`).join(', ')}`);
      }

      rounds.push({ round: r, loadAverage: { start: round(roundLoadStart, 2), end: round(os.loadavg()[0]!, 2) }, empty, idle, direct, bare, churn, bareChurn: bareChurnRun, scale: scaleScenario, plain, plainService, large, flood: { captured, devNull }, traffic: trafficRun, profile, overhead: overheadRun, sweep });
    }
  } finally {
    // Nothing this run started may survive it, failed or not.
    await sleep(200);
    leftovers = processesWith(marker);
    killPids(leftovers.map((p) => p.pid));
    fs.rmSync(tmp, { recursive: true, force: true });
    log(`${since()}  done${leftovers.length ? `; killed ${leftovers.length} leftover process(es)` : '; no process left behind'}`);
  }

  const { summary, targets } = summarize(rounds, o);
  const cpu = os.cpus();
  const result: BenchResult = {
    date: new Date().toISOString(),
    quick,
    loadAverage: { start: round(loadStart, 2), end: round(os.loadavg()[0]!, 2) },
    machine: { cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.arch()}`, kernel: os.release(), memoryGB: round(os.totalmem() / 1e9, 1) },
    options: { ...o, log: undefined } as unknown as Omit<BenchOptions, 'log'>,
    rounds,
    summary,
    targets,
    stops,
    leftovers,
    table: '',
  };
  result.table = formatTable(result);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Summary, targets, table

function summarize(rounds: Round[], o: BenchOptions): { summary: Record<string, number>; targets: Target[] } {
  const m = (pick: (r: Round) => number) => mean(rounds.map(pick));
  const s: Record<string, number> = {
    bareSaturationRps: m((r) => r.bare.saturation.rps),
    idleHealthSaturationRps: m((r) => r.idle.saturationHealth.rps),
    bareInTurnsSaturationRps: m((r) => r.idle.bareInTurns.rps),
    churnHealthSaturationRps: m((r) => r.churn.saturationHealth.rps),
    scaleHealthSaturationRps: m((r) => r.scale.saturationHealth.rps),
    bareFixedP99: m((r) => r.bare.fixed.health.p99),
    idleFixedHealthP99: m((r) => r.idle.fixed.health.p99),
    churnFixedHealthP99: m((r) => r.churn.fixed.health.p99),
    idleFixedLiveP99: m((r) => r.idle.fixed.live.p99),
    churnFixedLiveP99: m((r) => r.churn.fixed.live.p99),
    churnEldP99Max: m((r) => churnEldMax(r)),
    scaleReadyMs: m((r) => r.scale.readyMs),
    scaleStartupP99: m((r) => r.scale.startup.p99),
    scaleAfterP99: m((r) => r.scale.after.p99),
    scaleStatusMs: m((r) => r.scale.status.p50),
    largeReadyMs: m((r) => r.large.readyMs),
    largePlainReadyMs: m((r) => r.large.plain.readyMs),
    largeRssMB: m((r) => r.large.rssMB),
    largePerBackendRssMB: m((r) => (r.large.rssMB - r.empty.rssMB) / r.large.backends),
    largePerBackendSettledRssMB: m((r) => (r.large.rssSettledMB - r.empty.settledRssMB) / r.large.backends),
    largeStartupP99: m((r) => r.large.startup.p99),
    largeAfterP99: m((r) => r.large.after.p99),
    largeStatusMs: m((r) => r.large.status.p50),
    plainReadyMs: m((r) => r.plain.readyMs),
    rss0MB: m((r) => r.empty.rssMB),
    rssIdleMB: m((r) => r.idle.rssMB),
    rssScaleMB: m((r) => r.scale.rssMB),
    perBackendRssMB: m((r) => perBackend(r, o)),
    rss0SettledMB: m((r) => r.empty.settledRssMB),
    perBackendSettledRssMB: m((r) => perBackendSettled(r, o)),
    toolSerialP50Mcp: m((r) => r.idle.toolCalls.mcpLegacy.serial.p50),
    toolSerialP50Direct: m((r) => r.direct.toolCalls.serial.p50),
    toolP50Mcp: m((r) => r.idle.toolCalls.mcpLegacy.concurrent.p50),
    toolP50Direct: m((r) => r.direct.toolCalls.concurrent.p50),
    toolPerSecondMcp: m((r) => r.idle.toolCalls.mcpLegacy.concurrent.perSecond),
    toolPerSecondDirect: m((r) => r.direct.toolCalls.concurrent.perSecond),
    floodCapturedMBps: m((r) => r.flood.captured.mbps),
    floodDevNullMBps: m((r) => r.flood.devNull.mbps),
    floodCpuPct: m((r) => r.flood.captured.cpuPct),
    floodRssGrowthMB: m((r) => r.flood.captured.rssEndMB - r.flood.captured.rssStartMB),
    bareChurnSaturationRps: m((r) => r.bareChurn.saturation.rps),
    bareChurnFixedP99: m((r) => r.bareChurn.fixed.health.p99),
    trafficFixedHealthP99: m((r) => r.traffic.fixed.health.p99),
    trafficHealthSaturationRps: m((r) => r.traffic.saturation.rps),
    trafficCallsPerSecond: m((r) => r.traffic.fixed.calls.perSecond),
    trafficCallP50: m((r) => r.traffic.fixed.calls.p50),
    trafficCallP99: m((r) => r.traffic.fixed.calls.p99),
    trafficCallsPerSecondSaturated: m((r) => r.traffic.saturation.calls.perSecond),
    trafficMainCpuPct: m((r) => r.traffic.fixed.mainCpuPct),
    trafficEldP99: m((r) => r.traffic.fixed.eld.p99Ms),
    overheadDirectP50: m((r) => r.overhead.direct.serial.p50),
    overheadServiceP50: m((r) => r.overhead.service.serial.p50),
    overheadAddedP50: m((r) => r.overhead.service.serial.p50 - r.overhead.direct.serial.p50),
    overheadAddedP50Concurrent: m((r) => r.overhead.service.concurrent.p50 - r.overhead.direct.concurrent.p50),
  };
  for (const [k, v] of Object.entries(s)) s[k] = round(v, 3);

  const targets: Target[] = [];
  const add = (name: string, rule: string, perRound: number[], achieved: number, limit: number, atMost: boolean) =>
    targets.push({ name, rule, perRound: perRound.map((v) => round(v, 3)), achieved: round(achieved, 3), limit, pass: atMost ? achieved <= limit : achieved >= limit });
  const per = (f: (r: Round) => number) => rounds.map(f);
  add('/health saturation, idle ÷ bare (in turns)', '≥ 0.8', per((r) => r.idle.saturationHealth.rps / r.idle.bareInTurns.rps), s.idleHealthSaturationRps! / s.bareInTurnsSaturationRps!, 0.8, false);
  add('/health saturation, churn ÷ bare', '≥ 0.5', per((r) => r.churn.saturationHealth.rps / r.bare.saturation.rps), s.churnHealthSaturationRps! / s.bareSaturationRps!, 0.5, false);
  add('fixed-rate /health p99, churn ÷ idle', '≤ 1.5', per((r) => r.churn.fixed.health.p99 / r.idle.fixed.health.p99), s.churnFixedHealthP99! / s.idleFixedHealthP99!, 1.5, true);
  add('fixed-rate /health p99, idle ÷ bare', '≤ 1.5', per((r) => r.idle.fixed.health.p99 / r.bare.fixed.health.p99), s.idleFixedHealthP99! / s.bareFixedP99!, 1.5, true);
  add('event-loop delay p99, worst churn phase (ms)', '≤ 5', per(churnEldMax), Math.max(...per(churnEldMax)), 5, true);
  // issue 14 (the ready target was 1.5 before it)
  add(`${o.scaleBackends} backends ready, service ÷ plain script`, '≤ 1.2', per((r) => r.scale.readyMs / r.plain.readyMs), s.scaleReadyMs! / s.plainReadyMs!, 1.2, true);
  // Memory twice: just after ready (the start-up's transient) and once the service has settled (what it holds while it runs).
  add('RSS per backend, at ready (MB)', '≤ 15', per((r) => perBackend(r, o)), s.perBackendRssMB!, 15, true);
  add(`RSS per backend, settled ${o.settledSeconds} s (MB)`, '≤ 15', per((r) => perBackendSettled(r, o)), s.perBackendSettledRssMB!, 15, true);
  add('RSS with no backends, hub included, at ready (MB)', '≤ 80', per((r) => r.empty.rssMB), s.rss0MB!, 80, true);
  add(`RSS with no backends, hub included, settled ${o.settledSeconds} s (MB)`, '≤ 80', per((r) => r.empty.settledRssMB), s.rss0SettledMB!, 80, true);
  add(`/health p99 at 200/s, ${o.scaleBackends} backends: during start-up ÷ after`, '≤ 2', per((r) => r.scale.startup.p99 / r.scale.after.p99), s.scaleStartupP99! / s.scaleAfterP99!, 2, true);
  add('tool call p50, 10 callers: /mcp − direct (ms)', '≤ 1', per((r) => r.idle.toolCalls.mcpLegacy.concurrent.p50 - r.direct.toolCalls.concurrent.p50), s.toolP50Mcp! - s.toolP50Direct!, 1, true);
  add('tool call p50, 1 caller: /mcp − direct (ms)', '≤ 1', per((r) => r.idle.toolCalls.mcpLegacy.serial.p50 - r.direct.toolCalls.serial.p50), s.toolSerialP50Mcp! - s.toolSerialP50Direct!, 1, true);
  add('tool calls/s, 10 callers: /mcp ÷ direct', '≥ 0.5', per((r) => r.idle.toolCalls.mcpLegacy.concurrent.perSecond / r.direct.toolCalls.concurrent.perSecond), s.toolPerSecondMcp! / s.toolPerSecondDirect!, 0.5, false);
  // issue 13
  add('fixed-rate /health p99, traffic ÷ idle', '≤ 1.5', per((r) => r.traffic.fixed.health.p99 / r.idle.fixed.health.p99), s.trafficFixedHealthP99! / s.idleFixedHealthP99!, 1.5, true);
  const churnOverBare = per((r) => r.churn.fixed.health.p99 / r.bareChurn.fixed.health.p99);
  add('fixed-rate /health p99, churn ÷ bare-churn, worst round', '≤ 1.3', churnOverBare, Math.max(...churnOverBare), 1.3, true);
  add('/health saturation, traffic ÷ bare', '≥ 0.5', per((r) => r.traffic.saturation.rps / r.bare.saturation.rps), s.trafficHealthSaturationRps! / s.bareSaturationRps!, 0.5, false);
  add(`MCP calls/s, ${o.traffic.clients} clients, traffic (fixed-rate phase)`, '≥ 430', per((r) => r.traffic.fixed.calls.perSecond), s.trafficCallsPerSecond!, 430, false);
  add('added latency per call, 1 caller, p50 (ms): service − direct', '≤ 2', per((r) => r.overhead.service.serial.p50 - r.overhead.direct.serial.p50), s.overheadAddedP50!, 2, true);
  const forbidden = rounds.map((r) => (r.profile ? r.profile.forbiddenSamples : Number.NaN));
  // Taken in the first round only (options.profile); no target without one.
  if (forbidden.some(Number.isFinite)) add('main-thread profile in traffic: samples with SDK, zod or JSON-RPC frames', '= 0', forbidden, forbidden.filter(Number.isFinite).reduce((x, y) => x + y, 0), 0, true);
  return { summary: s, targets };
}

function churnEldMax(r: Round): number {
  return Math.max(r.churn.saturationHealth.eld.p99Ms, r.churn.saturationLive?.eld.p99Ms ?? 0, r.churn.fixed.eld.p99Ms);
}

function perBackend(r: Round, o: BenchOptions): number {
  return (r.scale.rssMB - r.empty.rssMB) / o.scaleBackends;
}

function perBackendSettled(r: Round, o: BenchOptions): number {
  return (r.scale.rssSettledMB - r.empty.settledRssMB) / o.scaleBackends;
}

function fmt(v: number): string {
  if (Number.isNaN(v)) return '-';
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  return a >= 1000 ? v.toFixed(0) : a >= 100 ? v.toFixed(1) : a >= 10 ? v.toFixed(2) : v.toFixed(3).replace(/\.?0+$/, '') || '0';
}

/** One markdown table: the figures per round and their mean, then each target with pass/fail. */
export function formatTable(result: Pick<BenchResult, 'rounds' | 'targets'>): string {
  const { rounds } = result;
  const rows: string[][] = [];
  const head = ['figure', ...rounds.map((r) => `#${r.round}`), rounds.length > 1 ? 'mean' : 'result', 'target'];
  const row = (label: string, pick: (r: Round) => number[]) => {
    const values = rounds.map(pick);
    const cells = values.map((v) => v.map(fmt).join(' / '));
    const means = values[0]!.map((_, i) => fmt(mean(values.map((v) => v[i]!))));
    rows.push([label, ...cells, ...(rounds.length > 1 ? [means.join(' / ')] : [cells[0]!]), '']);
  };
  const sat = (p: SaturationPhase | null) => (p ? [p.rps, p.p99] : [Number.NaN, Number.NaN]);
  const fix = (p: FixedRate) => [p.p50, p.p99, p.max];

  row('load average (1 min): round start / end', (r) => [r.loadAverage.start, r.loadAverage.end]);
  row('bare: saturation req/s / p99 ms', (r) => sat(r.bare.saturation));
  row('bare, in turns with idle /health: saturation req/s / p99 ms', (r) => sat(r.idle.bareInTurns));
  row('bare: fixed-rate p50 / p99 / max ms', (r) => fix(r.bare.fixed.health));
  row('bare: event-loop delay p99 ms (sat, fixed)', (r) => [r.bare.saturation.eld.p99Ms, r.bare.fixed.eld.p99Ms]);
  row('bare: fixed phase: machine busy % / prober late ms', (r) => [r.bare.fixed.machineBusyPct, Math.max(r.bare.fixed.health.lateStartMs, r.bare.fixed.live.lateStartMs)]);
  for (const name of ['idle', 'churn', 'scale'] as const) {
    const sc = (r: Round) => r[name];
    row(`${name}: backends / ready ms / RSS MB`, (r) => [sc(r).backends, sc(r).readyMs, sc(r).rssMB]);
    row(`${name}: /health saturation req/s / p99 ms`, (r) => sat(sc(r).saturationHealth));
    row(`${name}: /health/live saturation req/s / p99 ms`, (r) => sat(sc(r).saturationLive));
    row(`${name}: /health fixed-rate p50 / p99 / max ms`, (r) => fix(sc(r).fixed.health));
    row(`${name}: /health/live fixed-rate p50 / p99 / max ms`, (r) => fix(sc(r).fixed.live));
    row(`${name}: non-2xx + errors (sat /health, sat live, fixed)`, (r) => [
      sc(r).saturationHealth.non2xx + sc(r).saturationHealth.errors,
      sc(r).saturationLive ? sc(r).saturationLive!.non2xx + sc(r).saturationLive!.errors : Number.NaN,
      sc(r).fixed.health.non2xx + sc(r).fixed.health.errors + sc(r).fixed.live.non2xx + sc(r).fixed.live.errors,
    ]);
    row(`${name}: event-loop delay p99 ms (sat /health, sat live, fixed)`, (r) => [sc(r).saturationHealth.eld.p99Ms, sc(r).saturationLive?.eld.p99Ms ?? Number.NaN, sc(r).fixed.eld.p99Ms]);
    row(`${name}: service CPU % (sat /health, sat live, fixed)`, (r) => [sc(r).saturationHealth.cpuPct, sc(r).saturationLive?.cpuPct ?? Number.NaN, sc(r).fixed.cpuPct]);
    row(`${name}: fixed phase: backends CPU % / machine busy % / prober late ms`, (r) => [sc(r).fixed.childrenCpuPct, sc(r).fixed.machineBusyPct, Math.max(sc(r).fixed.health.lateStartMs, sc(r).fixed.live.lateStartMs)]);
  }
  row('churn: crasher (re)connects during the phases', (r) => [r.churn.crasherConnects]);
  row('churn: flooders captured MB/s', (r) => r.churn.flooders.map((f) => f.mbps));
  row('RSS MB: 0 / idle / scale backends', (r) => [r.empty.rssMB, r.idle.rssMB, r.scale.rssMB]);
  row('RSS MB settled: 0 / scale backends / per backend', (r) => [r.empty.settledRssMB, r.scale.rssSettledMB, (r.scale.rssSettledMB - r.empty.settledRssMB) / r.scale.backends]);
  row("plain script: scale backends ready ms, initialize / the service's handshake", (r) => [r.plain.readyMs, r.plainService?.readyMs ?? Number.NaN]);
  row("scale: ready ÷ plain script with the service's handshake", (r) => [r.scale.readyMs / (r.plainService?.readyMs ?? Number.NaN)]);
  // issue 14
  row('scale: /health at 200/s during start-up p50 / p99 / max ms', (r) => fix(r.scale.startup));
  row('scale: /health at 200/s after start-up p50 / p99 / max ms', (r) => fix(r.scale.after));
  row('scale: `agent mcp status` ms (p50 / max)', (r) => [r.scale.status.p50, r.scale.status.max]);
  row('large: backends / ready ms / plain script ms / ready ÷ plain', (r) => [r.large.backends, r.large.readyMs, r.large.plain.readyMs, r.large.readyMs / r.large.plain.readyMs]);
  row("large: plain script with the service's handshake ms / ready ÷ that", (r) => [r.large.plainService.readyMs, r.large.readyMs / r.large.plainService.readyMs]);
  row('large: RSS MB / RSS per backend MB', (r) => [r.large.rssMB, (r.large.rssMB - r.empty.rssMB) / r.large.backends]);
  row('large settled: RSS MB / RSS per backend MB', (r) => [r.large.rssSettledMB, (r.large.rssSettledMB - r.empty.settledRssMB) / r.large.backends]);
  row('large: /health during start-up p50 / p99 / max ms', (r) => fix(r.large.startup));
  row('large: /health after start-up p50 / p99 / max ms', (r) => fix(r.large.after));
  row('large: `agent mcp status` ms (p50 / max)', (r) => [r.large.status.p50, r.large.status.max]);
  row('large: service threads / open fds / memory mappings', (r) => [r.large.limits.threads, r.large.limits.fds, r.large.limits.maps]);
  row('tool call /mcp (legacy): p50 1 caller / p50 10 callers ms / calls/s', (r) => callRow(r.idle.toolCalls.mcpLegacy));
  row('tool call /mcp (auto → 2026-07-28): same', (r) => callRow(r.idle.toolCalls.mcpAuto));
  row('tool call direct stdio (legacy): same', (r) => callRow(r.direct.toolCalls));
  row('flood: captured MB/s / to /dev/null MB/s', (r) => [r.flood.captured.mbps, r.flood.devNull.mbps]);
  row('flood: service CPU % / flooder CPU % / machine busy % / event-loop p99 ms', (r) => [r.flood.captured.cpuPct, r.flood.captured.flooderCpuPct, r.flood.captured.machineBusyPct, r.flood.captured.eld.p99Ms]);
  row('flood: service RSS MB start / end / max', (r) => [r.flood.captured.rssStartMB, r.flood.captured.rssEndMB, r.flood.captured.rssMaxMB]);
  // The quota's 20 lines go at start-up, before the phase; the phase (3 s) is shorter than the 10 s
  // window and may miss the 5 s summary, so 0 in the phase is what the limits promise.
  row('flood: stderr log lines since start / in the phase', (r) => [r.flood.captured.stderrLogLinesSinceStart, r.flood.captured.stderrLogLines]);
  // issue 13
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const calls = (w: CallWindow) => [w.perSecond, w.p50, w.p99];
  row('traffic: backends / MCP clients / ready ms / RSS MB', (r) => [r.traffic.backends, r.traffic.clients, r.traffic.readyMs, r.traffic.rssMB]);
  row('traffic: /health fixed-rate p50 / p99 / max ms', (r) => fix(r.traffic.fixed.health));
  row('traffic: /health saturation req/s / p99 ms', (r) => sat(r.traffic.saturation));
  row('traffic: MCP calls/s / p50 / p99 ms, fixed-rate phase', (r) => calls(r.traffic.fixed.calls));
  row('traffic: MCP calls/s / p50 / p99 ms, saturation phase', (r) => calls(r.traffic.saturation.calls));
  // The bare server under the same calls: how far any server's probes get on a machine this busy.
  const nan = [Number.NaN, Number.NaN, Number.NaN];
  row('traffic: bare server under the same calls: fixed-rate p50 / p99 / max ms', (r) => (r.traffic.bare ? fix(r.traffic.bare.fixed.health) : nan));
  row('traffic: bare server under the same calls: saturation req/s / p99 ms', (r) => sat(r.traffic.bare?.saturation ?? null));
  row('traffic: fixed-rate p99, bare under traffic ÷ bare idle (the limit of traffic ÷ idle) / service ÷ bare under traffic', (r) =>
    r.traffic.bare ? [r.traffic.bare.fixed.health.p99 / r.bare.fixed.health.p99, r.traffic.fixed.health.p99 / r.traffic.bare.fixed.health.p99] : nan.slice(1),
  );
  row('traffic: saturation, bare under traffic ÷ bare idle (the limit of traffic ÷ bare) / service ÷ bare under traffic', (r) =>
    r.traffic.bare ? [r.traffic.bare.saturation.rps / r.bare.saturation.rps, r.traffic.saturation.rps / r.traffic.bare.saturation.rps] : nan.slice(1),
  );
  row('traffic: main-thread event-loop delay p99 ms (fixed, sat)', (r) => [r.traffic.fixed.eld.p99Ms, r.traffic.saturation.eld.p99Ms]);
  row('traffic: main-thread CPU % (fixed, sat)', (r) => [r.traffic.fixed.mainCpuPct, r.traffic.saturation.mainCpuPct]);
  row('traffic: fixed phase: hub / backend children / client process CPU %, machine busy %', (r) => [sum(r.traffic.fixed.hubCpuPct), r.traffic.fixed.childrenCpuPct, r.traffic.fixed.calls.cpuPct, r.traffic.fixed.machineBusyPct]);
  // CPU % of one core over calls per second: ms of CPU per call, wherever it was spent.
  row('traffic: fixed phase: CPU ms per call: main / hub / backend workers / backend children / client', (r) => {
    const f = r.traffic.fixed;
    return [f.mainCpuPct, sum(f.hubCpuPct), f.backendWorkersCpuPct, f.childrenCpuPct, f.calls.cpuPct].map((pct) => (pct * 10) / f.calls.perSecond);
  });
  row('traffic: non-2xx + errors (fixed probes, sat, MCP calls)', (r) => [
    r.traffic.fixed.health.non2xx + r.traffic.fixed.health.errors + r.traffic.fixed.live.non2xx + r.traffic.fixed.live.errors,
    r.traffic.saturation.non2xx + r.traffic.saturation.errors,
    r.traffic.fixed.calls.errors + r.traffic.saturation.calls.errors,
  ]);
  row('traffic: main-thread profile: busy samples / with SDK, zod or JSON-RPC frames', (r) => (r.profile ? [r.profile.busySamples, r.profile.forbiddenSamples] : [Number.NaN, Number.NaN]));
  row('bare-churn: saturation req/s / p99 ms', (r) => sat(r.bareChurn.saturation));
  row('bare-churn: fixed-rate p50 / p99 / max ms', (r) => fix(r.bareChurn.fixed.health));
  row('bare-churn: event-loop delay p99 ms (sat, fixed)', (r) => [r.bareChurn.saturation.eld.p99Ms, r.bareChurn.fixed.eld.p99Ms]);
  row('bare-churn: fixed phase: children CPU % / machine busy % / prober late ms', (r) => [r.bareChurn.fixed.childrenCpuPct, r.bareChurn.fixed.machineBusyPct, Math.max(r.bareChurn.fixed.health.lateStartMs, r.bareChurn.fixed.live.lateStartMs)]);
  row('crasher restarts/s, churn / bare-churn; flooders MB/s, churn / bare-churn', (r) => [r.churn.crasherConnectsPerSecond, r.bareChurn.restartsPerSecond, sum(r.churn.flooders.map((f) => f.mbps)), r.bareChurn.stderrMBps]);
  const o0 = result.rounds[0]!.overhead;
  const kib = `${fmt(o0.textBytes / 1024)} KiB`;
  row(`overhead (${kib} echo), direct stdio: p50 1 caller / p50 ${o0.callers} callers ms / calls/s`, (r) => [r.overhead.direct.serial.p50, r.overhead.direct.concurrent.p50, r.overhead.direct.concurrent.perSecond]);
  row('overhead, through the service: same', (r) => [r.overhead.service.serial.p50, r.overhead.service.concurrent.p50, r.overhead.service.concurrent.perSecond]);
  row('overhead, through the thin gateway (thin-gateway.mjs): same', (r) => [r.overhead.thin.serial.p50, r.overhead.thin.concurrent.p50, r.overhead.thin.concurrent.perSecond]);
  row('overhead: added p50 ms, 1 caller: thin gateway − direct (the HTTP legs alone) / service − thin gateway', (r) => [r.overhead.thin.serial.p50 - r.overhead.direct.serial.p50, r.overhead.service.serial.p50 - r.overhead.thin.serial.p50]);
  row(`overhead: added p50 ms, 1 caller / ${o0.callers} callers`, (r) => [r.overhead.service.serial.p50 - r.overhead.direct.serial.p50, r.overhead.service.concurrent.p50 - r.overhead.direct.concurrent.p50]);
  row(`overhead: client process CPU %, ${o0.callers} callers, direct / service`, (r) => [r.overhead.direct.concurrent.cpuPct, r.overhead.service.concurrent.cpuPct]);
  row('overhead: traced p50 ms, direct / service / service sum of hop p50s', (r) => [r.overhead.direct.traced.totalP50Ms, r.overhead.service.traced.totalP50Ms, r.overhead.service.traced.sumOfP50Ms]);
  o0.service.traced.hops.forEach((hop, i) => row(`  hop p50 / p90 ms: ${hop.what}`, (r) => [r.overhead.service.traced.hops[i]!.p50Ms, r.overhead.service.traced.hops[i]!.p90Ms]));
  o0.direct.traced.hops.forEach((hop, i) => row(`  direct hop p50 / p90 ms: ${hop.what}`, (r) => [r.overhead.direct.traced.hops[i]!.p50Ms, r.overhead.direct.traced.hops[i]!.p90Ms]));
  result.rounds[0]!.sweep.forEach((v, i) => {
    const name = `--mcp-workers ${v.mcpWorkers} --worker-nice ${v.workerNice}`;
    row(`${name}: calls/s fixed / sat; /health p99 fixed, sat req/s, sat p99`, (r) => {
      const w = r.sweep[i]!;
      return [w.fixed.calls.perSecond, w.saturation.calls.perSecond, w.fixed.health.p99, w.saturation.rps, w.saturation.p99];
    });
    row(`${name}: hubs CPU % fixed / sat; backend children CPU % fixed / sat`, (r) => {
      const w = r.sweep[i]!;
      return [sum(w.fixed.hubCpuPct), sum(w.saturation.hubCpuPct), w.fixed.childrenCpuPct, w.saturation.childrenCpuPct];
    });
  });
  for (const t of result.targets) {
    rows.push([`TARGET ${t.name}`, ...t.perRound.map(fmt), `${fmt(t.achieved)} ${t.pass ? 'PASS' : 'FAIL'}`, t.rule]);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 2)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

function callRow(f: CallFigures): number[] {
  return [f.serial.p50, f.concurrent.p50, f.concurrent.perSecond];
}

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE: ArgSpec = {
  usage: 'node --import tsx benchmarks/run.ts [--quick] [--rounds <n>] [--source] [--no-write] [--cpu-prof]   (npm run bench -- ...)',
  flags: ['--quick', '--source', '--no-write', '--cpu-prof'],
  options: ['--rounds'],
};

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  checkArgs(USAGE, argv);
  const quick = argv.includes('--quick');
  const roundsAt = argv.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : undefined;
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1)) throw new Error('--rounds takes a whole number ≥ 1');
  const entry: Entry = argv.includes('--source') ? 'source' : 'dist';
  const write = !argv.includes('--no-write');
  const cpuProfDir = argv.includes('--cpu-prof') ? path.join(BENCH, '.tmp/profiles', new Date().toISOString().replace(/[:.]/g, '-')) : undefined;
  const result = await runBench({ quick, entry, ...(rounds ? { rounds } : {}), ...(cpuProfDir ? { cpuProfDir } : {}) });
  if (cpuProfDir) process.stdout.write(`\nCPU profiles in ${path.relative(ROOT, cpuProfDir)}; summarize one with: node --import tsx benchmarks/lib/profile-summary.ts <file>\n`);
  const m = result.machine;
  process.stdout.write(
    `\n${m.cpus} × ${m.model}, ${m.memoryGB} GB, Node ${m.node}, ${m.platform} ${m.kernel}; ${quick ? 'quick' : 'full'} run, ${result.rounds.length} round(s), entry ${entry}; ` +
      `load average ${result.loadAverage.start} before, ${result.loadAverage.end} after\n\n${result.table}\n`,
  );
  if (write) {
    const dir = path.join(BENCH, 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${result.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
    fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\nwritten ${path.relative(ROOT, file)}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`benchmark failed: ${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
