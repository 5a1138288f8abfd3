// Main-thread side of one backend worker: creates the thread, applies its events to the state
// table, and stops it. A worker that dies is a backend failure; the main thread carries on.
import { MessageChannel, Worker } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { BackendSpec } from '../config/types.ts';
import { sanitize } from '../health/sanitize.ts';
import type { Logger, LogFormat, LogLevel } from '../log/logger.ts';
import type { BackendApi, BackendCall, BackendMethod, BackendWorkerData, CallOutcome, ProgressParams, WorkerEvent } from './protocol.ts';
import { type BackendState, newBackendState } from './state-table.ts';
import { workerEntry } from './worker-entry.ts';

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
};

type ProgressListener = { deliver: (progress: ProgressParams) => void; seen: number; caughtUp?: () => void };

// How long an answer waits for progress events still in flight on the event port.
const PROGRESS_CATCH_UP_MS = 1_000;

// Extra time the worker gets beyond the child's two grace periods before it is terminated.
const STOP_MARGIN_MS = 1_000;

export class BackendHandle {
  readonly state: BackendState;
  private worker: Worker | null = null;
  private api: Comlink.Remote<BackendApi> | null = null;
  private stopping: Promise<void> | null = null;
  private nextCallId = 1;
  // Settles when the worker dies, so no routed request is left hanging on a dead thread.
  private workerGone: Promise<CallOutcome> = new Promise(() => undefined);
  private markWorkerGone: (outcome: CallOutcome) => void = () => undefined;
  private readonly progressListeners = new Map<number, ProgressListener>();

  constructor(
    readonly spec: BackendSpec,
    private readonly options: HandleOptions,
  ) {
    const supervised = spec.type === 'stdio' && spec.supervision.restartOnExit;
    this.state = newBackendState(
      spec.name,
      spec.tags,
      supervised ? { state: 'starting', attempt: 0, limit: spec.supervision.maxRestarts === 0 ? null : spec.supervision.maxRestarts, nextRetryAt: null } : null,
    );
  }

  private get log() {
    return this.options.log;
  }

  start(): void {
    const { file, workerData } = workerEntry('backend');
    const channel = new MessageChannel();
    const data: BackendWorkerData & Record<string, unknown> = {
      ...workerData,
      spec: this.spec,
      api: channel.port2,
      log: { level: this.options.logLevel, format: this.options.logFormat },
      pingIntervalMs: this.options.pingIntervalMs,
      pingTimeoutMs: this.options.pingTimeoutMs,
    };
    this.workerGone = new Promise((resolve) => (this.markWorkerGone = resolve));
    const worker = new Worker(file, { workerData: data, transferList: [channel.port2], name: `backend:${this.spec.name}`, stdout: true, stderr: false });
    // stdout may carry the MCP protocol (stdio mode): anything a worker prints goes to stderr instead.
    worker.stdout.pipe(process.stderr, { end: false });
    this.worker = worker;
    this.api = Comlink.wrap<BackendApi>(nodeEndpoint(channel.port1));
    worker.on('message', (event: WorkerEvent) => this.onEvent(event));
    worker.on('error', (error) => this.onWorkerDeath(`backend worker thread failed: ${error.message}`));
    worker.on('exit', (code) => {
      if (!this.stopping) this.onWorkerDeath(`backend worker thread exited with code ${code}`);
      channel.port1.close();
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
        if (s.supervision) s.supervision.state = 'connected';
        this.log.info({ backend: s.name, pid: event.pid, protocolVersion: event.protocolVersion, tools: event.inventory.tools.length }, 'backend connected');
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
        this.fail(event.authRequired ? 'awaiting_oauth' : 'failed', event.error.message, event.at);
        return;
      case 'exited':
        s.lastExit = event.exit;
        this.fail('exited', event.error?.message ?? 'backend process exited', event.at);
        return;
      case 'stopped':
        s.phase = 'stopped';
        s.pid = null;
        if (s.supervision) s.supervision.state = 'stopped';
        this.options.onChange?.(s.name);
        return;
      case 'progress': {
        const listener = this.progressListeners.get(event.callId);
        if (!listener) return;
        listener.seen++;
        listener.deliver(event.progress);
        listener.caughtUp?.();
        return;
      }
      case 'backendLog':
        this.options.onBackendLog?.(s.name, event.params);
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

  private fail(phase: 'failed' | 'exited' | 'awaiting_oauth', message: string, at: number): void {
    const s = this.state;
    s.phase = phase;
    s.firstConnect = false;
    s.pid = null;
    s.lastError = sanitize(message);
    s.lastCriticalAt = at;
    // Restarting comes with supervision; until then an ended supervised backend is not running.
    if (s.supervision) s.supervision.state = 'stopped';
    this.log.error({ backend: s.name, error: s.lastError }, phase === 'awaiting_oauth' ? 'backend requires OAuth authentication' : 'backend failed');
    this.options.onChange?.(s.name);
  }

  private progressCaughtUp(listener: ProgressListener, expected: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, PROGRESS_CATCH_UP_MS);
      listener.caughtUp = () => {
        if (listener.seen < expected) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Routes one request to the worker. Resolves with an error outcome (never rejects) when the
   * worker is gone; `signal` cancels the call in the backend.
   */
  async request(method: BackendMethod, params: Record<string, unknown>, extra: { signal?: AbortSignal; onProgress?: (p: ProgressParams) => void } = {}): Promise<CallOutcome> {
    const api = this.api;
    if (!api) return { ok: false, error: { kind: 'disconnected', code: -32603, message: `backend '${this.spec.name}' is not running` } };
    const call: BackendCall = { callId: this.nextCallId++, method, params, wantsProgress: extra.onProgress !== undefined };
    const listener: ProgressListener | undefined = extra.onProgress ? { deliver: extra.onProgress, seen: 0 } : undefined;
    if (listener) this.progressListeners.set(call.callId, listener);
    const onAbort = () => void api.cancel(call.callId).catch(() => undefined);
    extra.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await Promise.race([api.request(call), this.workerGone]);
      if (listener && (outcome.progressEvents ?? 0) > listener.seen) await this.progressCaughtUp(listener, outcome.progressEvents ?? 0);
      return outcome;
    } catch (error) {
      return { ok: false, error: { kind: 'disconnected', code: -32603, message: `backend '${this.spec.name}' failed: ${(error as Error).message}` } };
    } finally {
      this.progressListeners.delete(call.callId);
      extra.signal?.removeEventListener('abort', onAbort);
    }
  }

  // The worker is gone: its child may not be (worker.terminate() does not kill it), so end its group.
  private onWorkerDeath(reason: string): void {
    this.markWorkerGone({ ok: false, error: { kind: 'disconnected', code: -32603, message: `backend '${this.spec.name}' failed: ${reason}` } });
    const pid = this.state.pid;
    if (pid !== null) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    this.worker = null;
    this.fail('failed', reason, Date.now());
  }

  /** Stops the child politely then forcefully, then the worker; resolves when both are gone. */
  stop(graceMs: number): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  private async doStop(graceMs: number): Promise<void> {
    const worker = this.worker;
    const api = this.api;
    this.state.phase = 'stopping';
    if (this.state.supervision) this.state.supervision.state = 'stopped';
    if (worker && api) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs * 2 + STOP_MARGIN_MS)));
      await Promise.race([api.stop({ graceMs }).catch(() => undefined), deadline]);
      clearTimeout(timer);
      const pid = this.state.pid;
      await worker.terminate();
      if (pid !== null && (this.state.phase as string) !== 'stopped') this.onWorkerDeath('backend worker did not stop in time');
    }
    this.api?.[Comlink.releaseProxy]();
    this.api = null;
    this.worker = null;
    this.state.phase = 'stopped';
    this.state.pid = null;
  }
}
