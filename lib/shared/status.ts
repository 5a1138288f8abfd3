// Pure status computations of service.md "States and transitions" and decisions §3.
import type { BackendState, ConfigurationSummary, McpWorkers } from './backend-state.ts';

export type ServerStatus = 'connected' | 'error' | 'disconnected' | 'awaiting_oauth';
export type OverallStatus = 'healthy' | 'degraded' | 'unhealthy';

export const CRITICAL_ERROR_WINDOW_MS = 60_000;
export const MAX_MISSED_PINGS = 2;
/** How long a replacement must stay connected before its predecessor's exit stops counting. */
export const EXIT_RECOVERY_MS = 10_000;
/** Consecutive request timeouts that make a critical error. */
export const TIMEOUTS_CRITICAL = 3;

export function serverStatus(b: Pick<BackendState, 'phase' | 'supervision'>): ServerStatus {
  if (b.supervision?.state === 'crashLoop') return 'error';
  switch (b.phase) {
    case 'connected':
      return 'connected';
    case 'queued':
    case 'starting':
    case 'connecting':
    case 'stopping':
    case 'stopped':
      return 'disconnected';
    case 'invalid':
    case 'failed':
    case 'exited':
      // A supervised backend waiting for its restart is not in error: it is on its way back.
      return b.supervision?.state === 'restarting' ? 'disconnected' : 'error';
    case 'awaiting_oauth':
      return 'awaiting_oauth';
  }
}

export type HealthFacts = Pick<
  BackendState,
  'phase' | 'supervision' | 'lastConnected' | 'lastCriticalAt' | 'exitCriticalAt' | 'consecutiveTimeouts' | 'lastTimeoutAt' | 'missedPings'
>;

/** Whether a critical error still counts against a backend at `now` (decisions §3, revised in wave 2). */
export function hasCriticalError(b: HealthFacts, now: number): boolean {
  if (b.lastCriticalAt !== null && now - b.lastCriticalAt < CRITICAL_ERROR_WINDOW_MS) return true;
  // A child's exit counts until its replacement has stayed connected for 10 s.
  if (b.exitCriticalAt !== null && (b.lastConnected === null || b.lastConnected < b.exitCriticalAt || now - b.lastConnected < EXIT_RECOVERY_MS)) return true;
  return b.consecutiveTimeouts >= TIMEOUTS_CRITICAL && b.lastTimeoutAt !== null && now - b.lastTimeoutAt < CRITICAL_ERROR_WINDOW_MS;
}

export function isHealthy(b: HealthFacts, now: number): boolean {
  return serverStatus(b) === 'connected' && !hasCriticalError(b, now) && b.missedPings < MAX_MISSED_PINGS;
}

export function overallStatus(loaded: boolean, total: number, healthy: number): { status: OverallStatus; httpStatus: 200 | 503 } {
  if (!loaded) return { status: 'unhealthy', httpStatus: 503 };
  if (total === 0) return { status: 'degraded', httpStatus: 200 };
  if (healthy === total) return { status: 'healthy', httpStatus: 200 };
  // More than half healthy is degraded; exactly half or fewer is unhealthy (integer math, no float edge).
  if (healthy * 2 > total) return { status: 'degraded', httpStatus: 200 };
  return { status: 'unhealthy', httpStatus: 503 };
}

/**
 * The spec's readiness, and one more supervised part: the MCP workers (hubs) are supervised like a
 * backend (decisions §1), so with none up (the service starting, or every hub restarting) MCP
 * clients get 503 and the service is not ready. `mcpWorkers` absent: not counted.
 */
export function isReady(configuration: ConfigurationSummary, backends: Iterable<Pick<BackendState, 'supervision'>>, mcpWorkers?: McpWorkers): boolean {
  if (!configuration.loaded) return false;
  if (mcpWorkers && mcpWorkers.total > 0 && mcpWorkers.up === 0) return false;
  for (const b of backends) {
    const state = b.supervision?.state;
    if (state === 'restarting' || state === 'crashLoop') return false;
  }
  return true;
}

/**
 * True while a backend's first connection attempt is under way: the worker is loading or the
 * backend is connecting, no attempt has ended yet, and supervision (if any) has not seen an
 * outcome either (a supervised backend that is restarting is not on its first connect, even if
 * its first attempt never succeeded).
 */
export function firstConnectInProgress(b: Pick<BackendState, 'phase' | 'firstConnect' | 'supervision'>): boolean {
  return b.firstConnect && (b.phase === 'queued' || b.phase === 'starting' || b.phase === 'connecting') && (b.supervision === null || b.supervision.state === 'starting');
}
