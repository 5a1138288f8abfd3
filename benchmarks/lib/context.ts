// What a scenario module gets from the harness (benchmarks/run.ts): the run's marker and scratch
// directory, its log, how to run a service for the length of a body, and the probing settings
// every scenario shares.
import type { Agent, AgentOptions, ServerEntry } from './service.ts';

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
