// `traffic` (issue 13): healthy backends and MCP clients in another process (mcp-load.mjs, 2025
// sessions) calling `echo` with a 4 KiB text in a closed loop, while /health and /health/live are
// probed at the fixed rate, then while /health is saturated. The same run with other
// `--mcp-workers` / `--worker-nice` values is the sweep; with CPU profiles, the main-thread check.
// With `bareStops`, the bare node:http server (same body as the service's /health) is then
// probed and saturated the same way while the same calls go on: what a probe's latency and a
// server's throughput can be on a machine this busy, whatever the server.
import type { ScenarioContext } from '../lib/context.ts';
import { type CallWindow, startLoad } from '../lib/load-client.ts';
import { saturate } from '../lib/load.ts';
import { type FixedPhase, fixedBoth, healthyServers, phase, type SaturationPhase } from '../lib/phases.ts';
import { startBare, type StopReport } from '../lib/service.ts';
import { sleep } from '../lib/stats.ts';

export type TrafficOptions = {
  backends: number;
  /** MCP clients (one session each, one caller each, client i on backend i). */
  clients: number;
  textBytes: number;
  warmupCalls: number;
  /** The loop runs this long before the first phase. */
  warmupSeconds: number;
  fixedSeconds: number;
  saturationSeconds: number;
  /** Given, the bare server is measured under the same traffic too (the main run, not the sweep); its stop report goes here. */
  bareStops?: StopReport[];
};

export type Variant = { mcpWorkers: number; workerNice: number };

export type TrafficRun = Variant & {
  backends: number;
  clients: number;
  readyMs: number;
  rssMB: number;
  /** The service's PID (its CPU profiles are named after it). */
  pid: number;
  /** Connecting the clients (initialize, in sequence). */
  connectMs: number;
  fixed: FixedPhase & { calls: CallWindow };
  saturation: SaturationPhase & { calls: CallWindow };
  /** The bare server probed and saturated while the same calls went on (`bareStops`). */
  bare: { fixed: FixedPhase & { calls: CallWindow }; saturation: SaturationPhase & { calls: CallWindow } } | null;
};

async function bareUnderTraffic(ctx: ScenarioContext, t: TrafficOptions, body: string, report: () => Promise<CallWindow>, stops: StopReport[]): Promise<NonNullable<TrafficRun['bare']>> {
  const bare = await startBare(body, { marker: ctx.marker, tmp: ctx.tmp });
  try {
    await report(); // the bare server's start, dropped
    const fixed = await phase(bare, () => fixedBoth(`${bare.base}/`, `${bare.base}/`, ctx.fixedRate, t.fixedSeconds));
    const fixedCalls = await report();
    const sat = await phase(bare, () => saturate(`${bare.base}/`, t.saturationSeconds, ctx.connections));
    return { fixed: { ...fixed, calls: fixedCalls }, saturation: { ...sat, calls: await report() } };
  } finally {
    stops.push(await bare.stop());
  }
}

export async function traffic(ctx: ScenarioContext, t: TrafficOptions, variant: Variant, what: string, cpuProfDir?: string): Promise<TrafficRun> {
  const servers = healthyServers(t.backends, ctx.marker);
  const names = Object.keys(servers);
  const serveArgs = ['--mcp-workers', String(variant.mcpWorkers), '--worker-nice', String(variant.workerNice)];
  return ctx.withAgent(
    what,
    servers,
    names,
    async (agent, readyMs, rssMB) => {
      const maxSeconds = t.warmupSeconds + t.fixedSeconds + t.saturationSeconds + 120;
      const load = await startLoad(
        { url: `${agent.base}/mcp`, clients: t.clients, tools: names.map((n) => `${n}_agent_echo`), textBytes: t.textBytes, warmupCalls: t.warmupCalls, maxSeconds },
        ctx.marker,
      );
      try {
        await load.loop(1);
        await sleep(t.warmupSeconds * 1000);
        await load.report(); // the warm-up window, dropped
        const fixedProbes = await phase(agent, () => fixedBoth(`${agent.base}/health`, `${agent.base}/health/live`, ctx.fixedRate, t.fixedSeconds));
        const fixedCalls = await load.report();
        const sat = await phase(agent, () => saturate(`${agent.base}/health`, t.saturationSeconds, ctx.connections));
        const satCalls = await load.report();
        const bare = t.bareStops ? await bareUnderTraffic(ctx, t, await (await fetch(`${agent.base}/health`)).text(), () => load.report(), t.bareStops) : null;
        await load.halt();
        return {
          ...variant,
          backends: t.backends,
          clients: t.clients,
          readyMs,
          rssMB,
          pid: agent.pid,
          connectMs: load.connectMs,
          fixed: { ...fixedProbes, calls: fixedCalls },
          saturation: { ...sat, calls: satCalls },
          bare,
        };
      } finally {
        await load.stop();
      }
    },
    { serveArgs, ...(cpuProfDir ? { cpuProfDir } : {}) },
  );
}
