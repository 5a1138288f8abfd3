import { Client, ProtocolError, ProtocolErrorCode, SdkErrorCode, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import {
  type BackendCall,
  type CallError,
  type CallOutcome,
  type ExitInfo,
  type Inventory,
  type ProgressParams,
  toWireError,
  type WireError,
  type WorkerEvent,
} from '../shared/messages.ts';
import type { BackendSpec, ProtocolMode, StdioSpec } from '../config/types.ts';
import type { Logger } from '../shared/logger.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../shared/version.ts';
import { type SpawnedChild, spawnChild } from './child.ts';
import { describeExit, describeStartFailure } from './describe.ts';
import { LineSplitter } from './line-splitter.ts';
import { formatStderrEntry, StderrCapture } from './stderr-capture.ts';
import { PipeTransport } from './pipe-transport.ts';
import { reconnectDelay } from '../shared/backoff.ts';
import { rerunning } from './rerun.ts';
import { redactCredentials } from '../shared/sanitize.ts';

type Emit = (event: WorkerEvent) => void;

// How long a failed start waits for the child's exit status, which names the cause better.
const EXIT_EXPLAINS_MS = 300;
type EventBody = WorkerEvent extends infer E ? (E extends WorkerEvent ? Omit<E, 'v'> : never) : never;

export type RunnerOptions = {
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** Largest JSON-RPC message accepted from a stdio backend, bytes. */
  maxMessageBytes: number;
  /** Where stdio children are recorded for orphan cleanup; null = not recorded. */
  stateDir: string | null;
};

function negotiation(mode: ProtocolMode) {
  if (mode === 'legacy') return { mode: 'legacy' as const };
  if (mode === '2026-07-28') return { mode: { pin: '2026-07-28' } };
  return { mode: 'auto' as const };
}

function isAuthError(error: unknown): boolean {
  const status = (error as { status?: unknown; code?: unknown } | null)?.status ?? (error as { code?: unknown } | null)?.code;
  return status === 401 || /\b401\b/.test(String((error as Error | null)?.message ?? ''));
}

// One backend connection: the child (stdio) or remote transport, the MCP client and its ping.
export class BackendRunner {
  private child: SpawnedChild | null = null;
  private client: Client | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private missedPings = 0;
  private stopping = false;
  private lastStderrLine = '';
  private connected = false;
  private readonly inflight = new Map<number, AbortController>();
  private reconnectAttempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stderrCapture: StderrCapture | null = null;

  constructor(
    private readonly spec: BackendSpec,
    private readonly emitEvent: Emit,
    private readonly log: Logger,
    private readonly options: RunnerOptions,
  ) {}

  private emit(event: EventBody): void {
    this.emitEvent({ v: 1, ...event } as WorkerEvent);
  }

  /** Connects once. Never rejects: the outcome is reported as events. */
  async start(): Promise<void> {
    this.stopping = false;
    const at = Date.now();
    // A change announced while a refresh reads the lists may be missing from its answer: one more follows.
    const onChanged = rerunning(() => this.refreshInventory(client));
    const listChanged = { autoRefresh: false, debounceMs: 100, onChanged };
    const client: Client = new Client(
      { name: SERVICE_NAME, version: SERVICE_VERSION },
      { capabilities: {}, versionNegotiation: negotiation(this.spec.protocolVersion), listChanged: { tools: listChanged, prompts: listChanged, resources: listChanged } },
    );
    client.onerror = (error) => this.log.debug({ err: redactCredentials(error.message) }, 'MCP client error');
    client.setNotificationHandler('notifications/message', (notification) => {
      this.emit({ type: 'backendLog', params: notification.params as Record<string, unknown> });
    });
    this.client = client;
    let transport: Transport;
    let exitDuringStart: Promise<never> | null = null;
    if (this.spec.type === 'stdio') {
      const child = this.startChild(this.spec);
      this.emit({ type: 'connecting', at, pid: child.pid });
      transport = new PipeTransport(child.stdout, child.stdin, {
        name: this.spec.name,
        maxMessageBytes: this.options.maxMessageBytes,
        onOversized: (bytes) => this.log.warn({ bytes, limit: this.options.maxMessageBytes }, 'skipped a message from the backend over the size limit'),
      });
      exitDuringStart = child.exited.then((exit) => {
        throw exit.spawnError ? new Error(describeStartFailure(this.spec as StdioSpec, exit.spawnError)) : new Error(describeExit(exit, 'during initialize', this.lastStderrLine));
      });
      exitDuringStart.catch(() => undefined);
    } else {
      this.emit({ type: 'connecting', at, pid: null });
      const url = new URL(this.spec.url);
      const requestInit = { headers: this.spec.headers };
      transport = this.spec.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
    }

    try {
      const connecting = client.connect(transport, { timeout: this.spec.connectionTimeout });
      await (exitDuringStart ? Promise.race([connecting, exitDuringStart]) : connecting);
      const inventory = await this.readInventory(client);
      if (this.stopping) return;
      this.connected = true;
      this.reconnectAttempt = 0;
      this.emit({
        type: 'connected',
        at: Date.now(),
        pid: this.child?.pid ?? null,
        protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
        instructions: client.getInstructions() ?? null,
        inventory,
      });
      this.watchAfterConnect(client);
    } catch (error) {
      if (this.stopping) return;
      const { wire, exit } = await this.startError(error);
      await this.teardown(500);
      const authRequired = isAuthError(error);
      this.emit({ type: 'failed', at: Date.now(), error: wire, authRequired, exit });
      // Credentials do not fix themselves: a 401 waits for a configuration change.
      if (!authRequired) this.scheduleReconnect();
    }
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

  // The clearest reason for a failed start: a child that died (or never spawned) explains a
  // broken pipe better than the pipe error the client saw first.
  private async startError(error: unknown): Promise<{ wire: WireError; exit: ExitInfo | null }> {
    const child = this.child;
    if (child && this.spec.type === 'stdio') {
      const exited = await Promise.race([child.exited, new Promise<null>((r) => setTimeout(r, EXIT_EXPLAINS_MS, null))]);
      if (exited) {
        const { spawnError, ...exit } = exited;
        const wire = spawnError
          ? { name: 'SpawnError', message: describeStartFailure(this.spec, spawnError) }
          : { name: 'BackendExited', message: describeExit(exited, 'during initialize', this.lastStderrLine) };
        return { wire, exit };
      }
    }
    const wire = toWireError(error);
    if (/timed? ?out/i.test(wire.message)) wire.message = `MCP initialize timed out after ${this.spec.connectionTimeout} ms (connectionTimeout)`;
    return { wire, exit: null };
  }

  private startChild(spec: StdioSpec): SpawnedChild {
    const child = spawnChild(spec);
    this.child = child;
    const stderr = child.stderr;
    if (stderr) {
      // One capture per backend, so its quota holds across restarts (decisions §7).
      this.stderrCapture ??= new StderrCapture({
        emit: (entry) => this.log.info({ stream: 'stderr', ...(entry.kind === 'line' ? (entry.truncated ? { truncated: true } : {}) : { [entry.kind]: entry.count }) }, formatStderrEntry(entry)),
        onError: (error) => this.log.warn({ err: redactCredentials(toWireError(error).message) }, 'stderr capture failed'),
      });
      const capture = this.stderrCapture;
      capture.setFlowControl(() => stderr.pause(), () => stderr.resume());
      const splitter = new LineSplitter((line, truncated) => {
        if (!line) return;
        this.lastStderrLine = line;
        capture.push(line, truncated);
      });
      stderr.on('data', (chunk: Buffer) => splitter.push(chunk));
      stderr.on('end', () => {
        splitter.flush();
        void capture.flush();
      });
    }
    return child;
  }

  private async readInventory(client: Client): Promise<Inventory> {
    const caps = client.getServerCapabilities() ?? {};
    // 'refresh': the client's response cache must not hide a change the backend announced.
    const options = { timeout: this.spec.requestTimeout, cacheMode: 'refresh' as const };
    const [tools, resources, prompts, resourceTemplates] = await Promise.all([
      caps.tools ? client.listTools(undefined, options).then((r) => r.tools) : [],
      caps.resources ? client.listResources(undefined, options).then((r) => r.resources) : [],
      caps.prompts ? client.listPrompts(undefined, options).then((r) => r.prompts) : [],
      caps.resources ? client.listResourceTemplates(undefined, options).then((r) => r.resourceTemplates) : [],
    ]);
    return { tools, resources, prompts, resourceTemplates };
  }

  // A backend announced a list change: read its lists again and report them.
  private async refreshInventory(client: Client): Promise<void> {
    if (this.client !== client || this.stopping) return;
    try {
      const inventory = await this.readInventory(client);
      if (this.client === client && !this.stopping) this.emit({ type: 'inventory', inventory });
    } catch (error) {
      this.log.warn({ err: redactCredentials(toWireError(error).message) }, 'could not refresh the backend inventory');
    }
  }

  /** Routes one client request to the backend. Never rejects. */
  async request(call: BackendCall): Promise<CallOutcome> {
    const client = this.client;
    if (!client || !this.connected) {
      return { ok: false, error: { kind: 'disconnected', code: ProtocolErrorCode.InternalError, message: `backend '${this.spec.name}' is not connected` } };
    }
    const abort = new AbortController();
    this.inflight.set(call.callId, abort);
    const onprogress = (progress: ProgressParams) => this.emit({ type: 'progress', callId: call.callId, progress });
    const options = {
      timeout: this.spec.requestTimeout,
      signal: abort.signal,
      ...(call.wantsProgress ? { onprogress, resetTimeoutOnProgress: true } : {}),
    };
    try {
      const params = call.params as never;
      const result =
        call.method === 'tools/call'
          ? await client.callTool(params, options)
          : call.method === 'resources/read'
            ? await client.readResource(params, { ...options, cacheMode: 'bypass' })
            : call.method === 'prompts/get'
              ? await client.getPrompt(params, options)
              : await client.complete(params, options);
      return { ok: true, result: result as Record<string, unknown> };
    } catch (error) {
      return { ok: false, error: this.callError(error, abort.signal.aborted) };
    } finally {
      this.inflight.delete(call.callId);
    }
  }

  cancel(callId: number): void {
    this.inflight.get(callId)?.abort(new Error('cancelled by the client'));
  }

  private callError(error: unknown, cancelled: boolean): CallError {
    const name = this.spec.name;
    if (cancelled) return { kind: 'cancelled', code: ProtocolErrorCode.InternalError, message: `request to backend '${name}' was cancelled` };
    if (error instanceof ProtocolError) return { kind: 'mcp', code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) };
    const code = (error as { code?: unknown }).code;
    if (code === SdkErrorCode.RequestTimeout) {
      return { kind: 'timeout', code: ProtocolErrorCode.InternalError, message: `request to backend '${name}' timed out after ${this.spec.requestTimeout} ms (requestTimeout)` };
    }
    if (code === SdkErrorCode.ConnectionClosed || code === SdkErrorCode.NotConnected || code === SdkErrorCode.SendFailed) {
      return { kind: 'disconnected', code: ProtocolErrorCode.InternalError, message: `backend '${name}' disconnected during the request` };
    }
    return { kind: 'internal', code: ProtocolErrorCode.InternalError, message: `backend '${name}' failed the request: ${toWireError(error).message}` };
  }

  private watchAfterConnect(client: Client): void {
    this.missedPings = 0;
    this.pingTimer = setInterval(() => void this.ping(client), this.options.pingIntervalMs);
    const child = this.child;
    if (child) {
      void child.exited.then(async (exit) => {
        if (this.stopping || this.child !== child) return;
        this.disconnected();
        await client.close().catch(() => undefined);
        this.emit({ type: 'exited', at: exit.at, exit: { code: exit.code, signal: exit.signal, at: exit.at, pid: exit.pid }, error: { name: 'BackendExited', message: describeExit(exit, 'unexpectedly', this.lastStderrLine) } });
        this.child = null;
      });
    } else {
      client.onclose = () => {
        if (this.stopping) return;
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
      this.missedPings = 0;
      this.emit({ type: 'ping', at: Date.now(), ok: true, error: null });
    } catch (error) {
      if (this.stopping) return;
      this.missedPings++;
      this.emit({ type: 'ping', at: Date.now(), ok: false, error: toWireError(error) });
    }
  }

  private disconnected(): void {
    this.connected = false;
    this.clearPing();
  }

  private clearPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private async teardown(graceMs: number): Promise<void> {
    this.disconnected();
    const client = this.client;
    const child = this.child;
    this.client = null;
    this.child = null;
    await client?.close().catch(() => undefined);
    await child?.stop(graceMs);
  }

  /** Stops the backend: the child gets `graceMs` after stdin closes, then SIGTERM, then SIGKILL. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.teardown(graceMs);
    this.emit({ type: 'stopped', at: Date.now() });
  }
}
