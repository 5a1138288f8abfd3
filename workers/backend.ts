// Worker entry: one backend per worker thread (decisions §1). State events go to the main thread
// on parentPort; calls, their progress and the backend's lists go to and from the hubs over the
// direct channels the main thread hands over (attachHub); the main thread's own requests arrive
// over comlink on the port passed in workerData.
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { Inventory } from '../lib/shared/messages/calls.ts';
import { type BackendApi, type BackendWorkerData, countsOf, DEFAULT_INPUT_TIMEOUT_MS, DEFAULT_MAX_MESSAGE_BYTES, type RunnerEvent, toWireError, type WorkerEvent } from '../lib/shared/messages/state-events.ts';
import { createLogger } from '../lib/shared/logger.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';
import { redactCredentials } from '../lib/shared/sanitize.ts';
import { DEFAULT_STDERR_LIMITS } from '../lib/shared/stderr-limits.ts';
import { HubPorts } from '../lib/backend/hub-ports.ts';
import { BackendRunner } from '../lib/backend/runner.ts';
import { failWorker } from '../lib/backend/worker-failure.ts';
import { codeCacheOutcome, makeCodeCache } from '../lib/backend/code-cache-hook.ts';

const data = workerData as BackendWorkerData;
if (!parentPort) throw new Error('workers/backend.ts must run in a worker thread');
const port = parentPort;
const log = createLogger(data.log.level, data.log.format).child({ backend: data.spec.name });
// Backends run below the probe path; the child spawned from this thread inherits the priority.
const priority = lowerThreadPriority(data.nice ?? 0);
if (!priority.applied && (data.nice ?? 0) > 0) log.debug({ nice: data.nice }, `backend worker priority not lowered: ${priority.reason}`);

const toMain = (event: WorkerEvent) => port.postMessage(event);
let inventory: Inventory | null = null;
let runner: BackendRunner;
const hubs = new HubPorts(
  {
    request: (call) => runner.request(call),
    subscribe: (uri) => runner.subscribe(uri),
    unsubscribe: (uri) => runner.unsubscribe(uri),
    cancel: (callId) => runner.cancel(callId),
    pauseTimeout: (callId) => runner.pauseTimeout(callId),
    resumeTimeout: (callId) => runner.resumeTimeout(callId),
  },
  { backend: data.spec.name, inputTimeoutMs: data.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS, warn: (fields, msg) => log.warn(fields, msg) },
);

// The runner's events: lists and calls to the hubs, state (with counts) to the main thread.
const emit = (event: RunnerEvent) => {
  switch (event.type) {
    case 'connected':
      // The code that connects has run: a code cache made now holds it for the next workers.
      setImmediate(makeCodeCache);
      inventory = event.inventory;
      hubs.connected({ protocolVersion: event.protocolVersion, instructions: event.instructions, inventory: event.inventory, capabilities: event.capabilities });
      return toMain({ v: 1, type: 'connected', at: event.at, pid: event.pid, protocolVersion: event.protocolVersion, counts: countsOf(event.inventory) });
    case 'inventory':
      inventory = event.inventory;
      hubs.inventory(event.inventory);
      return toMain({ v: 1, type: 'inventory', counts: countsOf(event.inventory) });
    case 'progress':
      return hubs.progress(event.callId, event.progress);
    case 'resourceUpdated':
      return hubs.resourceUpdated(event.uri);
    case 'taskStatus':
      return hubs.taskStatus(event.params);
    case 'backendLog':
      // No single hub with calls in flight here: the message is for the service log only.
      if (!hubs.backendLog(event.params)) log.info({ level: event.params.level, logger: event.params.logger, data: event.params.data }, 'backend log message');
      return;
    case 'failed':
      setImmediate(makeCodeCache);
      hubs.disconnected();
      return toMain(event);
    case 'exited':
    case 'stopped':
      hubs.disconnected();
      return toMain(event);
    default:
      return toMain(event);
  }
};

runner = new BackendRunner(data.spec, emit, log, {
  pingIntervalMs: data.pingIntervalMs,
  pingTimeoutMs: data.pingTimeoutMs,
  maxMessageBytes: data.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  stateDir: data.stateDir ?? null,
  nice: data.nice ?? 0,
  stderrLimits: data.stderrLimits ?? DEFAULT_STDERR_LIMITS,
  onInputRequest: (method, params) => hubs.ask(method, params),
});

const api: BackendApi = {
  start: () => runner.start(),
  stop: (options) => runner.stop(options.graceMs),
  attachHub: (hub, hubPort) => hubs.attach(hub, hubPort),
  inventory: () => inventory,
  setStderrLimits: (limits) => runner.setStderrLimits(limits),
};

// A thread that fails anyway ends its child first and waits until the child is reaped (see
// worker-failure.ts). A library's process.exit() starts the same path and returns: the thread
// exits for real once the child is gone.
const exitThread = process.exit.bind(process);
const fail = failWorker({ kill: () => runner.kill(), emit, exit: exitThread });
process.on('uncaughtException', (error) => fail({ reason: `uncaught exception: ${toWireError(error).message}`, stack: error.stack, code: 1 }));
process.exit = ((code?: number | string | null) => {
  fail({ reason: `process.exit(${code ?? ''}) was called in the backend worker`, code: Number(code) || 1 });
}) as typeof process.exit;

process.on('unhandledRejection', (reason) => {
  emit({ v: 1, type: 'log', level: 'error', msg: 'unhandled rejection in backend worker', fields: { error: redactCredentials(toWireError(reason).message) } });
});

Comlink.expose(api, nodeEndpoint(data.api));
toMain({ v: 1, type: 'ready', tid: priority.applied ? priority.tid : null, codeCache: codeCacheOutcome() });
