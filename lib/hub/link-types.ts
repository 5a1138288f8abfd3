// What the router asks of a backend's link (its worker, across a MessagePort) and what comes
// back: the contract between lib/hub/router.ts and lib/hub/backend-link.ts, apart from both so
// that neither imports the other.
import type { BackendMethod, CallOutcome, InputMethod, InputOutcome, ProgressParams } from '../shared/messages/calls.ts';

/** How the session answers a backend's question: now, or by its call's own answer (input_required). */
export type InputAnswer = { answer: InputOutcome } | { park: true };

/** What goes with one call to a backend. */
export type CallExtra = {
  signal?: AbortSignal;
  onProgress?: (progress: ProgressParams) => void;
  /** What the client behind the call can answer (for 2026-07-28 backends). */
  clientCapabilities?: Record<string, unknown>;
  /** The client session the call belongs to (one object per 2025 session or stdio connection). */
  session?: object;
  /** The backend asks this call's client something (elicitation, sampling). */
  onInputRequest?: (method: InputMethod, params: Record<string, unknown>) => Promise<InputAnswer>;
  /** The backend's task this call (a tasks/result) waits for: that task's questions are its own. */
  relatedTask?: string;
  /** The client's id of relatedTask (the gateway's): that task's questions reach the client marked with it. */
  clientTaskId?: string;
  /** The least severe log level the caller wants (told to 2026-07-28 backends, whose logging is per request). */
  logLevel?: string;
};

/** A call's outcome, or its question parked in the backend's worker until a retry answers it. */
export type LinkOutcome = CallOutcome | { parked: { parkId: number; method: InputMethod; params: Record<string, unknown> } };

/** What the router needs of one backend: its worker, reached by request. */
export interface BackendLink {
  /** The backend's worker (a question parked in an older one is void). */
  readonly worker: number;
  /** The worker's current connection to the backend (a task of an older one is gone). */
  readonly connection: number;
  /** Never rejects: failures come back as `{ok: false, error}`. */
  request(method: BackendMethod, params: Record<string, unknown>, extra: CallExtra): Promise<LinkOutcome>;
  /** A retry that answers a parked question. */
  resume(parkId: number, answer: InputOutcome, extra: CallExtra): Promise<LinkOutcome>;
  subscribe(uri: string): Promise<LinkOutcome>;
  unsubscribe(uri: string): void;
  /** The question of the backend's task parked in the worker (`{parkId, method, params}` or `{}`). */
  parkedFor(taskId: string): Promise<LinkOutcome>;
}

/** The start-up wait (issue 12): requests for a backend on its first connect wait for the initial load. */
export interface InitialLoadGate {
  /** Resolves when every enabled backend's first attempt ended, or the initial wait is over. */
  settled(): Promise<void>;
  isSettled(): boolean;
}
