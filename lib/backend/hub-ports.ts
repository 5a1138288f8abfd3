// The backend worker's ends of the direct channels to the hubs (one port per hub): calls come in
// and are run on the backend; their progress and outcome go back on the port they came from; the
// connection and inventory go to every hub. A hub that restarts gets a fresh port, and the
// current connection is told to it at once.
import type { MessagePort } from 'node:worker_threads';
import type { BackendToHub, ConnectionFacts, HubToBackend } from '../shared/messages/calls.ts';
import type { BackendCall, CallOutcome, Inventory, ProgressParams } from '../shared/messages/calls.ts';

/** What the ports need of the backend connection (the runner). */
export type CallRunner = {
  request(call: BackendCall): Promise<CallOutcome>;
  cancel(callId: number): void;
};

type Origin = { hub: number; callId: number };

export class HubPorts {
  private readonly ports = new Map<number, MessagePort>();
  private connection: ConnectionFacts | null = null;
  private connections = 0;
  private nextCallId = 1;
  // Worker-wide call ids (what the runner sees) → the hub and the hub's own id.
  private readonly origins = new Map<number, Origin>();

  constructor(private readonly runner: CallRunner) {}

  /** A hub's (new) port; the previous port of that hub is closed. */
  attach(hub: number, port: MessagePort): void {
    this.ports.get(hub)?.close();
    this.ports.set(hub, port);
    port.on('message', (message: HubToBackend) => this.onMessage(hub, port, message));
    port.on('close', () => {
      if (this.ports.get(hub) === port) this.ports.delete(hub);
    });
    if (this.connection) port.postMessage({ type: 'connected', ...this.connection } satisfies BackendToHub);
  }

  private onMessage(hub: number, port: MessagePort, message: HubToBackend): void {
    switch (message.type) {
      case 'call': {
        const callId = this.nextCallId++;
        this.origins.set(callId, { hub, callId: message.callId });
        void this.runner.request({ callId, method: message.method, params: message.params, wantsProgress: message.wantsProgress }).then((outcome) => {
          this.origins.delete(callId);
          port.postMessage({ type: 'outcome', callId: message.callId, outcome } satisfies BackendToHub);
        });
        return;
      }
      case 'cancel':
        for (const [callId, origin] of this.origins) if (origin.hub === hub && origin.callId === message.callId) this.runner.cancel(callId);
        return;
      default: {
        const unknown: never = message;
        throw new Error(`protocol error: unknown message from hub ${hub}: ${JSON.stringify(unknown)}`);
      }
    }
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

  /** The connection ended (exit, failure, stop). */
  disconnected(): void {
    if (!this.connection) return;
    this.broadcast({ type: 'disconnected', connection: this.connection.connection });
    this.connection = null;
  }

  /** Progress of a call, to the hub that made it, under its own call id. */
  progress(callId: number, progress: ProgressParams): void {
    const origin = this.origins.get(callId);
    if (origin) this.ports.get(origin.hub)?.postMessage({ type: 'progress', callId: origin.callId, progress } satisfies BackendToHub);
  }

  /**
   * A backend log message goes to the hub with calls in flight here when it is the only one
   * (that hub applies the same rule to its sessions); with none or several, nowhere: the
   * worker logs it itself.
   */
  backendLog(params: Record<string, unknown>): boolean {
    const hubs = new Set([...this.origins.values()].map((o) => o.hub));
    if (hubs.size !== 1) return false;
    const [hub] = hubs;
    const port = this.ports.get(hub!);
    if (!port) return false;
    port.postMessage({ type: 'backendLog', params } satisfies BackendToHub);
    return true;
  }
}
