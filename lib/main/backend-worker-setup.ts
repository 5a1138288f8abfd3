// What a backend's worker is set up with: the handle's options, and the workerData built from them.
import type { MessagePort } from 'node:worker_threads';
import type { BackendSpec } from '../config/types.ts';
import type { Logger, LogFormat, LogLevel } from '../shared/logger.ts';
import type { BackendWorkerData } from '../shared/messages/state-events.ts';
import type { StderrLimits } from '../shared/stderr-limits.ts';
import type { BackendThreads } from './backend-threads.ts';
import type { CodeCache } from './code-cache.ts';
import type { StartQueue } from './start-queue.ts';

/** A backend's current worker, as the hubs are wired to it. */
export type WorkerChannels = {
  readonly spec: BackendSpec;
  /** The worker's number: a hub tells a newer channel from an older one by it. */
  readonly workerNumber: number;
  /** A direct channel to hub `hub`: one end goes to the worker, the other is returned for the hub. */
  channelToHub(hub: number): MessagePort | null;
};

export type HandleOptions = {
  log: Logger;
  /** The crash-loop line's advice where supervision/report.ts's CRASH_LOOP_ADVICE does not apply (no control bus: stdio mode); undefined where it does. */
  crashLoopAdvice?: () => string | undefined;
  /** Something clients can see changed: connection state or the inventory. */
  onChange?: (name: string) => void;
  /** Any fact of the backend changed (the hubs hear of it). */
  onFacts?: (name: string) => void;
  /** A new worker runs this backend: give it its channels to the hubs. */
  onWorker?: (worker: WorkerChannels) => void;
  /** Supervision ended the child: calls in flight (in the hubs) fail with this message. */
  onDown?: (name: string, message: string) => void;
  logLevel: LogLevel;
  logFormat: LogFormat;
  pingIntervalMs: number;
  pingTimeoutMs: number;
  stopGraceMs: number;
  maxMessageBytes: number;
  stateDir: string | null;
  /** Nice value of backend workers and children (`--worker-nice`). */
  workerNice: number;
  /** How long a parked question of a backend waits for the client's retry (`--input-timeout`). */
  inputTimeoutMs?: number;
  /** Service-wide stderr limits (`--stderr-*`), under each server's own `stderrLimits`. */
  stderrLimits?: Partial<StderrLimits>;
  /** A worker entry in place of workers/backend.ts (tests: fixtures named after a failure). */
  worker?: { file: string; workerData: Record<string, unknown>; execArgv?: string[] };
  /** How many backend starts (worker load and first start) may be in flight at once (`--worker-start-concurrency`); none: no limit. */
  starts?: StartQueue;
  /** The backend bundle's shared V8 code cache, when workers run from the bundle. */
  codeCache?: CodeCache;
  /** Where backends run (`--backends-per-worker`); none: a worker of its own each. */
  threads?: BackendThreads;
};

/** What this worker gets besides the service-wide settings: its channel, its nice value and limits, whether it starts at once. */
export type WorkerParticulars = Pick<BackendWorkerData, 'api' | 'nice' | 'stderrLimits' | 'autoStart'>;

/** The workerData of a backend's worker. Pure. */
export function backendWorkerData(spec: BackendSpec, options: HandleOptions, particulars: WorkerParticulars): BackendWorkerData {
  return {
    spec,
    log: { level: options.logLevel, format: options.logFormat },
    pingIntervalMs: options.pingIntervalMs,
    pingTimeoutMs: options.pingTimeoutMs,
    maxMessageBytes: options.maxMessageBytes,
    stateDir: options.stateDir,
    inputTimeoutMs: options.inputTimeoutMs,
    ...particulars,
  };
}
