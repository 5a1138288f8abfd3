// The direct channel between a hub and a backend worker (one MessagePort pair per hub per
// backend worker): calls, cancellations, their progress and outcome, the backend's logging
// messages, and its connection and inventory, which the hub's catalog is built from. The main
// thread is not on this path (decisions §1). Everything a backend sends about a call travels on
// the port of its outcome, so progress never arrives after the answer.
import { Code, type ErrorCode } from '../errors.ts';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';

export const CALL_PROTOCOL_VERSION = 1 as const;

export type Inventory = {
  tools: Tool[];
  resources: Resource[];
  prompts: Prompt[];
  resourceTemplates: ResourceTemplate[];
  /** The cache hints a 2026-07-28 backend gave with each list (2025 backends give none). */
  cacheHints?: Partial<Record<'tools' | 'resources' | 'prompts' | 'resourceTemplates', CacheHint>>;
};

/** How long a result may be reused, and by whom (2026-07-28 `ttlMs`, `cacheScope`). */
export type CacheHint = { ttlMs?: number; cacheScope?: 'public' | 'private' };

/** The requests a client can route to one backend. */
export type BackendMethod = 'tools/call' | 'resources/read' | 'prompts/get' | 'completion/complete' | 'tasks/get' | 'tasks/result' | 'tasks/list' | 'tasks/cancel' | 'tasks/update';

/** One routed request, as the backend worker runs it. */
export type BackendCall = {
  /** Unique within the worker; names the call in progress and cancellation. */
  callId: number;
  method: BackendMethod;
  params: Record<string, unknown>;
  /** Forward the backend's progress notifications. */
  wantsProgress: boolean;
  /** What the client behind the call can answer (elicitation, sampling, extensions): told to 2026-07-28 backends. */
  clientCapabilities?: Record<string, unknown>;
  /** The least severe log level the client behind the call wants: told to 2026-07-28 backends. */
  logLevel?: string;
};

/** What a backend asks the client for during a call (its server-to-client requests). */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage';

/** The answer to a backend's input request, as plain data. */
export type InputOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: { code: number; message: string; data?: unknown } };

/** How a routed request failed, as plain data. `code` is the JSON-RPC error code to answer with. */
export type CallError = { kind: 'mcp' | 'timeout' | 'disconnected' | 'cancelled' | 'internal'; code: number; message: string; data?: unknown };

/** The catalogue's code of each way a routed request fails (MCP error data and log lines carry it). */
export const CALL_FAILURE: Readonly<Record<CallError['kind'], ErrorCode>> = {
  mcp: Code.backend_error,
  timeout: Code.backend_timeout,
  disconnected: Code.backend_disconnected,
  cancelled: Code.call_cancelled,
  internal: Code.internal,
};

export type CallOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: CallError };

export type ProgressParams = { progress: number; total?: number; message?: string };

/** hub → backend worker */
export type HubToBackend =
  | { type: 'call'; callId: number; method: BackendMethod; params: Record<string, unknown>; wantsProgress: boolean; clientCapabilities?: Record<string, unknown>; logLevel?: string }
  | { type: 'cancel'; callId: number }
  /** The answer to an input request. */
  | { type: 'inputResponse'; requestId: number; outcome: InputOutcome }
  /** The client cannot be asked now (2026-07-28): the worker keeps the request, the call waits for a retry. */
  | { type: 'park'; requestId: number }
  /** A retry carries the answer to a parked request: `callId` (this hub's) receives the call's outcome from now on. */
  | { type: 'resume'; callId: number; parkId: number; outcome: InputOutcome }
  /** This hub's clients want updates of a backend resource (answered with an `outcome` for `callId`). */
  | { type: 'subscribe'; callId: number; uri: string }
  /** No client of this hub wants them any more. */
  | { type: 'unsubscribe'; uri: string }
  /**
   * Which question of the backend's task `taskId` (its `related-task` mark) is parked here:
   * answered with an `outcome` for `callId`, `{parkId, method, params}` or `{}` when none is.
   */
  | { type: 'parkedFor'; callId: number; taskId: string };

/** What a hub needs of a live connection to show the backend to clients. */
export type ConnectionFacts = {
  /** Increments with every connection the worker makes (a restart is a new connection). */
  connection: number;
  protocolVersion: string | null;
  instructions: string | null;
  inventory: Inventory;
  /** The server capabilities the backend declared at this connect. */
  capabilities: Record<string, unknown>;
};

/** backend worker → hub */
export type BackendToHub =
  /** The backend is connected (also sent on a fresh port when the backend already was). */
  | ({ type: 'connected' } & ConnectionFacts)
  /** Its lists changed (after list_changed). */
  | { type: 'inventory'; connection: number; inventory: Inventory }
  /** The connection ended: calls in flight fail, the backend is withdrawn from the catalog. */
  | { type: 'disconnected'; connection: number }
  | { type: 'progress'; callId: number; progress: ProgressParams }
  | { type: 'outcome'; callId: number; outcome: CallOutcome }
  /** A logging message (`notifications/message`) the backend sent, for the one hub using it. */
  | { type: 'backendLog'; params: Record<string, unknown> }
  /** A resource this hub subscribed to changed (the backend's URI). */
  | { type: 'resourceUpdated'; uri: string }
  /** A task changed status (2025-11-25 `notifications/tasks/status`, the backend's task id), to every hub. */
  | { type: 'taskStatus'; params: Record<string, unknown> }
  /**
   * The backend asks the client something while calls are in flight: `callIds` are this hub's
   * calls then in flight on the backend (the hub tells whose they are); the hub answers with
   * `inputResponse`, or `park`.
   */
  | { type: 'inputRequest'; requestId: number; callIds: number[]; method: InputMethod; params: Record<string, unknown> };
