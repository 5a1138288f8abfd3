// The thread a backend runs in: a worker of its own (the default: one backend per worker,
// decisions §1), or a place in a worker shared with up to `perWorker` - 1 other backends of the
// same nice value (--backends-per-worker: less memory per backend, less isolation; README "Many
// backends"). A shared worker's first backend reports on parentPort, the others on a port each;
// a backend that stops is released from its worker, and the last one ends it. When a shared
// worker dies, every backend in it sees the thread fail, as it would its own.
import { EventEmitter } from 'node:events';
import { MessageChannel, type MessagePort, Worker, type WorkerOptions } from 'node:worker_threads';
import type { MainToBackendWorker, WorkerEvent } from '../shared/messages/state-events.ts';
import { forEachLine } from './worker-output.ts';

export type ThreadRequest = {
  /** The backend's name: unique among running backends. */
  name: string;
  nice: number;
  /** Worker entry and its workerData (the backend's BackendWorkerData, with its `api` port). */
  file: string;
  workerData: Record<string, unknown> & { api: MessagePort };
  /** The worker's Node options (workerEntry's; absent: the service's own). */
  execArgv?: string[];
  /** A line the worker wrote on its stdout or stderr. */
  onOutput: (stream: 'worker stdout' | 'worker stderr', line: string) => void;
};

/** What a backend handle holds: the events of its backend, and its end. */
export interface BackendThread {
  on(event: 'message', listener: (event: WorkerEvent) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'exit', listener: (code: number) => void): this;
  /** Ends the backend's place (its own worker, or its place in a shared one); resolves when done. */
  terminate(): Promise<unknown>;
}

/** Every backend worker's options: a small young generation, measured against 1, 4 and V8's default (benchmarks/README.md, "cost per backend"). */
export const WORKER_OPTIONS: Pick<WorkerOptions, 'resourceLimits'> = { resourceLimits: { maxYoungGenerationSizeMb: 2 } };

type Group = { worker: Worker; nice: number; members: Map<string, EventEmitter>; first: string; dead: boolean; ending: Promise<unknown> | null };

export class BackendThreads {
  private readonly groups = new Set<Group>();

  /** `perWorker` 1: a worker per backend. `options`: resourceLimits and the like for every worker. */
  constructor(
    readonly perWorker: number,
    private readonly options: Pick<WorkerOptions, 'resourceLimits'> = {},
  ) {}

  open(request: ThreadRequest): BackendThread {
    if (this.perWorker <= 1) return this.ownWorker(request);
    for (const group of this.groups) {
      if (!group.dead && !group.ending && group.nice === request.nice && group.members.size < this.perWorker) return this.join(group, request);
    }
    return this.newGroup(request);
  }

  /** Workers running now (for the benchmarks' figures and tests). */
  get workers(): number {
    return this.perWorker <= 1 ? Number.NaN : [...this.groups].filter((g) => !g.dead).length;
  }

  private spawn(request: ThreadRequest): Worker {
    const worker = new Worker(request.file, {
      workerData: request.workerData,
      ...(request.execArgv ? { execArgv: request.execArgv } : {}),
      transferList: [request.workerData.api],
      name: `backend:${request.name}`,
      stdout: true,
      stderr: true,
      ...this.options,
    });
    forEachLine(worker.stdout, (line) => request.onOutput('worker stdout', line));
    forEachLine(worker.stderr, (line) => request.onOutput('worker stderr', line));
    return worker;
  }

  private ownWorker(request: ThreadRequest): BackendThread {
    return this.spawn(request) as unknown as BackendThread;
  }

  private newGroup(request: ThreadRequest): BackendThread {
    const worker = this.spawn(request);
    const member = new EventEmitter();
    const group: Group = { worker, nice: request.nice, members: new Map([[request.name, member]]), first: request.name, dead: false, ending: null };
    this.groups.add(group);
    worker.on('message', (event: WorkerEvent) => group.members.get(group.first)?.emit('message', event));
    const died = (event: 'error' | 'exit', value: unknown) => {
      group.dead = true;
      this.groups.delete(group);
      // An 'error' nobody listens to would throw here: the 'exit' that follows says it too.
      for (const m of group.members.values()) if (event === 'exit' || m.listenerCount('error') > 0) m.emit(event, value);
      if (event === 'exit') group.members.clear();
    };
    worker.on('error', (error) => died('error', error));
    worker.on('exit', (code) => died('exit', code));
    return this.place(group, request.name, member, null);
  }

  private join(group: Group, request: ThreadRequest): BackendThread {
    const member = new EventEmitter();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (event: WorkerEvent) => member.emit('message', event));
    group.members.set(request.name, member);
    const message: MainToBackendWorker = { type: 'host', data: request.workerData as never, events: port2 };
    group.worker.postMessage(message, [request.workerData.api, port2]);
    return this.place(group, request.name, member, port1);
  }

  // A member's handle: its events, and terminate() = leave the group (the last one ends the worker).
  private place(group: Group, name: string, member: EventEmitter, events: MessagePort | null): BackendThread {
    const thread = member as EventEmitter & BackendThread;
    let left: Promise<unknown> | null = null;
    thread.terminate = () => {
      left ??= (async () => {
        events?.close();
        if (group.dead || group.members.get(name) !== member) return;
        group.members.delete(name);
        if (group.members.size > 0) {
          const message: MainToBackendWorker = { type: 'release', name };
          group.worker.postMessage(message);
          return;
        }
        group.ending = group.worker.terminate();
        await group.ending;
      })();
      return left;
    };
    return thread;
  }
}
