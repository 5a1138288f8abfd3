// The backend worker's ends of the direct channels to the hubs (one port per hub): calls come in
// and are run on the backend; their progress and outcome go back to the hub that holds the call;
// the connection and inventory go to every hub. A hub that restarts gets a fresh port, and the
// current connection is told to it at once.
//
// When the backend asks the client something during a call (elicitation, sampling), the
// question goes to the one hub with calls in flight here, which finds the session it is for. A
// hub whose client cannot be asked now (2026-07-28) has the question parked: it waits here, in
// the worker every hub reaches, until a retry resumes it through any hub (--input-timeout at most).
import type { MessagePort } from 'node:worker_threads';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { BackendToHub, HubToBackend, InputMethod, InputOutcome } from '../shared/messages/calls.ts';
import type { ConnectionFacts } from '../shared/messages/calls.ts';
import type { BackendCall, CallOutcome, Inventory, ProgressParams } from '../shared/messages/calls.ts';
import { relatedTaskOf } from '../shared/related-task.ts';
import { Code } from '../shared/errors.ts';

/** What the ports need of the backend connection (the runner). */
export type CallRunner = {
  request(call: BackendCall): Promise<CallOutcome>;
  subscribe(uri: string): Promise<CallOutcome>;
  unsubscribe(uri: string): Promise<void>;
  cancel(callId: number): void;
  pauseTimeout(callId: number): void;
  resumeTimeout(callId: number): void;
};

export type HubPortsOptions = {
  backend: string;
  /** How long a parked question waits for the client's retry. */
  inputTimeoutMs: number;
  /** For the worker's log: what could not be routed. */
  warn: (fields: Record<string, unknown>, msg: string) => void;
};

// Where a call's outcome goes: a hub and its id for the call, or nowhere while it is parked.
type Origin = { hub: number; callId: number } | null;
type Question = { workerCallId: number; method: InputMethod; params: Record<string, unknown>; settle: (outcome: InputOutcome) => void };

type Parked = Question & { timer: NodeJS.Timeout };
/** Parked questions that timed out, remembered so a late retry is told why (bounded). */
const EXPIRED_KEPT = 1_000;
const GONE = 'the backend restarted or stopped since it asked this question; call it again';

export class HubPorts {
  private readonly ports = new Map<number, MessagePort>();
  private connection: ConnectionFacts | null = null;
  private connections = 0;
  private nextCallId = 1;
  private nextRequestId = 1;
  private readonly origins = new Map<number, Origin>();
  private readonly questions = new Map<number, Question>();
  private readonly parked = new Map<number, Parked>();
  /** The backend task each tasks/result call in flight waits for (its questions are that call's). */
  private readonly awaitedTasks = new Map<number, string>();
  /** Which hubs have clients subscribed to each resource URI of the backend. */
  private readonly subscribers = new Map<string, Set<number>>();
  /** The backend's answer still to come for a resource it is being asked to send updates of. */
  private readonly asking = new Map<string, Promise<CallOutcome>>();
  /** Why each recently voided parked question ended, for a late retry. */
  private readonly expired = new Map<number, string>();

  constructor(
    private readonly runner: CallRunner,
    private readonly options: HubPortsOptions,
  ) {}

  /** A hub's (new) port; the previous port of that hub is closed and its calls disowned. */
  attach(hub: number, port: MessagePort): void {
    const previous = this.ports.get(hub);
    if (previous) {
      this.disown(hub);
      previous.close();
    }
    this.ports.set(hub, port);
    port.on('message', (message: HubToBackend) => this.onMessage(hub, message));
    // A message the hub sent that cannot be read here is lost: said, not silent (the hub refuses what nests too deep to send).
    port.on('messageerror', (error) => this.options.warn({ hub, code: Code.protocol_error, error: error.message }, `a message from MCP worker ${hub} could not be read and was dropped: ${error.message}`));
    port.on('close', () => {
      if (this.ports.get(hub) !== port) return;
      this.ports.delete(hub);
      this.disown(hub);
      // A hub that ended had its sessions end too: their subscriptions go with them.
      for (const uri of [...this.subscribers.keys()]) this.unsubscribe(hub, uri);
    });
    if (this.connection) port.postMessage({ type: 'connected', ...this.connection } satisfies BackendToHub);
  }

  // The calls a hub held when its port closed or was replaced (the hub restarted): their clients
  // have been told they failed, so they are cancelled in the backend and their outcome and
  // progress go nowhere. A new hub numbers its calls from 1 again: an old call's answer must not
  // reach the new call of the same number (another client's).
  private disown(hub: number): void {
    for (const [callId, origin] of this.origins) {
      if (origin?.hub !== hub) continue;
      this.origins.set(callId, null);
      this.runner.cancel(callId);
    }
  }

  private post(hub: number, message: BackendToHub): void {
    this.ports.get(hub)?.postMessage(message);
  }

  private onMessage(hub: number, message: HubToBackend): void {
    switch (message.type) {
      case 'call':
        return this.call(hub, message);
      case 'cancel':
        for (const [callId, origin] of this.origins) if (origin?.hub === hub && origin.callId === message.callId) this.runner.cancel(callId);
        return;
      case 'inputResponse':
        return this.answer(message.requestId, message.outcome);
      case 'park':
        return this.park(message.requestId);
      case 'resume':
        return this.resume(hub, message.callId, message.parkId, message.outcome);
      case 'subscribe':
        return this.subscribe(hub, message.callId, message.uri);
      case 'unsubscribe':
        return this.unsubscribe(hub, message.uri);
      case 'parkedFor':
        return this.post(hub, { type: 'outcome', callId: message.callId, outcome: { ok: true, result: this.parkedFor(message.taskId) } });
      default: {
        const unknown: never = message;
        throw new Error(`protocol error: unknown message from hub ${hub}: ${JSON.stringify(unknown)}`);
      }
    }
  }

  private call(hub: number, message: Extract<HubToBackend, { type: 'call' }>): void {
    const callId = this.nextCallId++;
    this.origins.set(callId, { hub, callId: message.callId });
    if (message.method === 'tasks/result' && typeof message.params.taskId === 'string') this.awaitedTasks.set(callId, message.params.taskId);
    const call: BackendCall = { callId, method: message.method, params: message.params, wantsProgress: message.wantsProgress };
    if (message.clientCapabilities) call.clientCapabilities = message.clientCapabilities;
    if (message.logLevel) call.logLevel = message.logLevel;
    void this.runner.request(call).then((outcome) => {
      const origin = this.origins.get(callId);
      this.origins.delete(callId);
      this.awaitedTasks.delete(callId);
      // A call parked by its hub and never resumed: nobody waits for its outcome any more.
      if (origin) this.post(origin.hub, { type: 'outcome', callId: origin.callId, outcome });
      const why = outcome.ok ? 'the call it belonged to has ended' : outcome.error.kind === 'disconnected' ? GONE : `the call it belonged to failed: ${outcome.error.message}`;
      for (const [parkId, parked] of this.parked) if (parked.workerCallId === callId) this.expire(parkId, why);
    });
  }

  // Reference-counted per hub: the backend is asked once, whichever hubs want the resource; a hub
  // that comes while it is being asked hears the same answer (a refusal too), not a premature yes.
  private subscribe(hub: number, callId: number, uri: string): void {
    const hubs = this.subscribers.get(uri) ?? new Set<number>();
    this.subscribers.set(uri, hubs);
    const first = hubs.size === 0 && !this.asking.has(uri);
    hubs.add(hub);
    const asking = this.asking.get(uri) ?? (first ? this.askBackend(uri) : null);
    if (!asking) return this.post(hub, { type: 'outcome', callId, outcome: { ok: true, result: {} } });
    void asking.then((outcome) => {
      if (!outcome.ok) {
        hubs.delete(hub);
        if (hubs.size === 0 && this.subscribers.get(uri) === hubs) this.subscribers.delete(uri);
      }
      this.post(hub, { type: 'outcome', callId, outcome });
    });
  }

  private askBackend(uri: string): Promise<CallOutcome> {
    const asked = this.runner.subscribe(uri).finally(() => {
      if (this.asking.get(uri) === asked) this.asking.delete(uri);
    });
    this.asking.set(uri, asked);
    return asked;
  }

  private unsubscribe(hub: number, uri: string): void {
    const hubs = this.subscribers.get(uri);
    if (!hubs?.delete(hub) || hubs.size > 0) return;
    this.subscribers.delete(uri);
    // An answer still to come is nobody's now: a hub that subscribes next asks the backend again.
    this.asking.delete(uri);
    void this.runner.unsubscribe(uri);
  }

  /** A subscribed resource changed: the hubs with subscribers hear it. */
  resourceUpdated(uri: string): void {
    for (const hub of this.subscribers.get(uri) ?? []) this.post(hub, { type: 'resourceUpdated', uri });
  }

  /** A task changed status: the hubs tell the session that created it (they know which). */
  taskStatus(params: Record<string, unknown>): void {
    this.broadcast({ type: 'taskStatus', params });
  }

  private broadcast(message: BackendToHub): void {
    for (const port of this.ports.values()) port.postMessage(message);
  }

  /** The backend connected: every hub shows it. */
  connected(facts: Omit<ConnectionFacts, 'connection'>): void {
    this.connection = { ...facts, connection: ++this.connections };
    this.broadcast({ type: 'connected', ...this.connection });
  }

  inventory(inventory: Inventory): void {
    if (!this.connection) return;
    this.connection = { ...this.connection, inventory };
    this.broadcast({ type: 'inventory', connection: this.connection.connection, inventory });
  }

  /** The connection ended (exit, failure, stop): parked questions end with it. */
  disconnected(): void {
    for (const parkId of [...this.parked.keys()]) this.expire(parkId, GONE);
    if (!this.connection) return;
    this.broadcast({ type: 'disconnected', connection: this.connection.connection });
    this.connection = null;
  }

  /** Progress of a call, to the hub that holds it, under its own call id. */
  progress(callId: number, progress: ProgressParams): void {
    const origin = this.origins.get(callId);
    if (origin) this.post(origin.hub, { type: 'progress', callId: origin.callId, progress });
  }

  // The hubs with calls in flight here, and which calls.
  // With `task`, only the tasks/result calls waiting for that task, when there are any.
  private callsByHub(task?: string): Map<number, { worker: number; hub: number }[]> {
    const awaiting = task !== undefined ? [...this.awaitedTasks].filter(([, t]) => t === task).map(([worker]) => worker) : [];
    const byHub = new Map<number, { worker: number; hub: number }[]>();
    for (const [worker, origin] of this.origins) {
      if (!origin || (awaiting.length && !awaiting.includes(worker))) continue;
      const list = byHub.get(origin.hub) ?? [];
      list.push({ worker, hub: origin.callId });
      byHub.set(origin.hub, list);
    }
    return byHub;
  }

  /**
   * A backend log message goes to the hub with calls in flight here when it is the only one
   * (that hub applies the same rule to its sessions); with none or several, nowhere: the
   * worker logs it itself.
   */
  backendLog(params: Record<string, unknown>): boolean {
    const hubs = this.callsByHub();
    if (hubs.size !== 1) return false;
    const [hub] = hubs.keys();
    this.post(hub!, { type: 'backendLog', params });
    return true;
  }

  /**
   * The backend asks the client something: the one hub with calls in flight here decides whose
   * call it is. Never sent to the wrong client: with calls of several hubs in flight it is refused.
   */
  ask(method: InputMethod, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    // A task's question (its related-task mark) is for whoever waits in that task's tasks/result.
    const hubs = this.callsByHub(relatedTaskOf(params));
    if (hubs.size !== 1) {
      const why = hubs.size === 0 ? 'no client call is in flight on it' : `calls of several clients are in flight on it`;
      this.options.warn({ method, hubs: hubs.size }, `a ${method} request from the backend was refused: ${why}, so it cannot be tied to one client`);
      return Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidRequest, `The gateway cannot tell which client this ${method} is for (${why}); it was refused`));
    }
    const [hub, calls] = [...hubs][0]!;
    const requestId = this.nextRequestId++;
    // The call waits for the client: its requestTimeout stops meanwhile.
    const workerCallId = calls[calls.length - 1]!.worker;
    for (const { worker } of calls) this.runner.pauseTimeout(worker);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      this.questions.set(requestId, {
        workerCallId,
        method,
        params,
        settle: (outcome) => {
          for (const { worker } of calls) this.runner.resumeTimeout(worker);
          if (outcome.ok) resolve(outcome.result);
          else reject(new ProtocolError(outcome.error.code, outcome.error.message, outcome.error.data));
        },
      });
      this.post(hub!, { type: 'inputRequest', requestId, callIds: calls.map((c) => c.hub), method, params });
    });
  }

  private answer(requestId: number, outcome: InputOutcome): void {
    const question = this.questions.get(requestId);
    if (!question) return;
    this.questions.delete(requestId);
    question.settle(outcome);
  }

  // The hub cannot ask its client now: the question waits for a retry; the call has no holder.
  private park(requestId: number): void {
    const question = this.questions.get(requestId);
    if (!question) return;
    this.questions.delete(requestId);
    this.origins.set(question.workerCallId, null);
    const timer = setTimeout(() => this.expire(requestId, `the client did not answer within ${this.options.inputTimeoutMs} ms (--input-timeout)`), this.options.inputTimeoutMs);
    this.parked.set(requestId, { ...question, timer });
  }

  // The parked question a backend's task asked (a task asks through tasks/result, one at a time).
  private parkedFor(taskId: string): Record<string, unknown> {
    for (const [parkId, { method, params }] of this.parked) {
      if (relatedTaskOf(params) === taskId) return { parkId, method, params };
    }
    return {};
  }

  private expire(parkId: number, reason: string): void {
    const parked = this.parked.get(parkId);
    if (!parked) return;
    clearTimeout(parked.timer);
    this.parked.delete(parkId);
    this.expired.set(parkId, reason);
    if (this.expired.size > EXPIRED_KEPT) this.expired.delete(this.expired.keys().next().value as number);
    parked.settle({ ok: false, error: { code: ProtocolErrorCode.InternalError, message: reason } });
  }

  // A retry answers a parked question: its call's outcome now goes to the retrying hub.
  private resume(hub: number, callId: number, parkId: number, outcome: InputOutcome): void {
    const parked = this.parked.get(parkId);
    if (!parked) {
      const why = this.expired.get(parkId);
      const message = why
        ? `the question of backend '${this.options.backend}' this retry answers is void: ${why}`
        : `the question of backend '${this.options.backend}' this retry answers is unknown (already answered, or the backend restarted)`;
      this.post(hub, { type: 'outcome', callId, outcome: { ok: false, error: { kind: 'mcp', code: ProtocolErrorCode.InvalidParams, message } } });
      return;
    }
    clearTimeout(parked.timer);
    this.parked.delete(parkId);
    this.origins.set(parked.workerCallId, { hub, callId });
    parked.settle(outcome);
  }
}
