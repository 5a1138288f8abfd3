// The in-memory state the health endpoints read. Only the main thread writes it, from worker
// events; a probe reads it and never waits on a worker (decisions §1).
import { type BackendState, type ConfigurationSummary, type McpWorkers, UNLOADED_CONFIGURATION } from '../shared/backend-state.ts';

export class StateTable {
  readonly backends = new Map<string, BackendState>();
  configuration: ConfigurationSummary = UNLOADED_CONFIGURATION;
  /** Names of disabled servers (reported only through the configuration counts). */
  readonly disabled = new Set<string>();
  /** The MCP workers (hubs): how many the service runs and how many are up to serve clients. */
  mcpWorkers: McpWorkers = { total: 0, up: 0 };
}
