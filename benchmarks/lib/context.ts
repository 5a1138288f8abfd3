// What a scenario module gets from the harness (benchmarks/run.ts): the run's marker and scratch
// directory, its log, how to run a service for the length of a body, and the probing settings
// every scenario shares.
import path from 'node:path';
import { steadyRss } from './phases.ts';
import { type Agent, type AgentOptions, type Entry, type ServerEntry, startAgent, type StopReport, waitHealthy } from './service.ts';
import { sleep } from './stats.ts';

/** More than the servers: flags, the hop-trace preload, CPU profiles. */
export type AgentExtras = Pick<AgentOptions, 'serveArgs' | 'traceDir' | 'cpuProfDir'>;

/** Starts a service on `servers`, waits for `expect` healthy and the settle time, runs `body`, always stops it. */
export type WithAgent = <T>(
  what: string,
  servers: Record<string, ServerEntry>,
  expect: string[],
  body: (agent: Agent, readyMs: number, rssMB: number) => Promise<T>,
  extra?: AgentExtras,
) => Promise<T>;

export type ScenarioContext = {
  marker: string;
  tmp: string;
  log: (line: string) => void;
  withAgent: WithAgent;
  /** Probes per second on /health and on /health/live in fixed-rate phases. */
  fixedRate: number;
  /** autocannon's connections in saturation phases. */
  connections: number;
};

export type RunnerOptions = {
  entry: Entry;
  marker: string;
  tmp: string;
  readyTimeoutMs: number;
  /** Wait after "ready" before RSS is read and the body starts. */
  settleMs: number;
  /** Every service writes V8 CPU profiles under here, one directory per `what`. */
  cpuProfDir?: string;
  log: (line: string) => void;
  /** Each service's stop report is pushed here. */
  stops: StopReport[];
};

export function agentRunner(o: RunnerOptions): WithAgent {
  const start = async (what: string, servers: Record<string, ServerEntry>, expect: string[], extra: AgentExtras, cpuProfDir: string | undefined) => {
    const agent = await startAgent({ entry: o.entry, servers, marker: o.marker, tmp: o.tmp, ...extra, ...(cpuProfDir ? { cpuProfDir } : {}) });
    try {
      return { agent, readyMs: await waitHealthy(agent, expect, o.readyTimeoutMs) };
    } catch (error) {
      await stop(what, agent);
      throw error;
    }
  };
  const stop = async (what: string, agent: Agent) => {
    const report = await agent.stop();
    o.stops.push(report);
    if (report.leftovers.length) o.log(`  ${what}: ${report.leftovers.length} process(es) outlived the service and were killed: ${report.leftovers.join(' ')}`);
  };
  return async (what, servers, expect, body, extra = {}) => {
    o.log(what);
    const cpuProfDir = extra.cpuProfDir ?? (o.cpuProfDir ? path.join(o.cpuProfDir, what.replace(/[^a-z0-9]+/gi, '-')) : undefined);
    // A service that does not get ready is reported in the log and started once more, so one
    // such start does not lose the run's other figures; a second one ends the run.
    const started = await start(what, servers, expect, extra, cpuProfDir).catch(async (error: Error) => {
      o.log(`  ${what}: FAILED TO GET READY, starting it once more: ${error.message}`);
      return start(what, servers, expect, extra, cpuProfDir);
    });
    try {
      await sleep(o.settleMs);
      const rss = await steadyRss(started.agent.pid);
      return await body(started.agent, started.readyMs, rss);
    } finally {
      await stop(what, started.agent);
    }
  };
}
