// `overhead` (issue 13): one client (mcp-load.mjs, its own process) calling `echo` on a healthy
// fixture directly over stdio, then through the service (one backend), with 1 and then `callers`
// concurrent callers: the latency the service adds per call. Then a run of traced calls, one at a
// time, on each path, for the per-hop breakdown (lib/hops.ts). The fixture and the service
// (trace-preload.mjs) carry the trace hooks in both runs; untraced calls cost them a type check.
// Last, the same calls (untraced) through thin-gateway.mjs, the thinnest HTTP gateway: what the
// HTTP legs alone add, the floor under the service's figure.
import fs from 'node:fs';
import path from 'node:path';
import type { ScenarioContext } from '../lib/context.ts';
import { breakdown, DIRECT_PATH, type HopBreakdown, SERVICE_PATH } from '../lib/hops.ts';
import { type CallWindow, type LoadConfig, type LoadProcess, startLoad } from '../lib/load-client.ts';
import { FIXTURES, fixtureServer, type StopReport, startBare } from '../lib/service.ts';
import { sleep } from '../lib/stats.ts';

export type OverheadOptions = {
  textBytes: number;
  warmupCalls: number;
  serialSeconds: number;
  concurrentSeconds: number;
  callers: number;
  traceCalls: number;
  /** More `agent serve` flags for the service path (`--worker-nice 0`); none by default. */
  serveArgs?: string[];
};

export type PathFigures = { serial: CallWindow; concurrent: CallWindow; traced: HopBreakdown };
export type Overhead = { textBytes: number; callers: number; direct: PathFigures; service: PathFigures; thin: Omit<PathFigures, 'traced'> };

// Trace files are flushed every 200 ms: wait a little more before reading them.
const FLUSH_MS = 500;

async function measure(load: LoadProcess, o: OverheadOptions, traceDir: string, route: [string, string][]): Promise<PathFigures> {
  try {
    const serial = await load.run(1, o.serialSeconds);
    const concurrent = await load.run(o.callers, o.concurrentSeconds);
    const client = await load.trace(o.traceCalls);
    await sleep(FLUSH_MS);
    return { serial, concurrent, traced: breakdown(traceDir, client, route) };
  } finally {
    await load.stop();
  }
}

export async function overhead(ctx: ScenarioContext, o: OverheadOptions, what: string, stops: StopReport[]): Promise<Overhead> {
  const dirs = { direct: path.join(ctx.tmp, `trace-direct-${Date.now()}`), service: path.join(ctx.tmp, `trace-service-${Date.now()}`) };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  const common: Omit<LoadConfig, 'tools'> = { clients: 1, textBytes: o.textBytes, warmupCalls: o.warmupCalls, maxSeconds: o.serialSeconds + o.concurrentSeconds + 120 };

  ctx.log(`${what}: direct stdio`);
  const directLoad = await startLoad({ ...common, tools: ['echo'], direct: { fixture: FIXTURES.healthy, env: { FIXTURE_NAME: 'direct', BENCH_TRACE_DIR: dirs.direct } } }, ctx.marker);
  const direct = await measure(directLoad, o, dirs.direct, DIRECT_PATH);

  const servers = { h0: fixtureServer(FIXTURES.healthy, 'h0', ctx.marker, {}, { BENCH_TRACE_DIR: dirs.service }) };
  const service = await ctx.withAgent(
    `${what}: through the service`,
    servers,
    ['h0'],
    async (agent) => measure(await startLoad({ ...common, tools: ['h0_agent_echo'], url: `${agent.base}/mcp` }, ctx.marker), o, dirs.service, SERVICE_PATH),
    { traceDir: dirs.service, ...(o.serveArgs ? { serveArgs: o.serveArgs } : {}) },
  );

  ctx.log(`${what}: thin gateway`);
  const gateway = await startBare('', { marker: ctx.marker, tmp: ctx.tmp, thinGateway: FIXTURES.healthy });
  let thin: Overhead['thin'];
  try {
    const load = await startLoad({ ...common, tools: ['echo'], url: `${gateway.base}/mcp` }, ctx.marker);
    try {
      thin = { serial: await load.run(1, o.serialSeconds), concurrent: await load.run(o.callers, o.concurrentSeconds) };
    } finally {
      await load.stop();
    }
  } finally {
    stops.push(await gateway.stop());
  }
  return { textBytes: o.textBytes, callers: o.callers, direct, service, thin };
}
