// The backends as a hub sees them: the main thread's facts (configuration, supervision, health)
// merged with what each backend worker tells the hub over the direct channel (its connection and
// inventory). The catalog, the router and the REST views read these views.
import type { MessagePort } from 'node:worker_threads';
import type { BackendState } from '../shared/backend-state.ts';
import type { ConnectionFacts } from '../shared/messages/calls.ts';
import type { BackendFacts } from '../shared/messages/hub.ts';
import { BackendLink } from './backend-link.ts';

/** What the catalog and the REST views read. */
export interface BackendSource {
  get(name: string): BackendState | undefined;
  all(): Iterable<BackendState>;
  /** Names of disabled servers (no backend). */
  disabled(): Iterable<string>;
}

export type HubBackendsEvents = {
  /** Something clients can see changed. */
  changed(): void;
  backendLog(backend: string, params: Record<string, unknown>): void;
  resourceUpdated(backend: string, uri: string): void;
  taskStatus(backend: string, params: Record<string, unknown>): void;
  /** The backend's worker `worker` reported connection `connection` (a restart is a new one). */
  connected(backend: string, worker: number, connection: number): void;
  /** A backend left the configuration. */
  removed(backend: string): void;
  /** A channel to a backend worker, new or newer than the last one. */
  attached?: (backend: string, link: BackendLink) => void;
  /** For the hub's log (a backend's question refused because no single client could be told). */
  warn(fields: Record<string, unknown>, msg: string): void;
};

export class HubBackends implements BackendSource {
  private readonly facts = new Map<string, BackendFacts>();
  private readonly connections = new Map<string, ConnectionFacts>();
  /** The last inventory seen, kept while the backend is down (REST shows what was observed). */
  private readonly lastInventory = new Map<string, ConnectionFacts['inventory']>();
  /** What each backend declared at its last connect (advertised capabilities follow it). */
  private readonly lastCapabilities = new Map<string, ConnectionFacts['capabilities']>();
  private readonly links = new Map<string, BackendLink>();
  private readonly views = new Map<string, BackendState>();
  private disabledNames: string[] = [];
  /** The first configuration load has been attempted (for the initial load). */
  configAttempted = false;

  constructor(private readonly events: HubBackendsEvents) {}

  // The view: connected only while the worker says so on this hub's channel, with its inventory.
  private rebuild(name: string): void {
    const facts = this.facts.get(name);
    if (!facts) {
      this.views.delete(name);
      return;
    }
    const connection = this.connections.get(name);
    const phase = connection ? 'connected' : facts.phase === 'connected' ? 'connecting' : facts.phase;
    this.views.set(name, {
      ...facts,
      phase,
      inventory: connection?.inventory ?? this.lastInventory.get(name) ?? null,
      instructions: connection?.instructions ?? null,
      capabilities: connection?.capabilities ?? this.lastCapabilities.get(name) ?? null,
      protocolVersion: connection?.protocolVersion ?? facts.protocolVersion,
    });
  }

  applyFacts(upsert: BackendFacts[], remove: string[], disabled: string[]): void {
    for (const facts of upsert) {
      this.facts.set(facts.name, facts);
      this.rebuild(facts.name);
    }
    for (const name of remove) {
      this.facts.delete(name);
      this.connections.delete(name);
      this.lastInventory.delete(name);
      this.lastCapabilities.delete(name);
      this.links.get(name)?.close(`backend '${name}' was removed from the configuration; the request was not completed`);
      this.links.delete(name);
      this.views.delete(name);
      this.events.removed(name);
    }
    this.disabledNames = disabled;
    this.events.changed();
  }

  /** A direct channel to the backend's worker `worker` (a newer worker replaces the older channel). */
  attach(name: string, worker: number, port: MessagePort): void {
    const previous = this.links.get(name);
    if (previous && previous.worker > worker) {
      port.close();
      return;
    }
    previous?.close(`backend '${name}' has a new worker (it was restarted); the request was not completed and is not replayed`);
    this.connections.delete(name);
    const link = new BackendLink(name, worker, port, {
      connected: (facts) => this.setConnection(name, link, facts),
      inventory: (connection, inventory) => {
        const current = this.connections.get(name);
        if (this.links.get(name) !== link || current?.connection !== connection) return;
        this.setConnection(name, link, { ...current, inventory });
      },
      disconnected: (connection) => {
        if (this.links.get(name) !== link || this.connections.get(name)?.connection !== connection) return;
        this.connections.delete(name);
        this.rebuild(name);
        this.events.changed();
      },
      backendLog: (params) => this.events.backendLog(name, params),
      warn: (fields, msg) => this.events.warn(fields, msg),
      resourceUpdated: (uri) => this.events.resourceUpdated(name, uri),
      taskStatus: (params) => this.events.taskStatus(name, params),
    });
    this.links.set(name, link);
    this.rebuild(name);
    this.events.attached?.(name, link);
    this.events.changed();
  }

  private setConnection(name: string, link: BackendLink, facts: ConnectionFacts): void {
    if (this.links.get(name) !== link) return;
    link.connection = facts.connection;
    this.connections.set(name, facts);
    this.events.connected(name, link.worker, facts.connection);
    this.lastInventory.set(name, facts.inventory);
    this.lastCapabilities.set(name, facts.capabilities);
    this.rebuild(name);
    this.events.changed();
  }

  /** Supervision's verdict on the calls in flight on `name`. */
  down(name: string, message: string): void {
    this.links.get(name)?.down(message);
  }

  link(name: string): BackendLink | undefined {
    return this.connections.has(name) ? this.links.get(name) : undefined;
  }

  /** Backends the main thread says are connected whose channel has not said so yet. */
  unwired(): string[] {
    const names: string[] = [];
    for (const [name, facts] of this.facts) if (facts.phase === 'connected' && !this.connections.has(name)) names.push(name);
    return names;
  }

  /** Calls in flight on every backend (the hub's load). */
  callsInFlight(): number {
    let calls = 0;
    for (const link of this.links.values()) calls += link.pending;
    return calls;
  }

  get(name: string): BackendState | undefined {
    return this.views.get(name);
  }

  all(): Iterable<BackendState> {
    return this.views.values();
  }

  disabled(): Iterable<string> {
    return this.disabledNames;
  }

  /** Ends every channel (shutdown): the calls in flight fail at once with `message`. */
  closeAll(message: string): void {
    for (const link of this.links.values()) link.shutdown(message);
    this.links.clear();
  }
}
