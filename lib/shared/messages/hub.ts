// What the main thread and a hub (the MCP face, decisions §1) tell each other, apart from the
// byte pump: the backends as configured and supervised (the hub learns connections and
// inventories from the backends themselves), the direct channels to the backend workers,
// supervision's verdict on calls in flight, and the hub's own life.
import type { MessagePort } from 'node:worker_threads';
import type { BackendState } from '../backend-state.ts';
import type { LogFormat, LogLevel } from '../logger.ts';

export const HUB_PROTOCOL_VERSION = 1 as const;

/** One configured backend as the main thread knows it; inventories come over the direct channel. */
export type BackendFacts = Omit<BackendState, 'inventory' | 'instructions'>;

export type HubSettings = {
  /** This hub's index: 2025 session ids carry it, so the main thread routes them without a table. */
  index: number;
  hubs: number;
  log: { level: LogLevel; format: LogFormat };
  lazyTools: boolean;
  transport: 'http' | 'stdio';
  /** Epoch ms until which requests may wait for the initial load (`--initial-wait` from the service's start). */
  initialWaitUntil: number;
  maxMessageBytes: number;
  maxSessions: number;
  /** Every hub's session count (session-quota.ts), shared: --max-sessions holds for the service. Absent: this hub counts alone. */
  sessionSlots?: SharedArrayBuffer;
  /** Nice value of the hub's thread (`--worker-nice`). */
  nice: number;
  /** The key that signs requestState (hex; lib/main/state-key.ts) and this service run's id. */
  requestStateKey: string;
  instance: string;
  /** How long a client may take to answer a backend's question (`--input-timeout`), ms. */
  inputTimeoutMs: number;
  /** The service's own version, for serverInfo. */
  version: string;
  /** Which worker of this hub this is: 1 (or absent) the first, more after restarts. */
  generation?: number;
};

/** What a hub worker receives in `workerData`. */
export type HubWorkerData = {
  settings: HubSettings;
  /** The byte pump (PumpToHub / PumpToMain). */
  pump: MessagePort;
};

/** main → hub (on the worker's parentPort) */
export type MainToHub =
  /** Backends whose facts changed (`upsert`) or that are gone (`remove`); `configAttempted` after the first load. */
  | { type: 'facts'; upsert: BackendFacts[]; remove: string[]; disabled: string[]; configAttempted: boolean }
  /** The direct channel to a backend's (new) worker. */
  | { type: 'attach'; name: string; worker: number; port: MessagePort }
  /** Supervision ended the backend's child: calls in flight fail with this message. */
  | { type: 'backendDown'; name: string; message: string }
  /** Stop serving: end sessions, then answer `closed`. */
  | { type: 'shutdown' };

/** hub → main */
export type HubToMain =
  | { type: 'ready' }
  | { type: 'log'; level: LogLevel; msg: string; fields: Record<string, unknown> }
  /** What the hub holds, sent when it changes (checked every 250 ms): a hub that dies is logged with it. */
  | { type: 'load'; sessions: number; calls: number }
  | { type: 'closed' };
