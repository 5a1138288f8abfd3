// Main-thread side of one hub worker: its life (supervised like a backend: a hub that dies is
// restarted with backoff while health keeps answering and forwarded requests get 503), its byte
// pump, and what it must be told (backend facts, direct channels to backend workers).
import { plural } from '../shared/plural.ts';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.ts';
import { Code } from '../shared/errors.ts';
import type { HubSettings, HubToMain, HubWorkerData, MainToHub } from '../shared/messages/hub.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { forEachLine } from './worker-output.ts';
import { PumpClient, type PumpLimits } from './pump-client.ts';
import { Supervisor } from './supervision/driver.ts';
import type { SupervisorState } from './supervision/machine.ts';

/** A dead hub is restarted after 1 s, 2 s, 4 s ... 16 s, without limit. */
export const HUB_SUPERVISION = { restartDelay: 1_000, maxRestarts: 0 };
/** How long a hub may take to end its sessions on shutdown before it is terminated. */
const HUB_CLOSE_MS = 3_000;

export type HubHandleOptions = {
  log: Logger;
  limits: PumpLimits;
  /** The hub is up (first start or restart): wire it (facts, backend channels). */
  onUp: (hub: HubHandle) => void;
  /** The hub died; it is being restarted. */
  onDown?: (hub: HubHandle) => void;
  /** A worker entry in place of workers/hub.ts (tests: fixtures named after a failure). */
  worker?: { file: string; workerData: Record<string, unknown>; execArgv?: string[] };
};


export class HubHandle {
  private worker: Worker | null = null;
  private pumpClient: PumpClient | null = null;
  private ready = false;
  private stopping = false;
  private readonly supervisor: Supervisor;
  private closedWaiter: (() => void) | null = null;
  /** The worker's sessions and calls in flight, as it last reported them. */
  private load = { sessions: 0, calls: 0 };
  /** Increments with every worker this hub has had. */
  generation = 0;

  constructor(
    readonly settings: HubSettings,
    private readonly options: HubHandleOptions,
  ) {
    this.supervisor = new Supervisor(HUB_SUPERVISION, {
      spawn: () => this.spawn(),
      kill: async () => this.terminate(),
      failInflight: () => this.failForwarded(),
      publish: (state) => this.published(state),
    });
  }

  get index(): number {
    return this.settings.index;
  }

  /** Up: its worker has loaded and answers forwarded requests. */
  get up(): boolean {
    return this.ready && !this.stopping;
  }

  get pump(): PumpClient | null {
    return this.up ? this.pumpClient : null;
  }

  private get log() {
    return this.options.log;
  }

  start(): void {
    this.spawn();
  }

  private spawn(): void {
    if (this.stopping) return;
    const { file, workerData, execArgv } = this.options.worker ?? workerEntry('hub');
    const channel = new MessageChannel();
    // `nice` at the top too: the entry's loader lowers the thread with it before the hub's code loads.
    const data: HubWorkerData & Record<string, unknown> = { ...workerData, nice: this.settings.nice, settings: { ...this.settings, generation: this.generation + 1 }, pump: channel.port2 };
    const worker = new Worker(file, {
      workerData: data,
      transferList: [channel.port2],
      ...(execArgv ? { execArgv } : {}),
      name: `hub:${this.index}`,
      stdout: true,
      stderr: true,
    });
    this.generation++;
    this.worker = worker;
    this.ready = false;
    this.load = { sessions: 0, calls: 0 };
    this.pumpClient = new PumpClient(channel.port1, this.options.limits, (fields, msg) => this.log.error({ hub: this.index, ...fields }, msg));
    forEachLine(worker.stdout, (line) => this.log.warn({ hub: this.index, stream: 'worker stdout' }, line));
    forEachLine(worker.stderr, (line) => this.log.warn({ hub: this.index, stream: 'worker stderr' }, line));
    worker.on('message', (message: HubToMain) => {
      if (this.worker === worker) this.onMessage(message);
    });
    // What the hub posted before it died is heard before its death is acted on.
    worker.on('error', (error) => {
      if (this.worker !== worker) return;
      this.pumpClient?.drain();
      this.died(`hub worker thread failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.pumpClient?.drain();
      channel.port1.close();
      if (this.worker === worker) this.died(`hub worker thread exited with code ${code}`);
    });
  }

  private onMessage(message: HubToMain): void {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.log.info({ hub: this.index, generation: this.generation }, this.generation > 1 ? 'hub restarted: serving MCP clients again' : 'hub ready');
        this.options.onUp(this);
        void this.supervisor.send({ type: 'connected' });
        return;
      case 'log':
        this.log[message.level]({ hub: this.index, ...message.fields }, message.msg);
        return;
      case 'load':
        this.load = { sessions: message.sessions, calls: message.calls };
        return;
      case 'closed':
        this.closedWaiter?.();
        return;
      default: {
        const unknown: never = message;
        this.log.error({ hub: this.index, code: Code.protocol_error, message: unknown }, 'protocol error: unknown message from a hub');
      }
    }
  }

  private died(reason: string): void {
    if (this.stopping) return;
    const failed = this.failForwarded();
    const { sessions, calls } = this.load;
    this.worker = null;
    this.ready = false;
    // stdio mode's client keeps its one session: the requests the hub owed it get an error line each (stdio-bridge.ts).
    const stdio = this.settings.transport === 'stdio' && this.index === 0;
    const stdioFailed = stdio ? (this.pumpClient?.stdioOwed.size ?? 0) : 0;
    // Its 2025 sessions are gone: their ids still lead here, and the new worker answers them 404.
    this.log.error(
      { hub: this.index, code: Code.hub_failed, sessionsEnded: sessions, callsInFlight: calls, requestsFailed: failed, ...(stdio ? { stdioRequestsFailed: stdioFailed } : {}) },
      stdio
        ? `${reason}: ${stdioFailed ? `${plural(stdioFailed, 'request')} of the stdio client failed (an error line for each)` : 'the stdio client was owed no answer'}; the restarted hub serves the same client (lines it had not read go to it); ${sessions || calls || failed ? `${plural(sessions, 'HTTP MCP session')} ended and ${plural(calls, 'call')} in flight failed (HTTP clients get 503 until it is back, then start new sessions); ` : ''}/health/ready is not_ready until it is back; backends are unaffected`
        : this.settings.hubs > 1
          ? `${reason}: ${plural(sessions, 'MCP session')} ended and ${plural(calls, 'call')} in flight failed; requests of its sessions get 503 until it is back, then their clients start new sessions; other requests go to the other hubs; health and backends are unaffected`
          : `${reason}: ${plural(sessions, 'MCP session')} ended and ${plural(calls, 'call')} in flight failed; MCP clients get 503 until it is back, then start new sessions; /health/ready is not_ready until it is back; backends are unaffected`,
    );
    this.options.onDown?.(this);
    void this.supervisor.send({ type: 'exited' });
  }

  private failForwarded(): number {
    return this.pumpClient?.failAll() ?? 0;
  }

  private published(state: SupervisorState): void {
    if (state.phase === 'restarting' && state.nextRetryAt !== null) {
      this.log.warn({ hub: this.index, code: Code.hub_failed, attempt: state.attempt, nextRetryAt: new Date(state.nextRetryAt).toISOString() }, 'hub will restart');
    }
  }

  private async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    await worker?.terminate();
  }

  /** Sends a message to the hub (ignored while it is down: it is rewired when it comes back). */
  post(message: MainToHub, transfer: MessagePort[] = []): boolean {
    if (!this.worker || !this.ready) {
      for (const port of transfer) port.close();
      return false;
    }
    this.worker.postMessage(message, transfer);
    return true;
  }

  /** Ends its sessions (bounded), then the worker. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    const worker = this.worker;
    if (worker && this.ready) {
      const closed = new Promise<void>((resolve) => (this.closedWaiter = resolve));
      worker.postMessage({ type: 'shutdown' } satisfies MainToHub);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, HUB_CLOSE_MS)))]);
      clearTimeout(timer);
    }
    this.stopping = true;
    void this.supervisor.send({ type: 'stop' });
    this.failForwarded();
    await this.terminate();
  }

  /** The worker's thread id (for its scheduling priority), null while it is down. */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }
}
