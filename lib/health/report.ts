// Builds the health bodies from the state table, by detail level (decisions §3). Pure: the
// clock and the process facts come in as arguments so every level can be table-tested.
import type { BackendState, StateTable } from '../bus/state-table.ts';
import type { HealthLevel } from './levels.ts';
import { isHealthy, isReady, type OverallStatus, overallStatus, serverStatus } from './status.ts';

export type ProcessFacts = {
  uptimeSeconds: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  pid: number;
  nodeVersion: string;
  platform: string;
  arch: string;
  version: string;
};

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const MB = 1024 * 1024;
const round = (n: number, decimals: number) => Math.round(n * 10 ** decimals) / 10 ** decimals;

function system(facts: ProcessFacts, level: HealthLevel) {
  const out: Record<string, unknown> = { uptime: round(facts.uptimeSeconds, 3) };
  if (level === 'minimal') return out;
  const decimals = level === 'full' ? 2 : 0;
  const percentage = facts.heapTotalBytes > 0 ? (facts.heapUsedBytes / facts.heapTotalBytes) * 100 : 0;
  out.memory = {
    used: round(facts.heapUsedBytes / MB, decimals),
    total: round(facts.heapTotalBytes / MB, decimals),
    percentage: round(percentage, decimals),
  };
  if (level === 'full') {
    out.process = { pid: facts.pid, nodeVersion: facts.nodeVersion, platform: facts.platform, arch: facts.arch };
  }
  return out;
}

function detail(b: BackendState, now: number) {
  return {
    name: b.name,
    status: serverStatus(b),
    healthy: isHealthy(b, now),
    lastConnected: iso(b.lastConnected),
    lastError: b.lastError,
    tags: b.tags,
  };
}

export type HealthReport = { httpStatus: 200 | 503; status: OverallStatus; body: Record<string, unknown> };

export function buildHealthReport(table: StateTable, level: HealthLevel, now: number, facts: ProcessFacts): HealthReport {
  const backends = [...table.backends.values()];
  let healthy = 0;
  for (const b of backends) if (isHealthy(b, now)) healthy++;
  const { status, httpStatus } = overallStatus(table.configuration.loaded, backends.length, healthy);
  const servers: Record<string, unknown> = { total: backends.length, healthy, unhealthy: backends.length - healthy };
  if (level !== 'minimal') servers.details = backends.map((b) => detail(b, now));
  return {
    httpStatus,
    status,
    body: {
      status,
      timestamp: new Date(now).toISOString(),
      version: facts.version,
      system: system(facts, level),
      servers,
      configuration: { ...table.configuration },
    },
  };
}

export function supervisionSummary(backends: Iterable<BackendState>, level: HealthLevel) {
  const counts = { total: 0, connected: 0, restarting: 0, crashLoop: 0, stopped: 0 };
  const entries: Record<string, unknown>[] = [];
  for (const b of backends) {
    const s = b.supervision;
    if (!s) continue;
    counts.total++;
    if (s.state !== 'starting') counts[s.state]++;
    if (level !== 'minimal') entries.push(supervisionEntry(b, level));
  }
  return level === 'minimal' ? counts : { ...counts, backends: entries };
}

export function supervisionEntry(b: BackendState, level: HealthLevel): Record<string, unknown> {
  const s = b.supervision;
  const exit = b.lastExit;
  const entry: Record<string, unknown> = {
    name: b.name,
    state: s?.state ?? null,
    attempt: s?.attempt ?? null,
    limit: s?.limit ?? null,
    nextRetryAt: iso(s?.nextRetryAt ?? null),
    lastExit: exit ? { code: exit.code, signal: exit.signal, at: iso(exit.at), ...(level === 'full' ? { pid: exit.pid } : {}) } : null,
    lastError: b.lastError,
  };
  if (level === 'full') entry.pid = b.pid;
  return entry;
}

export function buildReadinessReport(table: StateTable, level: HealthLevel, now: number) {
  const ready = isReady(table.configuration, table.backends.values());
  return {
    httpStatus: ready ? 200 : 503,
    body: {
      status: ready ? 'ready' : 'not_ready',
      timestamp: new Date(now).toISOString(),
      configuration: { ...table.configuration },
      backendSupervision: supervisionSummary(table.backends.values(), level),
    },
  } as const;
}

export function buildLivenessReport(now: number) {
  return { status: 'alive', timestamp: new Date(now).toISOString() } as const;
}
