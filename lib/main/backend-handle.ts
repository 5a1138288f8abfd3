// Main-thread side of one backend: its worker thread, the state events it reports (reduced by
// backend-events.ts into the state table) and, for supervised stdio backends, the supervisor.
// Calls do not pass here: the hubs reach the worker over direct channels this handle opens.
// A worker that dies is a backend failure; the main thread carries on.
import { isDeepStrictEqual } from 'node:util';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { BackendSpec } from '../config/types.ts';
import { type BackendState, newBackendState } from '../shared/backend-state.ts';
import type { Inventory } from '../shared/messages/calls.ts';
import type { BackendApi, WorkerEvent } from '../shared/messages/state-events.ts';
import { backendWorkerData, type HandleOptions } from './backend-worker-setup.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { resolveStderrLimits, type StderrLimits } from '../shared/stderr-limits.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { FRESH_START, type Reduction, reduceBackendEvent } from './backend-events.ts';
import { type BackendThread, BackendThreads, WORKER_OPTIONS } from './backend-threads.ts';
import { StartSlot } from './start-slot.ts';
import { Supervisor } from './supervision/driver.ts';
import type { SupervisorState } from './supervision/machine.ts';
import { supervisionLine, supervisionView } from './supervision/report.ts';
import { signalGroup } from '../shared/process-group.ts';
import { backendNice, niceNotGiven } from './backend-nice.ts';
import { type LossCause, lostCallsMessage, type StopCause } from './lost-calls.ts';

// Extra time the worker gets beyond the child's two grace periods before it is terminated.
const STOP_MARGIN_MS = 1_000;
// Every backend worker gets a number, so a hub can tell a newer channel from an older one.
let workers = 0;
// A worker of its own for each backend, unless the service says otherwise.
const ownWorkers = new BackendThreads(1, WORKER_OPTIONS);

// SIGKILL a child's process group (no child, or its group already gone: nothing to do).
function killGroup(pid: number | null): void {
  if (pid !== null) signalGroup(pid, 'SIGKILL');
}

export class BackendHandle {
  readonly state: BackendState;
  readonly supervisor: Supervisor | null;
  private worker: BackendThread | null = null;
  private api: Comlink.Remote<BackendApi> | null = null;
  /** The number of this backend's current worker. */
  workerNumber = 0;
  private stopping: Promise<void> | null = null;
  /** The registry called start(): a queued replacement spawns nothing before its predecessor is gone. */
  private started = false;
  /** The worker has loaded and exposed its API. */
  private workerReady = false;
  /** A start was asked for before the worker was ready: it runs once, when `ready` arrives. */
  private startWanted = false;
  /** A start asked of the worker has not yet connected, failed or stopped. */
  private startRunning = false;
  /** An operator restart in progress: concurrent restart requests join it. */
  private restarting: Promise<void> | null = null;
  /** The kernel thread id of the worker (for its priority), once it is ready. */
  threadId: number | null = null;
  /** The start gate's slot (or place in line), held from asking until the first start ends, the worker is gone or the handle stops. */
  private readonly slot: StartSlot;
  /** The code cache the current worker was given (dropped if V8 refuses it). */
  private givenCache: SharedArrayBuffer | null = null;

  constructor(
    private currentSpec: BackendSpec,
    private readonly options: HandleOptions,
  ) {
    const spec = currentSpec;
    this.state = newBackendState(spec.name, spec.tags, null);
    this.slot = new StartSlot(options.starts, spec.name);
    this.state.phase = 'queued';
    this.state.toolPolicy = { disabledTools: spec.disabledTools, toolDescriptionOverrides: spec.toolDescriptionOverrides };
    this.supervisor =
      spec.type === 'stdio' && spec.supervision.restartOnExit
        ? new Supervisor(spec.supervision, {
            spawn: () => this.spawn(),
            kill: () => this.killChild(),
            failInflight: (cause) => this.failInflight(cause),
            publish: (state) => this.publishSupervision(state),
          })
        : null;
    if (this.supervisor) this.publishSupervision(this.supervisor.state);
    const notGiven = niceNotGiven(spec, options.workerNice);
    if (notGiven) options.log.warn(notGiven.fields, notGiven.message);
  }

  get spec(): BackendSpec {
    return this.currentSpec;
  }

  /** Tags, disabledTools, description overrides: what clients see; stderr limits: how the worker logs stderr. Not the backend itself. */
  updateMetadata(spec: BackendSpec): void {
    const limits = this.stderrLimits;
    this.currentSpec = spec;
    this.state.tags = spec.tags;
    this.state.toolPolicy = { disabledTools: spec.disabledTools, toolDescriptionOverrides: spec.toolDescriptionOverrides };
    this.options.onFacts?.(this.name);
    // A worker made later starts with the new spec; the current one is told.
    if (!isDeepStrictEqual(limits, this.stderrLimits)) void this.api?.setStderrLimits(this.stderrLimits).catch(() => undefined);
  }

  /** The effective stderr limits: the server's (serverDefaults merged in), else the service's flags, else the spec's. */
  private get stderrLimits(): StderrLimits {
    return resolveStderrLimits(this.spec.type === 'stdio' ? this.spec.stderrLimits : undefined, this.options.stderrLimits);
  }

  private get log() {
    return this.options.log;
  }

  private get name() {
    return this.spec.name;
  }

  private get nice(): number {
    return backendNice(this.spec, this.options.workerNice);
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
      if (!this.slot.pending) this.askSlot();
    } else if (!this.workerReady) {
      this.startWanted = true;
    } else {
      this.startChild();
    }
  }

  private startChild(): void {
    this.startRunning = this.bootsAProcess;
    this.api?.start().catch((error: Error) => this.onWorkerDeath(`backend worker rejected start: ${error.message}`));
  }

  // Only a stdio backend's start boots a process on this machine; a remote one waits on the network.
  private get bootsAProcess(): boolean {
    return this.spec.type === 'stdio';
  }

  // The worker is created when the start gate has a slot for it (at once without a gate); the
  // slot goes back when its first start connects, fails or stops (or after START_SLOT_MS).
  private askSlot(): void {
    this.slot.ask(() => {
      if (this.stopping || this.worker) return this.slot.free();
      this.createWorker();
    });
  }

  private createWorker(): void {
    const { file, workerData, execArgv } = this.options.worker ?? workerEntry('backend');
    // Through the script loader: the shared code cache goes along (shared memory, not copied).
    const loader = workerData.loader && this.options.codeCache ? this.options.codeCache.forWorker() : workerData.loader;
    this.givenCache = (loader as { cache?: SharedArrayBuffer | null } | undefined)?.cache ?? null;
    const channel = new MessageChannel();
    // The start wanted now is the worker's first act; one asked for while it loads comes on `ready`.
    const data = { ...workerData, ...(loader ? { loader } : {}), ...backendWorkerData(this.spec, this.options, { api: channel.port2, nice: this.nice, stderrLimits: this.stderrLimits, autoStart: this.startWanted }) };
    this.startRunning = this.startWanted && this.bootsAProcess;
    this.startWanted = false;
    const worker = (this.options.threads ?? ownWorkers).open({
      name: this.name,
      nice: this.nice,
      file,
      workerData: data,
      ...(execArgv ? { execArgv } : {}),
      onOutput: (stream, line) => this.log.warn({ backend: this.name, stream }, redactCredentials(line)),
    });
    this.worker = worker;
    this.api = Comlink.wrap<BackendApi>(nodeEndpoint(channel.port1));
    this.workerNumber = ++workers;
    this.workerReady = false;
    this.state.phase = 'starting';
    this.options.onFacts?.(this.name);
    worker.on('message', (event: WorkerEvent) => {
      if (this.worker === worker) this.onEvent(event);
    });
    worker.on('error', (error) => {
      if (this.worker === worker) this.onWorkerDeath(`backend worker thread failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      channel.port1.close();
      if (this.worker === worker && !this.stopping) this.onWorkerDeath(`backend worker thread exited with code ${code}`);
    });
    // Channels to the hubs go now: messages wait in the port until the worker listens.
    this.options.onWorker?.(this);
  }

  /** Opens a direct channel to a hub: one end to this worker, the other returned for the hub. */
  channelToHub(hub: number): MessagePort | null {
    if (!this.api) return null;
    const { port1, port2 } = new MessageChannel();
    void this.api.attachHub(hub, Comlink.transfer(port1, [port1])).catch(() => undefined);
    return port2;
  }

  /** The backend's current lists, from its worker (`agent mcp tools list`). */
  async inventory(): Promise<Inventory | null> {
    return this.api && this.workerReady ? this.api.inventory() : null;
  }

  private onEvent(event: WorkerEvent): void {
    if (event.type === 'ready') this.threadId = event.tid;
    // The first start has come to an end: the next backend may start.
    if (event.type === 'connected' || event.type === 'failed' || event.type === 'exited' || event.type === 'stopped') {
      this.startRunning = false;
      this.slot.free();
    }
    this.apply(reduceBackendEvent(this.state, event, { stopping: this.stopping !== null, supervised: this.supervisor !== null }));
  }

  private apply({ patch, effects }: Reduction): void {
    Object.assign(this.state, patch);
    if (Object.keys(patch).length) this.options.onFacts?.(this.name);
    for (const effect of effects) {
      switch (effect.type) {
        case 'workerReady':
          this.workerReady = true;
          if (this.startWanted) {
            this.startWanted = false;
            this.startChild();
          }
          // The slot covers the backend's first start too (its process booting, initialize, the
          // lists), not the worker's load alone: otherwise workers that load quickly let fifty
          // processes boot at once on two cores, and the last ones miss connectionTimeout.
          if (!this.startRunning) this.slot.free();
          break;
        case 'supervise':
          void this.supervisor?.send({ type: effect.event });
          break;
        case 'codeCache':
          if (this.options.codeCache?.offer(effect.data)) this.log.debug({ backend: this.name, bytes: effect.data.byteLength }, 'backend code cache kept for the next workers');
          break;
        case 'codeCacheRefused':
          this.options.codeCache?.refused(this.givenCache);
          break;
        case 'failInflight':
          this.failInflight(this.spec.type === 'stdio' ? 'exited' : 'lost');
          break;
        case 'changed':
          this.options.onChange?.(this.name);
          break;
        case 'log':
          this.log[effect.level](effect.fields, effect.msg);
          break;
        default: {
          const unknown: never = effect;
          throw new Error(`unknown backend effect ${JSON.stringify(unknown)}`);
        }
      }
    }
  }

  private publishSupervision(state: SupervisorState): void {
    const limit = this.supervisor?.limit ?? null;
    this.state.supervision = supervisionView(state, limit);
    this.options.onFacts?.(this.name);
    const line = supervisionLine(this.name, state, limit, this.options.crashLoopAdvice?.());
    if (line) this.log[line.level](line.fields, line.msg);
  }

  // In-flight requests fail at once and are never replayed: the hubs hold them.
  private failInflight(cause: LossCause): void {
    this.options.onDown?.(this.name, lostCallsMessage(this.name, cause));
  }

  // The worker is gone: its child may not be (worker.terminate() does not kill it), so end its group.
  private onWorkerDeath(reason: string): void {
    this.slot.free();
    killGroup(this.state.pid);
    const worker = this.worker;
    this.worker = null;
    this.api = null;
    this.workerReady = false;
    void worker?.terminate();
    const at = Date.now();
    this.onEvent({ v: 1, type: 'failed', at, error: { name: 'WorkerDied', message: reason }, authRequired: false, exit: { code: null, signal: null, at, pid: this.state.pid } });
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
    this.options.onFacts?.(this.name);
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

  /** SIGKILLs the child's process group now; the worker reports the exit. */
  kill(): void {
    killGroup(this.state.pid);
  }

  /** Stops the child politely then forcefully, then the worker; resolves when both are gone. `cause` words the calls' failure. */
  stop(cause: StopCause = 'stopped'): Promise<void> {
    this.stopping ??= this.doStop(cause);
    return this.stopping;
  }

  private async doStop(cause: StopCause): Promise<void> {
    this.slot.free();
    void this.supervisor?.send({ type: 'stop' });
    this.failInflight(cause);
    const worker = this.worker;
    const api = this.api;
    this.state.phase = 'stopping';
    this.options.onFacts?.(this.name);
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
    this.options.onFacts?.(this.name);
  }
}
