// The hubs (`--mcp-workers`, default 1) as the main thread drives them: which hub a forwarded
// request goes to (a 2025 session's id names its hub; anything else goes round-robin), what every
// hub is told (backend facts, supervision verdicts), and the direct channels from every backend
// worker to every hub, made again whenever either side is new.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import type { BackendState } from '../shared/backend-state.ts';
import { Code, httpStatus, jsonRpcErrorBody, Messages } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { BackendFacts, HubSettings, MainToHub } from '../shared/messages/hub.ts';
import { sessionSlots } from '../shared/session-quota.ts';
import { HubHandle } from './hub-handle.ts';
import { writeJson } from './json-answer.ts';
import type { PumpLimits } from './pump-client.ts';

/** A session's hub from its id (`h<index>-...`): the header of a 2025 session, or SSE's `?sessionId=`. */
export function sessionHub(req: Pick<IncomingMessage, 'headers' | 'url'>): number | null {
  const header = req.headers['mcp-session-id'];
  const fromHeader = typeof header === 'string' ? /^h(\d{1,4})-/.exec(header) : null;
  const match = fromHeader ?? /[?&]sessionId=h(\d{1,4})-/.exec(req.url ?? '');
  return match ? Number(match[1]) : null;
}

const factsOf = ({ inventory: _inventory, instructions: _instructions, ...facts }: BackendState): BackendFacts => facts;

export type HubPoolOptions = {
  log: Logger;
  limits: PumpLimits;
  /** The backends now (the state table). */
  backends: () => ReadonlyMap<string, BackendState>;
  disabled: () => Iterable<string>;
  configAttempted: () => boolean;
  /** Opens a direct channel from every backend worker to this hub. */
  wireBackends: (hub: HubHandle) => void;
  onUp?: (hub: HubHandle) => void;
  onDown?: (hub: HubHandle) => void;
  /** A hub worker entry in place of workers/hub.ts (tests). */
  worker?: { file: string; workerData: Record<string, unknown> };
};

/** Requests held at most while the first hub starts (beyond: 503). */
const HELD_AT_START = 1_000;
/** How long a request waits for the first hub to start. */
const START_WAIT_MS = 10_000;

export class HubPool {
  readonly hubs: HubHandle[];
  private next = 0;
  // At start no hub is up yet: requests wait for the first one instead of failing.
  private started = false;
  private readonly held: { req: IncomingMessage; res: ServerResponse; timer: NodeJS.Timeout }[] = [];
  private readonly dirty = new Set<string>();
  private flushScheduled = false;

  constructor(
    count: number,
    settings: Omit<HubSettings, 'index' | 'hubs'>,
    private readonly options: HubPoolOptions,
  ) {
    // One array of session counts for every hub and every worker a hub will have.
    const slots = sessionSlots(count);
    this.hubs = Array.from(
      { length: count },
      (_, index) =>
        new HubHandle(
          { ...settings, index, hubs: count, sessionSlots: slots },
          {
            log: options.log,
            limits: options.limits,
            onUp: (hub) => {
              this.wire(hub);
              options.onUp?.(hub);
              this.release();
            },
            ...(options.onDown ? { onDown: options.onDown } : {}),
            ...(options.worker ? { worker: options.worker } : {}),
          },
        ),
    );
  }

  start(): void {
    for (const hub of this.hubs) hub.start();
  }

  // A hub that is (again) up learns every backend and gets a channel to each backend worker.
  private wire(hub: HubHandle): void {
    const backends = this.options.backends();
    hub.post({ type: 'facts', upsert: [...backends.values()].map(factsOf), remove: [], disabled: [...this.options.disabled()], configAttempted: this.options.configAttempted() });
    this.options.wireBackends(hub);
  }

  /** The hub for a forwarded request, or null when it (or every hub) is down. */
  pick(req: Pick<IncomingMessage, 'headers' | 'url'>): HubHandle | null {
    // An index no hub has (a session of a run with more hubs) goes round-robin: that hub answers 404.
    const session = sessionHub(req);
    if (session !== null && session < this.hubs.length) return this.hubs[session]!.up ? this.hubs[session]! : null;
    for (let tried = 0; tried < this.hubs.length; tried++) {
      const hub = this.hubs[this.next++ % this.hubs.length]!;
      if (hub.up) return hub;
    }
    return null;
  }

  /** Forwards a request to its hub; while the first hub starts it waits; later, with no hub up, 503. */
  forward(req: IncomingMessage, res: ServerResponse): void {
    const pump = this.pick(req)?.pump;
    if (pump) return pump.forward(req, res);
    if (!this.started && this.held.length < HELD_AT_START) {
      const timer = setTimeout(() => this.unavailable(req, res), START_WAIT_MS);
      this.held.push({ req, res, timer });
      res.once('close', () => clearTimeout(timer));
      return;
    }
    this.unavailable(req, res);
  }

  private unavailable(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent || res.destroyed) return;
    req.resume();
    writeJson(res, httpStatus(Code.hub_unavailable), jsonRpcErrorBody(Code.hub_unavailable, Messages.hubUnavailable), { 'Retry-After': '1' });
  }

  // The first hub is up: what waited goes now.
  private release(): void {
    this.started = true;
    const held = this.held.splice(0);
    for (const { req, res, timer } of held) {
      clearTimeout(timer);
      if (!res.destroyed) this.forward(req, res);
    }
  }

  /** A backend's facts changed (or it was added or removed): every hub hears it, coalesced. */
  touch(name: string): void {
    this.dirty.add(name);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends the configuration-wide facts (disabled servers, first load attempted) soon. */
  refresh(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends pending fact changes now. */
  flush(): void {
    this.flushScheduled = false;
    const backends = this.options.backends();
    const upsert: BackendFacts[] = [];
    const remove: string[] = [];
    for (const name of this.dirty) {
      const state = backends.get(name);
      if (state) upsert.push(factsOf(state));
      else remove.push(name);
    }
    this.dirty.clear();
    this.broadcast({ type: 'facts', upsert, remove, disabled: [...this.options.disabled()], configAttempted: this.options.configAttempted() });
  }

  broadcast(message: MainToHub): void {
    for (const hub of this.hubs) hub.post(message);
  }

  /** Gives `hub` one end of a backend worker's channel. */
  attach(hub: HubHandle, name: string, worker: number, port: MessagePort): void {
    hub.post({ type: 'attach', name, worker, port }, [port]);
  }

  async stopAll(): Promise<void> {
    for (const { req, res, timer } of this.held.splice(0)) {
      clearTimeout(timer);
      this.unavailable(req, res);
    }
    await Promise.all(this.hubs.map((hub) => hub.stop()));
  }
}
