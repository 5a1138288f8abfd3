// What `agent mcp status` shows of a running service: one entry per configured server. Pure.
import type { BackendState } from '../shared/backend-state.ts';
import type { StateTable } from './state-table.ts';
import { isHealthy, serverStatus } from '../shared/status.ts';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export type BackendStatusView = {
  name: string;
  status: string;
  healthy: boolean;
  tags: string[];
  supervision: { state: string; attempt: number; limit: number | null; nextRetryAt: string | null } | null;
  pid: number | null;
  lastExit: { code: number | null; signal: string | null; at: string | null; pid: number | null } | null;
  lastError: string | null;
  /** The entry turned invalid in a reload; the backend runs on with its last good entry. */
  entryError: string | null;
  protocolVersion: string | null;
  tools: number;
};

/** The configuration's reload history, as the operator needs it. */
export type ReloadFacts = {
  /** When the configuration now served was loaded (ISO), null before the first load. */
  loadedAt: string | null;
  /** A reload rejected since then: the last good configuration stays in service. */
  rejected: { at: string; reason: string } | null;
};

export type StatusView = { live: true; pid: number; version: string; configFile: string; /** The HTTP address, null without HTTP. */ address: string | null; reload: ReloadFacts; servers: BackendStatusView[] };

export function backendStatusView(b: BackendState, now: number): BackendStatusView {
  const s = b.supervision;
  return {
    name: b.name,
    status: serverStatus(b),
    healthy: isHealthy(b, now),
    tags: b.tags,
    supervision: s ? { state: s.state, attempt: s.attempt, limit: s.limit, nextRetryAt: iso(s.nextRetryAt) } : null,
    pid: b.pid,
    lastExit: b.lastExit ? { code: b.lastExit.code, signal: b.lastExit.signal, at: iso(b.lastExit.at), pid: b.lastExit.pid } : null,
    lastError: b.lastError,
    entryError: b.entryError ?? null,
    protocolVersion: b.protocolVersion,
    tools: b.counts?.tools ?? 0,
  };
}

export function statusView(table: StateTable, now: number, facts: { pid: number; version: string; configFile: string; address: string | null; reload: ReloadFacts }): StatusView {
  const servers = [...table.backends.values()].map((b) => backendStatusView(b, now));
  for (const name of table.disabled) {
    servers.push({ name, status: 'disabled', healthy: false, tags: [], supervision: null, pid: null, lastExit: null, lastError: null, entryError: null, protocolVersion: null, tools: 0 });
  }
  servers.sort((a, b) => a.name.localeCompare(b.name));
  return { live: true, ...facts, servers };
}
