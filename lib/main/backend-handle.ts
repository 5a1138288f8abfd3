// Main-thread side of one backend: its worker thread, the events it reports (reduced by
// backend-events.ts into the state table), the requests routed to it, and, for supervised stdio
// backends, the supervisor.
// A worker that dies is a backend failure; the main thread carries on.
import { setTimeout as delay } from 'node:timers/promises';
import { MessageChannel, Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { BackendSpec } from '../config/types.ts';
import type { Logger, LogFormat, LogLevel } from '../shared/logger.ts';
import { Supervisor } from './supervision/driver.ts';
import type { SupervisorState } from './supervision/machine.ts';
import type { BackendApi, BackendCall, BackendMethod, BackendWorkerData, CallError, CallOutcome, ProgressParams, WorkerEvent } from '../shared/messages.ts';
import { type BackendState, newBackendState } from '../shared/backend-state.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { FRESH_START, type Reduction, reduceBackendEvent } from './backend-events.ts';
import { forEachLine } from './worker-output.ts';
import { redactCredentials } from '../shared/sanitize.ts';

export type HandleOptions = {
  log: Logger;
  /** Something clients can see changed: connection state or the inventory. */
  onChange?: (name: string) => void;
  /** A logging message from the backend, for the sessions using it. */
  onBackendLog?: (name: string, params: Record<string, unknown>) => void;
  logLevel: LogLevel;
  logFormat: LogFormat;
  pingIntervalMs: number;
  pingTimeoutMs: number;
  stopGraceMs: number;
  maxMessageBytes: number;
  stateDir: string | null;
};

type ProgressListener = (progress: ProgressParams) => void;
type Inflight = { settle: (outcome: CallOutcome) => void };

// How long an answer waits for events still in flight on the event port.
const EVENT_CATCH_UP_MS = 1_000;
// How long a request broken by a dying child waits for the exit event that explains it.
const EXIT_EXPLAINS_MS = 500;
const WORKER_YOUNG_GENERATION_MB = 4;

// SIGKILL a child's process group (it was spawned detached, so its pgid is its pid).
function killGroup(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
// Extra time the worker gets beyond the child's two grace periods before it is terminated.
const STOP_MARGIN_MS = 1_000;

export class BackendHandle {
  readonly state: BackendState;
  readonly supervisor: Supervisor | null;
  private worker: Worker | null = null;
  private api: Comlink.Remote<BackendApi> | null = null;
  private stopping: Promise<void> | null = null;
  /** The registry called start(): a queued replacement spawns nothing before its predecessor is gone. */
  private started = false;
  /** The worker has loaded and exposed its API. */
  private workerReady = false;
  /** A start was asked for before the worker was ready: it runs once, when `ready` arrives. */
  private startWanted = false;
  /** An operator restart in progress: concurrent restart requests join it. */
  private restarting: Promise<void> | null = null;
  private nextCallId = 1;
  private readonly inflight = new Map<number, Inflight>();
  private readonly progressListeners = new Map<number, ProgressListener>();
  private eventsReceived = 0;
  private readonly eventWaiters = new Set<() => void>();

  constructor(
    private currentSpec: BackendSpec,
    private readonly options: HandleOptions,
  ) {
    const spec = currentSpec;
    this.state = newBackendState(spec.name, spec.tags, null);
    this.state.phase = 'queued';
    this.state.toolPolicy = { disabledTools: spec.disabledTools, toolDescriptionOverrides: spec.toolDescriptionOverrides };
    this.supervisor =
      spec.type === 'stdio' && spec.supervision.restartOnExit
        ? new Supervisor(spec.supervision, {
            spawn: () => this.spawn(),
            kill: () => this.killChild(),
            failInflight: (reason) => this.failInflight(reason),
            publish: (state) => this.publishSupervision(state),
          })
        : null;
    if (this.supervisor) this.publishSupervision(this.supervisor.state);
  }

  get spec(): BackendSpec {
    return this.currentSpec;
  }

  /** Tags, disabledTools, description overrides: what clients see, not the backend itself. */
  updateMetadata(spec: BackendSpec): void {
    this.currentSpec = spec;
    this.state.tags = spec.tags;
    this.state.toolPolicy = { disabledTools: spec.disabledTools, toolDescriptionOverrides: spec.toolDescriptionOverrides };
  }

  private get log() {
    return this.options.log;
  }

  private get name() {
    return this.spec.name;
  }

  /** Starts the backend; called once by the registry, after the instance it replaces has stopped. */
  start(): void {
    this.started = true;
    this.spawn();
  }

  // A fresh process, transport and MCP client, in this handle's worker (created on first use).
  // Each call asks the worker for exactly one start; a start asked for while the worker loads
  // runs once, on `ready`.
  private spawn(): void {
    if (this.stopping || !this.started) return;
    if (!this.worker) {
      this.startWanted = true;
      this.createWorker();
    } else if (!this.workerReady) {
      this.startWanted = true;
    } else {
      this.startChild();
    }
  }

  private startChild(): void {
    this.api?.start().catch((error: Error) => this.onWorkerDeath(`backend worker rejected start: ${error.message}`));
  }

  private createWorker(): void {
    const { file, workerData } = workerEntry('backend');
    const channel = new MessageChannel();
    const data: BackendWorkerData & Record<string, unknown> = {
      ...workerData,
      spec: this.spec,
      api: channel.port2,
      log: { level: this.options.logLevel, format: this.options.logFormat },
      pingIntervalMs: this.options.pingIntervalMs,
      pingTimeoutMs: this.options.pingTimeoutMs,
      maxMessageBytes: this.options.maxMessageBytes,
      stateDir: this.options.stateDir,
    };
    const worker = new Worker(file, {
      workerData: data,
      transferList: [channel.port2],
      name: `backend:${this.name}`,
      stdout: true,
      stderr: true,
      // A small young generation: about 6 MB less resident memory per backend (benchmarks/README.md).
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    forEachLine(worker.stdout, (line) => this.log.warn({ backend: this.name, stream: 'worker stdout' }, redactCredentials(line)));
    forEachLine(worker.stderr, (line) => this.log.warn({ backend: this.name, stream: 'worker stderr' }, redactCredentials(line)));
    const api = Comlink.wrap<BackendApi>(nodeEndpoint(channel.port1));
    this.worker = worker;
    this.api = api;
    this.workerReady = false;
    this.state.phase = 'starting';
    this.eventsReceived = 0;
    worker.on('message', (event: WorkerEvent) => {
      if (this.worker !== worker) return;
      this.eventsReceived++;
      this.onEvent(event);
      for (const waiter of this.eventWaiters) waiter();
    });
    worker.on('error', (error) => {
      if (this.worker === worker) this.onWorkerDeath(`backend worker thread failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      channel.port1.close();
      if (this.worker === worker && !this.stopping) this.onWorkerDeath(`backend worker thread exited with code ${code}`);
    });
  }

  private onEvent(event: WorkerEvent): void {
    this.apply(reduceBackendEvent(this.state, event, { stopping: this.stopping !== null, supervised: this.supervisor !== null }));
  }

  private apply({ patch, effects }: Reduction): void {
    Object.assign(this.state, patch);
    for (const effect of effects) {
      switch (effect.type) {
        case 'workerReady':
          this.workerReady = true;
          if (this.startWanted) {
            this.startWanted = false;
            this.startChild();
          }
          break;
        case 'supervise':
          void this.supervisor?.send({ type: effect.event });
          break;
        case 'failInflight':
          this.failInflight('stopped', 'exited');
          break;
        case 'changed':
          this.options.onChange?.(this.name);
          break;
        case 'log':
          this.log[effect.level](effect.fields, effect.msg);
          break;
        case 'progress':
          this.progressListeners.get(effect.callId)?.(effect.progress);
          break;
        case 'backendLog':
          this.options.onBackendLog?.(this.name, effect.params);
          break;
        default: {
          const unknown: never = effect;
          throw new Error(`unknown backend effect ${JSON.stringify(unknown)}`);
        }
      }
    }
  }

  private publishSupervision(state: SupervisorState): void {
    this.state.supervision = { state: state.phase, attempt: state.attempt, limit: this.supervisor?.limit ?? null, nextRetryAt: state.nextRetryAt };
    if (state.phase === 'restarting' && state.nextRetryAt !== null) {
      this.log.warn({ backend: this.name, attempt: state.attempt, limit: this.supervisor?.limit ?? null, nextRetryAt: new Date(state.nextRetryAt).toISOString() }, 'backend will restart');
    } else if (state.phase === 'crashLoop') {
      this.log.error({ backend: this.name, attempts: state.attempt }, 'backend is in crash loop: restart it with `agent mcp restart` or fix its configuration');
    }
  }

  // In-flight requests fail at once and are never replayed.
  private failInflight(reason: 'restarting' | 'crashLoop' | 'stopped', how: 'exited' | 'stopped' = reason === 'stopped' ? 'stopped' : 'exited'): void {
    const message =
      reason === 'restarting'
        ? `backend '${this.name}' restarted; the request was not completed and is not replayed`
        : reason === 'crashLoop'
          ? `backend '${this.name}' exited and is in crash loop; the request was not completed`
          : how === 'exited'
            ? `backend '${this.name}' exited; the request was not completed`
            : `backend '${this.name}' was stopped; the request was not completed`;
    const error: CallError = { kind: 'disconnected', code: -32603, message };
    for (const call of [...this.inflight.values()]) call.settle({ ok: false, error });
    this.inflight.clear();
  }

  // The worker is gone: its child may not be (worker.terminate() does not kill it), so end its group.
  private onWorkerDeath(reason: string): void {
    killGroup(this.state.pid);
    const worker = this.worker;
    this.worker = null;
    this.api = null;
    this.workerReady = false;
    void worker?.terminate();
    const at = Date.now();
    this.onEvent({ v: 1, type: 'failed', at, error: { name: 'WorkerDied', message: reason }, authRequired: false, exit: { code: null, signal: null, at, pid: this.state.pid } });
  }

  /** Fault injection for tests: makes the worker thread die. */
  injectFault(kind: 'worker-exit' | 'worker-throw'): void {
    void this.api?.injectFault(kind).catch(() => undefined);
  }

  /** True once stop() was called (shutdown, removal, replacement). */
  get isStopping(): boolean {
    return this.stopping !== null;
  }

  /**
   * The operator's `agent mcp restart`: immediate, a fresh start (its critical errors cleared),
   * resets the counter, works from crash loop. Requests arriving while one is in progress join
   * it; a queued replacement that has not started yet starts fresh anyway, so it is left alone.
   */
  restart(): Promise<void> {
    if (this.stopping) return Promise.reject(new Error(`backend '${this.name}' is stopping`));
    if (!this.started) return Promise.resolve();
    this.restarting ??= this.freshStart().finally(() => (this.restarting = null));
    return this.restarting;
  }

  private async freshStart(): Promise<void> {
    Object.assign(this.state, FRESH_START);
    // A start still waiting for the worker to load is this restart's start now: one, not two.
    this.startWanted = false;
    if (this.supervisor) return this.supervisor.send({ type: 'operatorRestart' });
    this.failInflight('restarting');
    await this.killChild();
    this.spawn();
  }

  private async killChild(): Promise<void> {
    if (this.api && !this.stopping) await this.stopChildWithin(this.api);
  }

  // The worker's polite-then-forceful stop of its child, bounded in case the worker hangs.
  private async stopChildWithin(api: Comlink.Remote<BackendApi>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.stopGraceMs * 2 + STOP_MARGIN_MS)));
    await Promise.race([api.stop({ graceMs: this.options.stopGraceMs }).catch(() => undefined), deadline]);
    clearTimeout(timer);
  }

  // Resolves once the worker's first `seq` events have been handled (bounded wait).
  private eventsCaughtUp(seq: number): Promise<void> {
    if (this.eventsReceived >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (this.eventsReceived < seq) return;
        clearTimeout(timer);
        this.eventWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.eventWaiters.delete(done);
        resolve();
      }, EVENT_CATCH_UP_MS);
      this.eventWaiters.add(done);
    });
  }

  /**
   * Routes one request to the worker. Never rejects: a failure, a restart or a dead worker
   * comes back as an error outcome; `signal` cancels the call in the backend.
   */
  async request(method: BackendMethod, params: Record<string, unknown>, extra: { signal?: AbortSignal; onProgress?: (p: ProgressParams) => void } = {}): Promise<CallOutcome> {
    const api = this.api;
    if (!api || this.state.phase !== 'connected') {
      return { ok: false, error: { kind: 'disconnected', code: -32603, message: `backend '${this.name}' is not connected` } };
    }
    const call: BackendCall = { callId: this.nextCallId++, method, params, wantsProgress: extra.onProgress !== undefined };
    if (extra.onProgress) this.progressListeners.set(call.callId, extra.onProgress);
    const failed = new Promise<CallOutcome>((settle) => this.inflight.set(call.callId, { settle }));
    const onAbort = () => void api.cancel(call.callId).catch(() => undefined);
    extra.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let outcome = await Promise.race([api.request(call), failed]);
      // A broken connection usually means the child died: its exit event, on the other port,
      // explains it better ("restarted", "crash loop"), so give it a moment to arrive.
      if (!outcome.ok && outcome.error.kind === 'disconnected') outcome = (await Promise.race([failed, delay(EXIT_EXPLAINS_MS, null)])) ?? outcome;
      if (outcome.eventSeq !== undefined) await this.eventsCaughtUp(outcome.eventSeq);
      return outcome;
    } catch (error) {
      return { ok: false, error: { kind: 'disconnected', code: -32603, message: `backend '${this.name}' failed: ${(error as Error).message}` } };
    } finally {
      this.inflight.delete(call.callId);
      this.progressListeners.delete(call.callId);
      extra.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** SIGKILLs the child's process group now; the worker reports the exit. */
  kill(): void {
    killGroup(this.state.pid);
  }

  /** Stops the child politely then forcefully, then the worker; resolves when both are gone. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    void this.supervisor?.send({ type: 'stop' });
    this.failInflight('stopped');
    const worker = this.worker;
    const api = this.api;
    this.state.phase = 'stopping';
    if (worker && api) {
      await this.stopChildWithin(api);
      // The worker did not confirm the stop in time: its child may still run.
      if ((this.state.phase as string) !== 'stopped') killGroup(this.state.pid);
      await worker.terminate();
      api[Comlink.releaseProxy]();
    }
    this.api = null;
    this.worker = null;
    this.state.phase = 'stopped';
    this.state.pid = null;
  }
}
