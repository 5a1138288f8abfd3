// What is known of one backend, as plain data: the main thread's state table holds it (health
// reads it), and the CLI and the hub receive copies.
import type { ToolPolicy } from './tool-policy.ts';
import type { Inventory } from './messages/calls.ts';
import type { ExitInfo, InventoryCounts } from './messages/state-events.ts';

export type BackendPhase =
  | 'invalid' // the configuration entry is invalid: never started
  | 'queued' // waits for the instance it replaces to stop
  | 'starting' // the worker thread is loading
  | 'connecting'
  | 'connected'
  | 'failed' // spawn, initialize or transport failure
  | 'exited' // the child exited after connecting
  | 'awaiting_oauth'
  | 'stopping'
  | 'stopped';

export type SupervisionState = 'starting' | 'connected' | 'restarting' | 'crashLoop' | 'stopped';

export type SupervisionFacts = {
  state: SupervisionState;
  attempt: number;
  /** null = unlimited. */
  limit: number | null;
  nextRetryAt: number | null;
};

export type BackendState = {
  name: string;
  tags: string[];
  phase: BackendPhase;
  /** True until the first connection attempt has ended (for `/health/mcp` loading). */
  firstConnect: boolean;
  lastConnected: number | null;
  /** For the operator (status, log): credentials redacted, paths kept. */
  lastError: string | null;
  /** The same, sanitized in full (decisions §4): what health and other network answers show. */
  lastErrorPublic: string | null;
  /** Last critical error other than an exit (transport failure, broken connection): counts 60 s. */
  lastCriticalAt: number | null;
  /** Last exit of the child (or death of its worker): counts until a replacement stayed connected 10 s. */
  exitCriticalAt: number | null;
  /** Routed calls that timed out in a row; three count as a critical error for 60 s after the last. */
  consecutiveTimeouts: number;
  lastTimeoutAt: number | null;
  missedPings: number;
  pid: number | null;
  lastExit: ExitInfo | null;
  /** Present for supervised backends (stdio with restartOnExit). */
  supervision: SupervisionFacts | null;
  /** The lists (a hub's view; the main thread keeps only their counts). */
  inventory: Inventory | null;
  /** How many tools, resources and prompts the backend offered when last heard of. */
  counts: InventoryCounts | null;
  /** disabledTools and toolDescriptionOverrides of the server's configuration. */
  toolPolicy: ToolPolicy;
  instructions: string | null;
  /** The server's entry turned invalid in a reload: why (credentials redacted); the backend runs on with its last good entry. Null otherwise. */
  entryError?: string | null;
  /** What the backend declared at its last connect (a hub's view; kept while it is down). */
  capabilities?: Record<string, unknown> | null;
  protocolVersion: string | null;
};

export type ConfigurationSummary = {
  loaded: boolean;
  serverCount: number;
  enabledCount: number;
  disabledCount: number;
  authEnabled: boolean;
  transport: 'http';
};

/** The MCP workers (hubs, `--mcp-workers`): how many the service runs, and how many serve clients now. */
export type McpWorkers = { total: number; up: number };

export const UNLOADED_CONFIGURATION: ConfigurationSummary = Object.freeze({
  loaded: false,
  serverCount: 0,
  enabledCount: 0,
  disabledCount: 0,
  authEnabled: false,
  transport: 'http',
});

export function newBackendState(name: string, tags: string[], supervision: SupervisionFacts | null): BackendState {
  return {
    name,
    tags,
    phase: 'starting',
    firstConnect: true,
    lastConnected: null,
    lastError: null,
    lastErrorPublic: null,
    lastCriticalAt: null,
    exitCriticalAt: null,
    consecutiveTimeouts: 0,
    lastTimeoutAt: null,
    missedPings: 0,
    pid: null,
    lastExit: null,
    supervision,
    inventory: null,
    counts: null,
    toolPolicy: { disabledTools: [], toolDescriptionOverrides: {} },
    instructions: null,
    protocolVersion: null,
  };
}
