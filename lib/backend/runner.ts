import { CLIENT_CAPABILITIES_META_KEY, type Client, LOG_LEVEL_META_KEY, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { type BackendCall, type CallError, type CallOutcome, type InputMethod, type ProgressParams } from '../shared/messages/calls.ts';
import { CallTimer } from './call-timer.ts';
import { type ExitInfo, toWireError, type WireError, type RunnerEvent } from '../shared/messages/state-events.ts';
import type { BackendSpec, StdioSpec } from '../shared/backend-spec.ts';
import type { Logger } from '../shared/logger.ts';
import type { ChildExit } from './child.ts';
import { describeEnd } from './describe.ts';
import { DEFAULT_STDERR_LIMITS, type StderrLimits } from '../shared/stderr-limits.ts';
import { BackendStderr } from './backend-stderr.ts';
import { connectStdio, type StdioConnection } from './stdio-connection.ts';
import { ConnectStepTimeout, connectTimeoutMessage, type ConnectStep, type ConnectWatch, watchConnect } from './connect-watch.ts';
import { reconnectDelay } from '../shared/backoff.ts';
import { rerunning } from './rerun.ts';
import { TimeoutRun } from './call-health.ts';
import { CallFailureLog } from './call-failure-log.ts';
import { maskSecretValues, secretValuesOf } from '../shared/secret-values.ts';
import { carryTaskHandles, unwrapTaskHandle } from './task-handles.ts';
import { refuseDeepMessages } from './deep-messages.ts';
import { callErrorOf, callTimedOut, failureFields, notConnected } from './call-errors.ts';
import { newBackendClient, remoteTransport } from './backend-client.ts';
import { isUnreachable } from './unreachable.ts';
import { readInventory } from './read-inventory.ts';
import { maskDeep } from './secret-events.ts';
import { ResourceSubscriptions } from './resource-subscriptions.ts';

type Emit = (event: RunnerEvent) => void;

// Grace periods of the polite stop (close stdin, wait, SIGTERM, wait, SIGKILL) for a child this
// runner ends by itself: one that failed its start, and one replaced by a new start.
const FAILED_START_GRACE_MS = 500;
const REPLACED_GRACE_MS = 500;
type EventBody = RunnerEvent extends infer E ? (E extends RunnerEvent ? Omit<E, 'v'> : never) : never;

export type RunnerOptions = {
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** Largest JSON-RPC message accepted from a stdio backend, bytes. */
  maxMessageBytes: number;
  /** Where stdio children are recorded for orphan cleanup; null = not recorded. */
  stateDir: string | null;
  /** Nice value of a stdio child (it also inherits the worker thread's). */
  nice?: number;
  /** Effective stderr limits; default the spec's. */
  stderrLimits?: StderrLimits;
  /**
   * The backend asks the client something (elicitation, sampling) during a call: the answer, or
   * a thrown ProtocolError the backend receives as its error.
   */
  onInputRequest?: (method: InputMethod, params: Record<string, unknown>, meta: Record<string, unknown> | undefined) => Promise<Record<string, unknown>>;
};

// Results cross to the hub as they came: no validation here (the client-facing server re-checks
// what it must), input_required and task results included.
const RAW_RESULT = z.looseObject({});
// The SDK's own clock is not used: the call's requestTimeout is a CallTimer that can pause.
const NO_SDK_TIMEOUT = 2_147_483_647;

function isAuthError(error: unknown): boolean {
  const status = (error as { status?: unknown; code?: unknown } | null)?.status ?? (error as { code?: unknown } | null)?.code;
  return status === 401 || /\b401\b/.test(String((error as Error | null)?.message ?? ''));
}

// One backend connection: the child (stdio) or remote transport, the MCP client and its ping.
// Each start() and stop() begins a new generation; an older start that is still awaiting sees it
// is no longer current and touches nothing shared. A runner has at most one child at any moment.
export class BackendRunner {
  private generation = 0;
  // The latest stdio child, from its spawn until it has been stopped completely.
  private stdio: StdioConnection | null = null;
  private client: Client | null = null;
  private connectWatch: ConnectWatch | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  private connected = false;
  private readonly inflight = new Map<number, { abort: AbortController; timer: CallTimer }>();
  /** Resource URIs some client is subscribed to: kept across reconnects, re-established on each. */
  private readonly subscriptions: ResourceSubscriptions;
  private reconnectAttempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly stderr: BackendStderr;
  private readonly timeouts = new TimeoutRun();
  private readonly failures: CallFailureLog;

  constructor(
    private readonly spec: BackendSpec,
    private readonly emitEvent: Emit,
    private readonly log: Logger,
    private readonly options: RunnerOptions,
  ) {
    const secrets = secretValuesOf(spec);
    this.secrets = secrets;
    this.mask = (text, cut = false) => maskSecretValues(text, secrets, cut);
    this.stderr = new BackendStderr(spec, log, options.stderrLimits ?? { ...DEFAULT_STDERR_LIMITS }, secrets.length ? this.mask : null);
    this.subscriptions = new ResourceSubscriptions(spec, log);
    this.failures = new CallFailureLog(({ level, fields, message }) => this.log[level](fields, message), (text) => this.mask(text));
  }

  private readonly secrets: readonly string[];
  /** Masks the server's configured secrets (secret-values.ts) in what it wrote, before anything cuts or folds it (`cut`: the text was cut, it may end in a secret's start). */
  private readonly mask: (text: string, cut?: boolean) => string;

  // The last stderr line for an exit's hint, masked before the hint cuts it (a line cut at lineBytes may end in a secret's start).
  private lastStderr(stdio: StdioConnection): string {
    const { line, truncated } = stdio.lastStderr();
    return this.mask(line, truncated);
  }

  private emit(event: EventBody): void {
    this.emitEvent({ v: 1, ...event } as RunnerEvent);
  }

  /** Connects once. Never rejects: the outcome is reported as events. */
  async start(): Promise<void> {
    const generation = ++this.generation;
    this.stopping = false;
    this.cancelReconnect();
    // Defence in depth: a child still alive or connecting is stopped completely first.
    await this.endConnection(REPLACED_GRACE_MS);
    if (generation !== this.generation) return;

    const at = Date.now();
    const client = this.newClient();
    this.client = client;
    let transport: Transport;
    let stdio: StdioConnection | null = null;
    if (this.spec.type === 'stdio') {
      stdio = this.connectChild(this.spec);
      this.emit({ type: 'connecting', at, pid: stdio.child.pid });
      transport = stdio.transport;
    } else {
      this.emit({ type: 'connecting', at, pid: null });
      transport = remoteTransport(this.spec);
    }

    // Each step of the start gets connectionTimeout: the SDK's era probe and initialize (the SDK
    // times each request alone), then the first reading of the lists (a backend is not connected
    // until its lists are known; requestTimeout is for calls). One budget for all of them failed
    // healthy backends while 50 started at once on 2 cores: each step waits for a busy machine.
    // The SDK leaves two steps untimed (the transport's start, the initialized notification): the watch times them and names the step.
    const watch = watchConnect(transport, this.spec.connectionTimeout);
    this.connectWatch = watch;
    try {
      const connecting = client.connect(transport, { timeout: this.spec.connectionTimeout });
      await (stdio ? Promise.race([connecting, stdio.ending.then(childEnded)]) : connecting);
      watch.release();
      // A 2026-07-28 backend's task handles pass through as they came (task-handles.ts).
      if (client.getProtocolEra() === 'modern') carryTaskHandles(transport);
      refuseDeepMessages(transport, this.spec.name, (line) => this.log.warn(line.fields, line.message));
      watch.step = 'lists';
      const inventory = await readInventory(client, this.spec.connectionTimeout);
      if (generation !== this.generation) return;
      this.connected = true;
      this.reconnectAttempt = 0;
      this.emit({
        type: 'connected',
        at: Date.now(),
        pid: stdio?.child.pid ?? null,
        protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
        instructions: client.getInstructions() ?? null,
        inventory,
        capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
      });
      this.watchAfterConnect(generation, client, stdio);
    } catch (error) {
      watch.release();
      if (generation !== this.generation) return;
      const { wire, exit } = await this.startError(error, stdio, watch.step);
      if (generation !== this.generation) return;
      await this.endConnection(FAILED_START_GRACE_MS);
      // A stop() or start() that came meanwhile wins: this attempt is no longer reported.
      if (generation !== this.generation) return;
      const authRequired = isAuthError(error);
      this.emit({ type: 'failed', at: Date.now(), error: wire, authRequired, exit });
      // Credentials do not fix themselves: a 401 waits for a configuration change.
      if (!authRequired) this.scheduleReconnect();
    }
  }

  private newClient(): Client {
    // A change announced while a refresh reads the lists may be missing from its answer: one more follows.
    const refresh = rerunning(() => this.refreshInventory(client));
    const client = newBackendClient(this.spec.protocolVersion, {
      onListChanged: refresh,
      ...(this.options.onInputRequest ? { onInputRequest: (method, params, meta) => this.options.onInputRequest!(method, params, meta) } : {}),
      onResourceUpdated: (uri) => this.emit({ type: 'resourceUpdated', uri }),
      onTaskStatus: (params) => this.emit({ type: 'taskStatus', params }),
      onLogMessage: (params) => this.emit({ type: 'backendLog', params }),
      log: this.log,
    });
    return client;
  }

  private connectChild(spec: StdioSpec): StdioConnection {
    const { maxMessageBytes, stateDir, nice = 0 } = this.options;
    const mask = this.mask;
    const stdio = connectStdio(spec, { maxMessageBytes, stateDir, nice, capture: () => this.stderr.current(), mask, log: this.log });
    this.stdio = stdio;
    return stdio;
  }

  /** New stderr limits (a configuration change): they apply at once, without a restart (backend-stderr.ts). */
  setStderrLimits(limits: StderrLimits): void {
    this.stderr.setLimits(limits);
  }

  // Remote backends get a fresh transport with backoff; stdio restarts belong to supervision.
  private scheduleReconnect(): void {
    if (this.spec.type === 'stdio' || this.stopping) return;
    this.reconnectAttempt++;
    const delay = reconnectDelay(this.reconnectAttempt);
    this.log.info({ attempt: this.reconnectAttempt, delayMs: delay }, 'reconnecting to the remote backend');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.start();
    }, delay);
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  // The clearest reason for a failed start: a child that died (or never spawned) explains a
  // broken pipe better than the pipe error the client saw first.
  private async startError(error: unknown, stdio: StdioConnection | null, step: ConnectStep): Promise<{ wire: WireError; exit: ExitInfo | null }> {
    if (stdio) {
      const end = error instanceof ChildEndedError ? await stdio.ended() : await stdio.exitSoon().then((exit) => exit && { exit, pipe: null });
      const when = step === 'lists' ? 'while its tools, resources and prompts were read' : 'during initialize';
      if (end) return { wire: describeEnd(this.spec as StdioSpec, end, when, this.lastStderr(stdio)), exit: exitInfo(end.exit) };
    }
    const wire = toWireError(error);
    // Our timer names its own step; the SDK's (probe, initialize, lists) ran out in the step the watch saw last.
    const timedOut = error instanceof ConnectStepTimeout ? error.step : (error as { code?: unknown } | null)?.code === SdkErrorCode.RequestTimeout ? step : null;
    if (timedOut) wire.message = connectTimeoutMessage(timedOut, this.spec.connectionTimeout, this.spec.type, this.spec.protocolVersion);
    return { wire, exit: null };
  }

  // A backend announced a list change: read its lists again and report them.
  private async refreshInventory(client: Client): Promise<void> {
    if (this.client !== client || this.stopping) return;
    try {
      const inventory = await readInventory(client, this.spec.requestTimeout);
      if (this.client === client && !this.stopping) this.emit({ type: 'inventory', inventory });
    } catch (error) {
      this.log.warn(failureFields(this.spec.name, this.spec.requestTimeout, error), 'could not refresh the backend inventory');
    }
  }

  /** Routes one client request to the backend. Never rejects. */
  async request(call: BackendCall): Promise<CallOutcome> {
    const outcome = await this.send(call);
    if (!outcome.ok) this.failures.failed(call, outcome.error);
    // tasks/result waits for its task to end by design (bounded by the task's ttl): no timeout to count.
    if (call.method === 'tasks/result') return outcome;
    const consecutiveTimeouts = this.timeouts.record(outcome);
    if (consecutiveTimeouts !== null) this.emit({ type: 'callHealth', at: Date.now(), consecutiveTimeouts });
    return outcome;
  }

  private async send(call: BackendCall): Promise<CallOutcome> {
    const client = this.client;
    if (!client || !this.connected) return { ok: false, error: this.notConnected() };
    const abort = new AbortController();
    let timedOut = false;
    const timer = new CallTimer(call.method === 'tasks/result' ? null : this.spec.requestTimeout, () => {
      timedOut = true;
      abort.abort(new Error('requestTimeout'));
    });
    this.inflight.set(call.callId, { abort, timer });
    const onprogress = (progress: ProgressParams) => {
      timer.restart();
      if (call.wantsProgress) this.emit({ type: 'progress', callId: call.callId, progress });
    };
    const options = { timeout: NO_SDK_TIMEOUT, signal: abort.signal, onprogress, allowInputRequired: true };
    try {
      // A 2026-07-28 backend learns per request what the client behind the call can answer, and which log messages it wants.
      const modern = client.getProtocolEra() === 'modern';
      const envelope = {
        ...(modern && call.clientCapabilities ? { [CLIENT_CAPABILITIES_META_KEY]: call.clientCapabilities } : {}),
        ...(modern && call.logLevel ? { [LOG_LEVEL_META_KEY]: call.logLevel } : {}),
      };
      const params = Object.keys(envelope).length ? { ...call.params, _meta: { ...(call.params._meta as Record<string, unknown> | undefined), ...envelope } } : call.params;
      const result =
        call.method === 'completion/complete'
          ? await client.complete(params as never, options)
          : await client.request({ method: call.method, params } as never, RAW_RESULT, { ...options, ...(call.method === 'resources/read' ? { cacheMode: 'bypass' as const } : {}) });
      return { ok: true, result: unwrapTaskHandle(result as Record<string, unknown>) };
    } catch (error) {
      if (!timedOut && !abort.signal.aborted) this.lostIfUnreachable(client, error);
      return { ok: false, error: timedOut ? this.timedOut() : this.callError(error, abort.signal.aborted) };
    } finally {
      timer.clear();
      this.inflight.delete(call.callId);
    }
  }

  cancel(callId: number): void {
    this.inflight.get(callId)?.abort.abort(new Error('cancelled by the client'));
  }

  /** The backend waits for the client's answer on this call: its clock stops meanwhile. */
  pauseTimeout(callId: number): void {
    this.inflight.get(callId)?.timer.pause();
  }

  resumeTimeout(callId: number): void {
    this.inflight.get(callId)?.timer.resume();
  }

  private timedOut(): CallError {
    return callTimedOut(this.spec.name, this.spec.requestTimeout);
  }

  private notConnected(): CallError {
    return notConnected(this.spec.name);
  }

  /** A failed call's error for its client: the backend's words and data with its server's configured secrets masked (decisions §4). */
  private callError(error: unknown, cancelled: boolean): CallError {
    return this.masked(callErrorOf(this.spec.name, this.spec.requestTimeout, error, cancelled));
  }

  private masked(failure: CallError): CallError {
    if (this.secrets.length === 0) return failure;
    return { ...failure, message: this.mask(failure.message), ...(failure.data !== undefined ? { data: maskDeep(failure.data, this.secrets) } : {}) };
  }

  /**
   * Some client wants updates of this resource: the backend is asked now (its error is the
   * answer) and again after every reconnect (resource-subscriptions.ts).
   */
  subscribe(uri: string): Promise<CallOutcome> {
    // The backend's refusal reaches a client: its server's configured secrets masked, as a failed call's.
    return this.subscriptions.subscribe(this.connectedClient, uri).then((outcome) => (outcome.ok ? outcome : { ok: false, error: this.masked(outcome.error) }));
  }

  unsubscribe(uri: string): Promise<void> {
    return this.subscriptions.unsubscribe(this.connectedClient, uri);
  }

  private get connectedClient(): Client | null {
    return this.connected ? this.client : null;
  }

  private watchAfterConnect(generation: number, client: Client, stdio: StdioConnection | null): void {
    this.subscriptions.resubscribe(client);
    this.pingTimer = setInterval(() => void this.ping(client), this.options.pingIntervalMs);
    if (stdio) {
      void stdio.ending.then(async () => {
        if (generation !== this.generation || this.client !== client) return;
        // Requests fail as not connected from now on, while the child is stopped.
        this.disconnected();
        const end = await stdio.ended();
        await this.endConnection(0);
        if (generation !== this.generation) return;
        const error = describeEnd(this.spec as StdioSpec, end, 'unexpectedly', this.lastStderr(stdio));
        this.emit({ type: 'exited', at: end.exit.at, exit: exitInfo(end.exit), error });
      });
    } else {
      client.onclose = () => {
        if (generation !== this.generation || this.client !== client) return;
        this.disconnected();
        this.emit({ type: 'failed', at: Date.now(), error: { name: 'ConnectionClosed', message: 'the connection to the remote backend closed' }, authRequired: false, exit: null });
        this.scheduleReconnect();
      };
    }
  }

  private async ping(client: Client): Promise<void> {
    try {
      // The 2026-07-28 era has no `ping`; `server/discover` is its cheap round trip.
      const options = { timeout: this.options.pingTimeoutMs };
      await (client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options));
      this.emit({ type: 'ping', at: Date.now(), ok: true, error: null });
    } catch (error) {
      if (this.stopping) return;
      this.emit({ type: 'ping', at: Date.now(), ok: false, error: toWireError(error) });
      this.lostIfUnreachable(client, error);
    }
  }

  // A remote backend that cannot be reached any more has lost its transport, not missed one answer
  // (decisions §3: a transport error is `error`, critical): it is reported failed, its calls in
  // flight fail, and it is reconnected with backoff. Its client sees no close: HTTP is per request.
  private lostIfUnreachable(client: Client, error: unknown): void {
    if (this.spec.type === 'stdio' || this.stopping || !this.connected || client !== this.client || !isUnreachable(error)) return;
    this.generation++; // the old client's later close is not news
    this.disconnected();
    const wire = toWireError(error);
    this.emit({ type: 'failed', at: Date.now(), error: { name: wire.name, message: `the remote backend cannot be reached: ${wire.message}` }, authRequired: false, exit: null });
    this.scheduleReconnect();
  }

  private disconnected(): void {
    this.connected = false;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  // Closes the client and stops the child with `graceMs` (see child.ts); resolves once the child
  // and its process group are gone. Concurrent calls share the child's one stop.
  private async endConnection(graceMs: number): Promise<void> {
    this.disconnected();
    const client = this.client;
    const stdio = this.stdio;
    this.client = null;
    // A start still connecting fails now, not when its step times out: before the SDK attaches
    // the transport (its start, the era probe) closing the client would not close it, and the
    // SDK closes it as the connect fails.
    this.connectWatch?.cancel();
    this.connectWatch = null;
    await client?.close().catch(() => undefined);
    if (!stdio) return;
    await stdio.child.stop(graceMs);
    if (this.stdio === stdio) this.stdio = null;
  }

  /** Stops the backend: the child gets `graceMs` after stdin closes, then SIGTERM, then SIGKILL. */
  async stop(graceMs: number): Promise<void> {
    const generation = ++this.generation;
    this.stopping = true;
    this.cancelReconnect();
    await this.endConnection(graceMs);
    this.failures.flush();
    if (generation !== this.generation) return;
    await this.stderr.close();
    if (generation === this.generation) this.emit({ type: 'stopped', at: Date.now() });
  }

  /**
   * For a worker that is failing: SIGKILL to the child's process group at once; resolves with the
   * child's exit once it has been reaped (null without a child). Nothing is reported.
   */
  async kill(): Promise<ExitInfo | null> {
    this.generation++;
    this.stopping = true;
    this.cancelReconnect();
    this.disconnected();
    const stdio = this.stdio;
    if (!stdio) return null;
    await stdio.child.kill();
    return exitInfo(await stdio.child.exited);
  }
}

function exitInfo({ code, signal, at, pid }: ChildExit): ExitInfo {
  return { code, signal, at, pid };
}

// The child exited (or never spawned), or closed a pipe, before the connect completed.
class ChildEndedError extends Error {
  constructor() {
    super('the backend process ended during initialize');
  }
}

function childEnded(): never {
  throw new ChildEndedError();
}
