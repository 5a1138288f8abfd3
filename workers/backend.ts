// Worker entry: one backend per worker thread (decisions §1). Events go to the main thread on
// parentPort; the main thread's requests arrive over comlink on the port passed in workerData.
import { parentPort, workerData } from 'node:worker_threads';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { type BackendApi, type BackendWorkerData, DEFAULT_MAX_MESSAGE_BYTES, toWireError, type WorkerEvent } from '../lib/shared/messages.ts';
import { createLogger } from '../lib/shared/logger.ts';
import { redactCredentials } from '../lib/shared/sanitize.ts';
import { BackendRunner } from '../lib/backend/runner.ts';
import { failWorker } from '../lib/backend/worker-failure.ts';

const data = workerData as BackendWorkerData;
if (!parentPort) throw new Error('workers/backend.ts must run in a worker thread');
const port = parentPort;
// Counted, so a call's outcome can say how many events precede it (see CallOutcome.eventSeq).
let emitted = 0;
const emit = (event: WorkerEvent) => {
  emitted++;
  port.postMessage(event);
};
const log = createLogger(data.log.level, data.log.format).child({ backend: data.spec.name });
const runner = new BackendRunner(data.spec, emit, log, {
  pingIntervalMs: data.pingIntervalMs,
  pingTimeoutMs: data.pingTimeoutMs,
  maxMessageBytes: data.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  stateDir: data.stateDir ?? null,
});

const api: BackendApi = {
  start: () => runner.start(),
  stop: (options) => runner.stop(options.graceMs),
  request: async (call) => ({ ...(await runner.request(call)), eventSeq: emitted }),
  cancel: (callId) => runner.cancel(callId),
  injectFault: (kind) => {
    // Out of band, so the call itself returns: a library calling process.exit, or an uncaught error.
    setImmediate(() => {
      if (kind === 'worker-exit') process.exit(70);
      throw new Error('injected fault: uncaught error in the backend worker');
    });
  },
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
emit({ v: 1, type: 'ready' });
