// Builds the health bodies from the state table, by detail level (decisions §3). Pure: the
// clock and the process facts come in as arguments so every level can be table-tested.
import { Code, errorBody, Messages } from '../../shared/errors.ts';
import type { BackendState, McpWorkers } from '../../shared/backend-state.ts';
import type { StateTable } from '../state-table.ts';
import type { HealthLevel } from './levels.ts';
import { firstConnectInProgress, isHealthy, isReady, type OverallStatus, overallStatus, type ServerStatus, serverStatus } from '../../shared/status.ts';

export { firstConnectInProgress };

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
    lastError: b.lastErrorPublic,
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
    lastError: b.lastErrorPublic,
  };
  if (level === 'full') entry.pid = b.pid;
  return entry;
}

export function buildReadinessReport(table: StateTable, level: HealthLevel, now: number) {
  const ready = isReady(table.configuration, table.backends.values(), table.mcpWorkers);
  return {
    httpStatus: ready ? 200 : 503,
    body: {
      status: ready ? 'ready' : 'not_ready',
      timestamp: new Date(now).toISOString(),
      configuration: { ...table.configuration },
      backendSupervision: supervisionSummary(table.backends.values(), level),
      // An extension of the spec's report: the MCP workers, which readiness counts too.
      mcpWorkers: { ...table.mcpWorkers },
    },
  } as const;
}

export function buildLivenessReport(now: number) {
  return { status: 'alive', timestamp: new Date(now).toISOString() } as const;
}

// ---------------------------------------------------------------------------------------------
// GET /health/mcp and GET /health/mcp/:serverName (decisions §3)
// ---------------------------------------------------------------------------------------------

/**
 * The per-server `state` of the `/health/mcp*` bodies: the supervision state of a supervised
 * backend once supervision has left `starting`, otherwise one derived from the server status,
 * with `connecting` for a first connection in progress; `disabled` only for a disabled server.
 */
export type McpServerState = ServerStatus | 'connecting' | 'restarting' | 'crashLoop' | 'stopped' | 'disabled';

type StateFacts = Pick<BackendState, 'phase' | 'firstConnect' | 'supervision'>;

export function mcpServerState(b: StateFacts): McpServerState {
  const supervised = b.supervision?.state;
  if (supervised !== undefined && supervised !== 'starting') return supervised;
  if (firstConnectInProgress(b)) return 'connecting';
  return serverStatus(b);
}

export type McpLoadingCounts = {
  complete: number;
  total: number;
  pending: number;
  connecting: number;
  ready: number;
  failed: number;
  awaitingOAuth: number;
};

/**
 * The `loading` counts of GET /health/mcp, over the enabled backends (the state table holds
 * no disabled server):
 * - total: enabled backends, invalid entries included (they show as status `error`);
 * - pending: backends whose first connection has not started yet (phase `queued`: a replacement
 *   waiting for the instance it replaces to stop);
 * - connecting: first connection under way (`firstConnectInProgress`, not queued);
 * - complete: total - connecting - pending, i.e. the first attempt has ended, whatever its outcome;
 * - ready: server status `connected`;
 * - failed: server status `error` (invalid entry, failed start or initialize, unsupervised
 *   exit, transport error, crash loop; a supervised backend waiting for its restart is not);
 * - awaitingOAuth: server status `awaiting_oauth`.
 * ready + failed + awaitingOAuth can be below complete: a restarting, stopping or stopped
 * backend, or a remote one reconnecting, is complete but in none of the three.
 */
export function mcpLoadingCounts(backends: Iterable<StateFacts>): McpLoadingCounts {
  const counts = { complete: 0, total: 0, pending: 0, connecting: 0, ready: 0, failed: 0, awaitingOAuth: 0 };
  for (const b of backends) {
    counts.total++;
    if (firstConnectInProgress(b)) {
      if (b.phase === 'queued') counts.pending++;
      else counts.connecting++;
      continue;
    }
    const status = serverStatus(b);
    if (status === 'connected') counts.ready++;
    else if (status === 'error') counts.failed++;
    else if (status === 'awaiting_oauth') counts.awaitingOAuth++;
  }
  counts.complete = counts.total - counts.connecting - counts.pending;
  return counts;
}

export type McpLoadingStatus = 'loading' | 'degraded' | 'ready';

/**
 * `loading` (202) while any enabled backend is on its first connect, and also while no
 * configuration has loaded yet (loading has not even begun); otherwise `degraded` (200) if any
 * enabled backend is not connected; otherwise `ready` (200), including when no backend is
 * enabled.
 */
export function mcpLoadingStatus(loaded: boolean, counts: McpLoadingCounts, mcpWorkers?: McpWorkers): { status: McpLoadingStatus; httpStatus: 200 | 202 } {
  if (!loaded || counts.connecting > 0 || counts.pending > 0) return { status: 'loading', httpStatus: 202 };
  // Backends ready but no MCP worker up to serve them (every hub restarting): clients get 503.
  if (counts.ready < counts.total || (mcpWorkers && mcpWorkers.total > 0 && mcpWorkers.up === 0)) return { status: 'degraded', httpStatus: 200 };
  return { status: 'ready', httpStatus: 200 };
}

export type McpLoadingReport = { httpStatus: 200 | 202; status: McpLoadingStatus; body: Record<string, unknown> };

export function buildMcpLoadingReport(table: StateTable, level: HealthLevel, now: number): McpLoadingReport {
  const backends = [...table.backends.values()];
  const loading = mcpLoadingCounts(backends);
  const { status, httpStatus } = mcpLoadingStatus(table.configuration.loaded, loading, table.mcpWorkers);
  const body: Record<string, unknown> = {
    status,
    timestamp: new Date(now).toISOString(),
    loading,
    backendSupervision: supervisionSummary(backends, level),
    mcpWorkers: { ...table.mcpWorkers },
  };
  if (level !== 'minimal') body.servers = backends.map((b) => ({ name: b.name, state: mcpServerState(b), lastError: b.lastErrorPublic }));
  return { httpStatus, status, body };
}

/** The longest server name echoed back in a 404 message (the name comes from the URL). */
export const MAX_ECHOED_NAME_LENGTH = 100;

export type McpServerReport = { httpStatus: 200 | 202 | 404 | 503; body: Record<string, unknown> };

/**
 * GET /health/mcp/:serverName. 200 connected and healthy, 202 first connect in progress, 503
 * any other state (a connected backend that is not healthy included), 404 for an unknown name.
 * Body `{name, state, timestamp}`; basic adds the backend's supervision entry (no pids) plus
 * `status` and `lastError`, full adds the pids; an unsupervised backend gets only `status` and
 * `lastError`. A disabled server has no backend, so no facts at any level.
 */
export function buildMcpServerReport(table: StateTable, name: string, level: HealthLevel, now: number): McpServerReport {
  const timestamp = new Date(now).toISOString();
  if (table.disabled.has(name)) return { httpStatus: 503, body: { name, state: 'disabled', timestamp } };
  const b = table.backends.get(name);
  if (!b) {
    // Code points, not UTF-16 units, so a cut never leaves half a surrogate pair.
    const shown = [...name].slice(0, MAX_ECHOED_NAME_LENGTH).join('');
    return { httpStatus: 404, body: { ...errorBody(Code.not_found, Messages.serverNotFound(shown)), timestamp } };
  }
  const state = mcpServerState(b);
  const httpStatus = state === 'connecting' ? 202 : state === 'connected' && isHealthy(b, now) ? 200 : 503;
  const body: Record<string, unknown> = { name: b.name, state, timestamp };
  if (level !== 'minimal') {
    if (b.supervision) {
      // The entry's own `name` and raw supervision `state` give way to the report's.
      const { name: _name, state: _state, ...facts } = supervisionEntry(b, level);
      Object.assign(body, facts);
    }
    body.status = serverStatus(b);
    body.lastError = b.lastErrorPublic;
  }
  return { httpStatus, body };
}
