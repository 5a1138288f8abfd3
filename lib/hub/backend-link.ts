// The hub's end of the direct channel to one backend worker: calls go out with an id, their
// progress and outcome come back on the same port, and the backend's connection and inventory
// arrive unasked. A call in flight fails at once when the backend goes down, naming it.
import type { MessagePort } from 'node:worker_threads';
import type { BackendToHub, ConnectionFacts, HubToBackend } from '../shared/messages/calls.ts';
import type { BackendMethod, CallError, CallOutcome, Inventory, ProgressParams } from '../shared/messages/calls.ts';
import type { BackendLink as RouterLink } from './router.ts';

// How long a call broken by a dying child waits for supervision's verdict, which explains it
// better ("restarted; not replayed", "crash loop").
export const VERDICT_WAIT_MS = 500;

export type LinkEvents = {
  connected(facts: ConnectionFacts): void;
  inventory(connection: number, inventory: Inventory): void;
  disconnected(connection: number): void;
  backendLog(params: Record<string, unknown>): void;
};

type Inflight = { settle: (outcome: CallOutcome) => void; onProgress?: (p: ProgressParams) => void };

export class BackendLink implements RouterLink {
  private nextCallId = 1;
  private readonly inflight = new Map<number, Inflight>();
  // Callers waiting for the verdict on a call the backend reported broken.
  private readonly verdictWaiters = new Set<(error: CallError) => void>();
  private closed = false;

  constructor(
    readonly name: string,
    /** Which worker of this backend the port leads to (a new worker gets a new port). */
    readonly worker: number,
    private readonly port: MessagePort,
    private readonly events: LinkEvents,
  ) {
    port.on('message', (message: BackendToHub) => this.onMessage(message));
    port.on('close', () => this.close(`backend '${name}' failed: its worker thread ended; the request was not completed`));
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
        this.inflight.get(message.callId)?.onProgress?.(message.progress);
        return;
      case 'outcome':
        this.inflight.get(message.callId)?.settle(message.outcome);
        return;
      case 'backendLog':
        this.events.backendLog(message.params);
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
  async request(method: BackendMethod, params: Record<string, unknown>, extra: { signal?: AbortSignal; onProgress?: (p: ProgressParams) => void } = {}): Promise<CallOutcome> {
    if (this.closed) return { ok: false, error: { kind: 'disconnected', code: -32603, message: `Backend '${this.name}' is not connected` } };
    const callId = this.nextCallId++;
    const onAbort = () => this.send({ type: 'cancel', callId });
    extra.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await new Promise<CallOutcome>((settle) => {
        this.inflight.set(callId, { settle, ...(extra.onProgress ? { onProgress: extra.onProgress } : {}) });
        this.send({ type: 'call', callId, method, params, wantsProgress: extra.onProgress !== undefined });
      });
      if (outcome.ok || outcome.error.kind !== 'disconnected') return outcome;
      // The child died under the call: supervision's verdict names what happens next.
      return await this.verdict(outcome);
    } finally {
      this.inflight.delete(callId);
      extra.signal?.removeEventListener('abort', onAbort);
    }
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

  /** Supervision ended the backend's child: every call in flight fails now with `message`. */
  down(message: string): void {
    const error: CallError = { kind: 'disconnected', code: -32603, message };
    for (const call of this.inflight.values()) call.settle({ ok: false, error });
    for (const waiter of [...this.verdictWaiters]) waiter(error);
  }

  /** The port is gone or replaced: calls in flight fail with `message`. */
  close(message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.down(message);
    this.port.close();
  }

  get inflightCount(): number {
    return this.inflight.size;
  }
}
