// Main-thread side of one backend: its worker thread, the events it reports (applied to the
// state table), the requests routed to it, and, for supervised stdio backends, the supervisor.
// A worker that dies is a backend failure; the main thread carries on.
import { setTimeout as delay } from 'node:timers/promises';
import { MessageChannel, Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { BackendSpec } from '../config/types.ts';
import { sanitize } from '../shared/sanitize.ts';
import type { Logger, LogFormat, LogLevel } from '../shared/logger.ts';
import { Supervisor } from './supervision/driver.ts';
import type { SupervisorState } from './supervision/machine.ts';
import type { BackendApi, BackendCall, BackendMethod, BackendWorkerData, CallError, CallOutcome, ProgressParams, WorkerEvent } from '../shared/messages.ts';
import { type BackendState, newBackendState } from './state-table.ts';
import { workerEntry } from '../shared/worker-entry.ts';

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

  start(): void {
    this.spawn();
  }

  // A fresh process, transport and MCP client: in the running worker, or in a new one.
  private spawn(): void {
    if (this.stopping) return;
    if (this.worker && this.api) {
      this.api.start().catch((error: Error) => this.onWorkerDeath(`backend worker rejected start: ${error.message}`));
      return;
    }
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
      stderr: false,
      // A small young generation: about 6 MB less resident memory per backend (benchmarks/README.md).
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // stdout may carry the MCP protocol (stdio mode): anything a worker prints goes to stderr instead.
    worker.stdout.pipe(process.stderr, { end: false });
    const api = Comlink.wrap<BackendApi>(nodeEndpoint(channel.port1));
    this.worker = worker;
    this.api = api;
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
    const s = this.state;
    switch (event.type) {
      case 'ready':
        this.api?.start().catch((error: Error) => this.onWorkerDeath(`backend worker rejected start: ${error.message}`));
        return;
      case 'connecting':
        s.phase = 'connecting';
        s.pid = event.pid;
        return;
      case 'connected':
        s.phase = 'connected';
        s.firstConnect = false;
        s.pid = event.pid;
        s.lastConnected = event.at;
        s.missedPings = 0;
        s.inventory = event.inventory;
        s.instructions = event.instructions;
        s.protocolVersion = event.protocolVersion;
        this.log.info({ backend: s.name, pid: event.pid, protocolVersion: event.protocolVersion, tools: event.inventory.tools.length }, 'backend connected');
        void this.supervisor?.send({ type: 'connected' });
        this.options.onChange?.(s.name);
        return;
      case 'inventory':
        s.inventory = event.inventory;
        this.options.onChange?.(s.name);
        return;
      case 'ping':
        s.missedPings = event.ok ? 0 : s.missedPings + 1;
        if (!event.ok) this.log.warn({ backend: s.name, missed: s.missedPings, error: sanitize(event.error?.message) }, 'backend did not answer ping');
        return;
      case 'failed':
        if (event.exit) s.lastExit = event.exit;
        this.ended(event.authRequired ? 'awaiting_oauth' : 'failed', event.error.message, event.at);
        return;
      case 'exited':
        s.lastExit = event.exit;
        this.ended('exited', event.error?.message ?? 'backend process exited', event.at);
        return;
      case 'stopped':
        s.phase = 'stopped';
        s.pid = null;
        this.options.onChange?.(s.name);
        return;
      case 'progress':
        this.progressListeners.get(event.callId)?.(event.progress);
        return;
      case 'backendLog':
        this.options.onBackendLog?.(s.name, event.params);
        return;
      case 'callHealth':
        return;
      case 'log':
        this.log[event.level]({ backend: s.name, ...event.fields }, event.msg);
        return;
      default: {
        const unknown: never = event;
        this.log.error({ backend: s.name, event: unknown }, 'protocol error: unknown message from backend worker');
      }
    }
  }

  // The backend stopped working (failed start, exit, broken transport, dead worker).
  private ended(phase: 'failed' | 'exited' | 'awaiting_oauth', message: string, at: number): void {
    const s = this.state;
    if (this.stopping) return;
    s.phase = phase;
    s.firstConnect = false;
    s.pid = null;
    s.lastError = sanitize(message);
    s.lastCriticalAt = at;
    this.log.error({ backend: s.name, error: s.lastError }, phase === 'awaiting_oauth' ? 'backend requires OAuth authentication' : 'backend failed');
    if (this.supervisor) void this.supervisor.send({ type: 'exited' });
    else this.failInflight('stopped', 'exited');
    this.options.onChange?.(s.name);
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
    void worker?.terminate();
    this.ended('failed', reason, Date.now());
  }

  /** Fault injection for tests: makes the worker thread die. */
  injectFault(kind: 'worker-exit' | 'worker-throw'): void {
    void this.api?.injectFault(kind).catch(() => undefined);
  }

  /** True once stop() was called (shutdown, removal, replacement). */
  get isStopping(): boolean {
    return this.stopping !== null;
  }

  /** The operator's `agent mcp restart`: immediate, resets the counter, works from crash loop. */
  async restart(): Promise<void> {
    if (this.stopping) throw new Error(`backend '${this.name}' is stopping`);
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
