// What a backend worker tells the main thread (state events, for the state table health is
// built from) and what the main thread asks of it (over comlink). Calls do not come this way:
// they go between the hubs and the worker directly (calls.ts).
import type { MessagePort } from 'node:worker_threads';
import type { BackendSpec } from '../backend-spec.ts';
import type { LogLevel } from '../logger.ts';
import type { StderrLimits } from '../stderr-limits.ts';
import type { BackendCall, CallOutcome, Inventory, ProgressParams } from './calls.ts';

export const BUS_PROTOCOL_VERSION = 1 as const;

/** Errors cross threads as plain data. */
export type WireError = { name: string; code?: string; message: string };

export type ExitInfo = { code: number | null; signal: string | null; at: number; pid: number | null };

/** How many tools, resources and prompts a backend offers (the lists go to the hubs). */
export type InventoryCounts = { tools: number; resources: number; prompts: number; resourceTemplates: number };

type Versioned<T> = T & { v: typeof BUS_PROTOCOL_VERSION };

/** What the runner (the connection) reports inside the worker; the worker splits it between the main thread and the hubs. */
export type RunnerEvent = Versioned<
  /** A child was spawned (stdio) or a transport opened (remote); MCP initialize is under way. */
  | { type: 'connecting'; at: number; pid: number | null }
  | { type: 'connected'; at: number; pid: number | null; protocolVersion: string | null; instructions: string | null; inventory: Inventory; capabilities: Record<string, unknown> }
  | { type: 'inventory'; inventory: Inventory }
  | { type: 'ping'; at: number; ok: boolean; error: WireError | null }
  /** Connecting failed or the connection broke. `authRequired` marks an HTTP 401. */
  | { type: 'failed'; at: number; error: WireError; authRequired: boolean; exit: ExitInfo | null }
  | { type: 'exited'; at: number; exit: ExitInfo; error: WireError | null }
  | { type: 'stopped'; at: number }
  | { type: 'log'; level: LogLevel; msg: string; fields: Record<string, unknown> }
  /** Progress of a routed call that asked for it. */
  | { type: 'progress'; callId: number; progress: ProgressParams }
  /** A logging message (`notifications/message`) the backend sent. */
  | { type: 'backendLog'; params: Record<string, unknown> }
  /** A resource some client subscribed to changed (`notifications/resources/updated`). */
  | { type: 'resourceUpdated'; uri: string }
  /** A task of the backend changed status (`notifications/tasks/status`). */
  | { type: 'taskStatus'; params: Record<string, unknown> }
  /**
   * Routed calls' health: sent when the run of consecutive request timeouts changes (a timeout
   * adds one, any answered call resets it to 0). Three in a row is a critical error (decisions §3).
   */
  | { type: 'callHealth'; at: number; consecutiveTimeouts: number }
>;

/** backend worker → main thread (on parentPort): state, never calls or lists. */
export type WorkerEvent =
  | Exclude<RunnerEvent, { type: 'connected' | 'inventory' | 'progress' | 'backendLog' | 'resourceUpdated' | 'taskStatus' }>
  | Versioned<
      /**
       * The worker has loaded everything and its API is exposed. `codeCache`: how its bundle was
       * compiled (lib/backend/code-cache-hook.ts); null when it runs from source.
       */
      | { type: 'ready'; tid: number | null; codeCache?: 'accepted' | 'rejected' | 'none' | null }
      /** A V8 code cache of the backend bundle this worker made, for the next workers (workers/script-loader.cjs). */
      | { type: 'codeCache'; data: SharedArrayBuffer }
      | { type: 'connected'; at: number; pid: number | null; protocolVersion: string | null; counts: InventoryCounts }
      | { type: 'inventory'; counts: InventoryCounts }
    >;

/**
 * main thread → a backend worker (on its parentPort), with --backends-per-worker only: run one
 * more backend (its state events go on `events`), or let go of one that has been stopped.
 */
export type MainToBackendWorker = { type: 'host'; data: BackendWorkerData; events: MessagePort } | { type: 'release'; name: string };

export function countsOf(inventory: Inventory): InventoryCounts {
  return { tools: inventory.tools.length, resources: inventory.resources.length, prompts: inventory.prompts.length, resourceTemplates: inventory.resourceTemplates.length };
}

/** `--max-message-bytes` when the service passes none. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** `--input-timeout` when the service passes none: how long a parked question waits for a retry. */
export const DEFAULT_INPUT_TIMEOUT_MS = 300_000;

/** What the worker receives at start in `workerData`. */
export type BackendWorkerData = {
  spec: BackendSpec;
  api: MessagePort;
  log: { level: LogLevel; format: 'json' | 'pretty' };
  /** Interval of the liveness ping, ms (30 s in production). */
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** Largest JSON-RPC message accepted from the backend, bytes (`--max-message-bytes`). */
  maxMessageBytes: number;
  /** Where the worker records its child (pid and start time) so a later service can end orphans; null = not recorded. */
  stateDir: string | null;
  /** Nice value of the worker's thread and its child (`--worker-nice`, or the server's `nice`). */
  nice: number;
  /** How long a parked question of the backend waits for the client's retry (`--input-timeout`). */
  inputTimeoutMs?: number;
  /** The backend's effective stderr limits at start; later changes come through `setStderrLimits`. */
  stderrLimits: StderrLimits;
  /** Start the backend as soon as the worker has loaded, without waiting for the main thread's `start()`. */
  autoStart?: boolean;
};

export type StopOptions = { graceMs: number };

/** Requests the main thread makes of a backend worker (over comlink). */
export interface BackendApi {
  start(): Promise<void>;
  stop(options: StopOptions): Promise<void>;
  /** A hub's end of a direct channel (calls.ts); replaces that hub's previous one. */
  attachHub(hub: number, port: MessagePort): void;
  /** The backend's current lists (`agent mcp tools list`); null before it connected. */
  inventory(): Inventory | null;
  /** New effective stderr limits: the running capture switches at once, the child keeps running. */
  setStderrLimits(limits: StderrLimits): void;
}

export type { BackendCall, CallOutcome };

// fetch's 'fetch failed' says nothing of why (refused, DNS, TLS): its cause does, also when
// another error wraps it ('Version negotiation probe failed: fetch failed').
function withCause(error: Error): string {
  if (!error.message.endsWith('fetch failed')) return error.message;
  let at: unknown = error;
  for (let depth = 0; depth < 4 && at instanceof Error; depth++) {
    const cause: unknown = (at as { cause?: unknown }).cause;
    if (cause instanceof Error && !cause.message.endsWith('fetch failed')) {
      const code = (cause as { code?: unknown }).code;
      const why = cause.message || (typeof code === 'string' ? code : cause.name);
      return `${error.message}: ${why}${typeof code === 'string' && !why.includes(code) ? ` (${code})` : ''}`;
    }
    at = cause;
  }
  return error.message;
}

export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: withCause(error), ...(code !== undefined ? { code: String(code) } : {}) };
  }
  return { name: 'Error', message: String(error) };
}
