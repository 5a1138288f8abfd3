// Every message that crosses the thread boundary between the main thread and a backend worker.
// Events flow worker → main on `parentPort`; requests flow main → worker over comlink (BackendApi).
import type { MessagePort } from 'node:worker_threads';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { BackendSpec } from '../config/types.ts';
import type { LogLevel } from './logger.ts';

export const BUS_PROTOCOL_VERSION = 1 as const;

/** Errors cross threads as plain data. */
export type WireError = { name: string; code?: string; message: string };

export type Inventory = {
  tools: Tool[];
  resources: Resource[];
  prompts: Prompt[];
  resourceTemplates: ResourceTemplate[];
};

/** The requests a client can route to one backend. */
export type BackendMethod = 'tools/call' | 'resources/read' | 'prompts/get' | 'completion/complete';

export type BackendCall = {
  /** Unique per handle; names the call in progress events and `cancel`. */
  callId: number;
  method: BackendMethod;
  params: Record<string, unknown>;
  /** Forward the backend's progress notifications as `progress` events. */
  wantsProgress: boolean;
};

/** How a routed request failed, as plain data. `code` is the JSON-RPC error code to answer with. */
export type CallError = { kind: 'mcp' | 'timeout' | 'disconnected' | 'cancelled' | 'internal'; code: number; message: string; data?: unknown };
/**
 * `eventSeq` counts the events the worker had posted when the call ended. Progress and log
 * events travel on another port than the outcome, so the main thread waits until it has seen
 * that many before answering: none arrives after the response (where a client would drop it).
 */
export type CallOutcome = ({ ok: true; result: Record<string, unknown> } | { ok: false; error: CallError }) & { eventSeq?: number };

export type ProgressParams = { progress: number; total?: number; message?: string };

export type ExitInfo = { code: number | null; signal: string | null; at: number; pid: number | null };

type Versioned<T> = T & { v: typeof BUS_PROTOCOL_VERSION };

export type WorkerEvent = Versioned<
  /** The worker has loaded everything and its API is exposed. */
  | { type: 'ready' }
  /** A child was spawned (stdio) or a transport opened (remote); MCP initialize is under way. */
  | { type: 'connecting'; at: number; pid: number | null }
  | { type: 'connected'; at: number; pid: number | null; protocolVersion: string | null; instructions: string | null; inventory: Inventory }
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
  /**
   * Routed calls' health: sent when the run of consecutive request timeouts changes (a timeout
   * adds one, any answered call resets it to 0). Three in a row is a critical error (decisions §3).
   */
  | { type: 'callHealth'; at: number; consecutiveTimeouts: number }
>;

/** `--max-message-bytes` when the service passes none. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

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
};

export type StopOptions = { graceMs: number };

/** Requests the main thread makes of a backend worker (over comlink). */
export interface BackendApi {
  start(): Promise<void>;
  stop(options: StopOptions): Promise<void>;
  /** Never rejects: failures come back as `{ok: false, error}`. */
  request(call: BackendCall): Promise<CallOutcome>;
  cancel(callId: number): void;
  /** Fault injection (tests): end the worker thread as a crashing library would. */
  injectFault(kind: 'worker-exit' | 'worker-throw'): void;
}

export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(code !== undefined ? { code: String(code) } : {}) };
  }
  return { name: 'Error', message: String(error) };
}
