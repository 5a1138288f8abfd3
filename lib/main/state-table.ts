// The in-memory state the health endpoints read. Only the main thread writes it, from worker
// events; a probe reads it and never waits on a worker (decisions §1).
import type { ToolPolicy } from '../shared/tool-policy.ts';
import type { ExitInfo, Inventory } from '../shared/messages.ts';

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
  /** Already sanitized. */
  lastError: string | null;
  /** Last critical error (transport failure, broken connection), for the 60 s health window. */
  lastCriticalAt: number | null;
  missedPings: number;
  pid: number | null;
  lastExit: ExitInfo | null;
  /** Present for supervised backends (stdio with restartOnExit). */
  supervision: SupervisionFacts | null;
  inventory: Inventory | null;
  /** disabledTools and toolDescriptionOverrides of the server's configuration. */
  toolPolicy: ToolPolicy;
  instructions: string | null;
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
    lastCriticalAt: null,
    missedPings: 0,
    pid: null,
    lastExit: null,
    supervision,
    inventory: null,
    toolPolicy: { disabledTools: [], toolDescriptionOverrides: {} },
    instructions: null,
    protocolVersion: null,
  };
}

export class StateTable {
  readonly backends = new Map<string, BackendState>();
  configuration: ConfigurationSummary = UNLOADED_CONFIGURATION;
  /** Names of disabled servers (reported only through the configuration counts). */
  readonly disabled = new Set<string>();
}
