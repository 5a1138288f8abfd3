// The hub's end of the direct channel to one backend worker: calls go out with an id, their
// progress and outcome come back on the same port, and the backend's connection and inventory
// arrive unasked. A call in flight fails at once when the backend goes down, naming it.
import type { MessagePort } from 'node:worker_threads';
import type { BackendToHub, ConnectionFacts, HubToBackend, InputMethod, InputOutcome } from '../shared/messages/calls.ts';
import type { BackendMethod, CallError, CallOutcome, Inventory } from '../shared/messages/calls.ts';
import type { CallExtra, InputAnswer, LinkOutcome, BackendLink as RouterLink } from './link-types.ts';
import { inputError } from './client-input.ts';
import { relatedTaskOf, withRelatedTask } from '../shared/related-task.ts';
import { Code } from '../shared/errors.ts';
import { MAX_NESTING, nestsDeeperThan, tooDeepError } from '../shared/nesting.ts';

// How long a call broken by a dying child waits for supervision's verdict, which explains it
// better ("restarted; not replayed", "crash loop").
export const VERDICT_WAIT_MS = 500;

export type LinkEvents = {
  connected(facts: ConnectionFacts): void;
  inventory(connection: number, inventory: Inventory): void;
  disconnected(connection: number): void;
  backendLog(params: Record<string, unknown>): void;
  /** A resource this hub subscribed to changed (the backend's URI). */
  resourceUpdated?: (uri: string) => void;
  /** A task changed status (the backend's task id). */
  taskStatus?: (params: Record<string, unknown>) => void;
  /** For the hub's log: a question refused because it could not be tied to one session. */
  warn?: (fields: Record<string, unknown>, msg: string) => void;
};

type Inflight = { settle: (outcome: LinkOutcome) => void; extra: CallExtra };

export class BackendLink implements RouterLink {
  private nextCallId = 1;
  private readonly inflight = new Map<number, Inflight>();
  // Callers waiting for the verdict on a call the backend reported broken.
  private readonly verdictWaiters = new Set<(error: CallError) => void>();
  private closed = false;
  // The failures that are verdicts already (from down()): a call they end waits for no other.
  private readonly verdicts = new WeakSet<CallError>();
  /** The worker's current connection to the backend (set when it reports one). */
  connection = 0;

  constructor(
    readonly name: string,
    /** Which worker of this backend the port leads to (a new worker gets a new port). */
    readonly worker: number,
    private readonly port: MessagePort,
    private readonly events: LinkEvents,
  ) {
    port.on('message', (message: BackendToHub) => this.onMessage(message));
    // A message the worker sent that cannot be read here is lost: said, not silent.
    port.on('messageerror', (error) => events.warn?.({ backend: name, code: Code.protocol_error, error: error.message }, `a message from the worker of backend '${name}' could not be read and was dropped: ${error.message}`));
    port.on('close', () => this.close(`backend '${name}' went away (its worker thread ended: a stop, a restart or a failure); the request was not completed`));
  }

  /** Calls sent and not answered yet. */
  get pending(): number {
    return this.inflight.size;
  }

  private onMessage(message: BackendToHub): void {
    switch (message.type) {
      case 'connected':
        this.events.connected(message);
        return;
      case 'inventory':
        this.events.inventory(message.connection, message.inventory);
        return;
      case 'disconnected':
        this.events.disconnected(message.connection);
        return;
      case 'progress':
        this.inflight.get(message.callId)?.extra.onProgress?.(message.progress);
        return;
      case 'outcome':
        this.inflight.get(message.callId)?.settle(message.outcome);
        return;
      case 'backendLog':
        this.events.backendLog(message.params);
        return;
      case 'resourceUpdated':
        this.events.resourceUpdated?.(message.uri);
        return;
      case 'taskStatus':
        this.events.taskStatus?.(message.params);
        return;
      case 'inputRequest':
        void this.question(message.requestId, message.callIds, message.method, message.params);
        return;
      default: {
        const unknown: never = message;
        throw new Error(`protocol error: unknown message from backend '${this.name}': ${JSON.stringify(unknown)}`);
      }
    }
  }

  private send(message: HubToBackend): void {
    this.port.postMessage(message);
  }

  /** Never rejects: a failure, a restart or a dead worker comes back as an error outcome. */
  request(method: BackendMethod, params: Record<string, unknown>, extra: CallExtra = {}): Promise<LinkOutcome> {
    return this.run(extra, (callId) => ({
      type: 'call',
      callId,
      method,
      params,
      wantsProgress: extra.onProgress !== undefined,
      ...(extra.clientCapabilities ? { clientCapabilities: extra.clientCapabilities } : {}),
      ...(extra.logLevel ? { logLevel: extra.logLevel } : {}),
    }));
  }

  /** A retry with the answer to a parked question: the parked call's outcome comes back here. */
  resume(parkId: number, answer: InputOutcome, extra: CallExtra = {}): Promise<LinkOutcome> {
    return this.run(extra, (callId) => ({ type: 'resume', callId, parkId, outcome: answer }));
  }

  /** Asks the backend for updates of a resource (reference-counted in its worker). */
  subscribe(uri: string): Promise<LinkOutcome> {
    return this.run({}, (callId) => ({ type: 'subscribe', callId, uri }));
  }

  unsubscribe(uri: string): void {
    if (!this.closed) this.send({ type: 'unsubscribe', uri });
  }

  /** The question of the backend's task `taskId` parked in the worker, if there is one. */
  parkedFor(taskId: string): Promise<LinkOutcome> {
    return this.run({}, (callId) => ({ type: 'parkedFor', callId, taskId }));
  }

  private async run(extra: CallExtra, message: (callId: number) => HubToBackend): Promise<LinkOutcome> {
    if (this.closed) return { ok: false, error: { kind: 'disconnected', code: -32603, message: `Backend '${this.name}' is not connected` } };
    const callId = this.nextCallId++;
    const outgoing = message(callId);
    // The worker could not read it (see nesting.ts): the call would never be answered.
    if (nestsDeeperThan(outgoing, MAX_NESTING)) {
      return { ok: false, error: { kind: 'internal', ...tooDeepError(`The request's params nest more than ${MAX_NESTING} levels deep: not sent to backend '${this.name}'`, this.name) } };
    }
    const onAbort = () => this.send({ type: 'cancel', callId });
    extra.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await new Promise<LinkOutcome>((settle) => {
        this.inflight.set(callId, { settle, extra });
        this.send(outgoing);
      });
      if ('parked' in outcome || outcome.ok || outcome.error.kind !== 'disconnected' || this.verdicts.has(outcome.error)) return outcome;
      // The child died under the call: supervision's verdict names what happens next.
      return await this.verdict(outcome);
    } finally {
      this.inflight.delete(callId);
      extra.signal?.removeEventListener('abort', onAbort);
    }
  }

  // The backend asks its client something: the session of the calls in flight answers it, or it
  // is parked (2026-07-28), or refused when those calls belong to several sessions.
  private async question(requestId: number, callIds: number[], method: InputMethod, params: Record<string, unknown>): Promise<void> {
    const all = callIds.map((id) => [id, this.inflight.get(id)] as const).filter((c): c is readonly [number, Inflight] => c[1] !== undefined);
    // A task's question (its related-task mark) belongs to the tasks/result call of that task.
    const task = relatedTaskOf(params);
    const own = task === undefined ? [] : all.filter(([, call]) => call.extra.relatedTask === task);
    const calls = own.length ? own : all;
    const sessions = new Set(calls.map(([id, call]) => call.extra.session ?? id));
    // An answer nested too deep for the worker to read would leave the backend's question, and its call, waiting.
    const reply = (outcome: InputOutcome) =>
      this.send({
        type: 'inputResponse',
        requestId,
        outcome: outcome.ok && nestsDeeperThan(outcome.result, MAX_NESTING) ? { ok: false, error: tooDeepError(`The client's answer nests more than ${MAX_NESTING} levels deep: not sent to backend '${this.name}'`) } : outcome,
      });
    if (calls.length === 0 || sessions.size !== 1) {
      const why = calls.length === 0 ? 'the call it belongs to has ended' : `calls of ${sessions.size} sessions are in flight on it`;
      if (calls.length) this.events.warn?.({ backend: this.name, method, sessions: sessions.size }, `a ${method} request from the backend was refused: ${why}, so it cannot be tied to one client`);
      return reply({ ok: false, error: { code: -32600, message: `The gateway cannot tell which client this ${method} is for (${why}); it was refused` } });
    }
    const [callId, call] = calls[calls.length - 1]!;
    if (!call.extra.onInputRequest) return reply({ ok: false, error: { code: -32601, message: 'Method not found' } });
    let answer: InputAnswer;
    try {
      // A task's question reaches the client marked with the client's id of the task, not the backend's.
      const shown = task !== undefined && call.extra.relatedTask === task && call.extra.clientTaskId ? withRelatedTask(params, call.extra.clientTaskId) : params;
      answer = await call.extra.onInputRequest(method, shown);
    } catch (error) {
      answer = { answer: { ok: false, error: inputError(error) } };
    }
    if ('answer' in answer) return reply(answer.answer);
    // The client is asked by the call's own answer (input_required); the question waits in the worker.
    this.send({ type: 'park', requestId });
    this.inflight.get(callId)?.settle({ parked: { parkId: requestId, method, params } });
  }

  private verdict(fallback: CallOutcome): Promise<CallOutcome> {
    return new Promise((resolve) => {
      const done = (error: CallError | null) => {
        clearTimeout(timer);
        this.verdictWaiters.delete(onVerdict);
        resolve(error ? { ok: false, error } : fallback);
      };
      const onVerdict = (error: CallError) => done(error);
      const timer = setTimeout(() => done(null), VERDICT_WAIT_MS);
      this.verdictWaiters.add(onVerdict);
    });
  }

  /** Supervision ended the backend's child: every call in flight fails now with `message`, a verdict no later news replaces. */
  down(message: string): void {
    this.fail(message, true);
  }

  /** The service stops: calls in flight fail now, as `service_stopping`, and the channel closes. */
  shutdown(message: string): void {
    if (this.closed) return;
    this.fail(message, true, { code: Code.service_stopping, backend: this.name });
    this.close(message);
  }

  /** The port is gone or replaced: calls in flight fail with `message`, unless supervision's verdict comes soon after. */
  close(message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.fail(message, false);
    this.port.close();
  }

  private fail(message: string, verdict: boolean, data?: unknown): void {
    const error: CallError = { kind: 'disconnected', code: -32603, message, ...(data === undefined ? {} : { data }) };
    if (verdict) this.verdicts.add(error);
    for (const call of this.inflight.values()) call.settle({ ok: false, error });
    for (const waiter of [...this.verdictWaiters]) waiter(error);
  }

  get inflightCount(): number {
    return this.inflight.size;
  }
}
