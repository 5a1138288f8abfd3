// Worker entry: one backend per worker thread (decisions §1), or several with
// --backends-per-worker (lib/main/backend-threads.ts). Each backend (lib/backend/host.ts) reports
// its state events to the main thread (the first on parentPort, the others on their own port);
// calls, their progress and the backend's lists go to and from the hubs over the direct channels
// the main thread hands over (attachHub); the main thread's own requests arrive over comlink on
// the port passed with the backend.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { type BackendWorkerData, type ExitInfo, type MainToBackendWorker, type RunnerEvent, toWireError, type WorkerEvent } from '../lib/shared/messages/state-events.ts';
import { lowerThreadPriority } from '../lib/shared/priority.ts';
import { redactCredentials } from '../lib/shared/sanitize.ts';
import { maskSecretValues } from '../lib/shared/secret-values.ts';
import { codeCacheOutcome } from '../lib/backend/code-cache-hook.ts';
import { type HostedBackend, hostBackend } from '../lib/backend/host.ts';
import { maskEventSecrets } from '../lib/backend/secret-events.ts';
import { failWorker } from '../lib/backend/worker-failure.ts';

const data = workerData as BackendWorkerData;
if (!parentPort) throw new Error('workers/backend.ts must run in a worker thread');
const port = parentPort;
// Backends run below the probe path; the children spawned from this thread inherit the priority.
const priority = lowerThreadPriority(data.nice ?? 0);
const facts = { tid: priority.applied ? priority.tid : null, codeCache: codeCacheOutcome() };

const hosted = new Map<string, HostedBackend>();
const host = (backend: BackendWorkerData, toMain: (event: WorkerEvent) => void) => hosted.set(backend.spec.name, hostBackend(backend, toMain, facts));
host(data, (event) => port.postMessage(event));
const first = hosted.get(data.spec.name)!;
if (!priority.applied && (data.nice ?? 0) > 0) first.log.debug({ nice: data.nice }, `backend worker priority not lowered: ${priority.reason}`);

// More backends for this worker, and backends it no longer runs (--backends-per-worker).
port.on('message', (message: MainToBackendWorker) => {
  switch (message.type) {
    case 'host': {
      const events: MessagePort = message.events;
      host(message.data, (event) => events.postMessage(event));
      return;
    }
    case 'release': {
      // Stopped by the main thread already; a child still there (a failed stop) goes now.
      const backend = hosted.get(message.name);
      hosted.delete(message.name);
      void backend?.runner.kill().catch(() => null).finally(() => backend.close());
      return;
    }
    default: {
      const unknown: never = message;
      first.log.error({ message: unknown }, 'protocol error: unknown message to a backend worker');
    }
  }
});

// A thread that fails anyway ends its children first and waits until they are reaped (see
// worker-failure.ts); each backend it ran is told, with its own child's exit. A library's
// process.exit() starts the same path and returns: the thread exits for real once the children are gone.
const exits = new Map<string, ExitInfo | null>();
const allSecrets = () => [...new Set([...hosted.values()].flatMap((h) => h.secrets))].sort((a, b) => b.length - a.length);
const exitThread = process.exit.bind(process);
const fail = failWorker({
  kill: async () => {
    await Promise.all([...hosted.values()].map(async (h) => exits.set(h.name, await h.runner.kill().catch(() => null))));
    return null;
  },
  // One failure told to every backend of the thread: masked with all their secrets, not each its own.
  emit: (event: RunnerEvent) => {
    const masked = maskEventSecrets(event, allSecrets());
    for (const h of hosted.values()) h.emit(masked.type === 'failed' ? { ...masked, exit: exits.get(h.name) ?? null } : masked);
  },
  mask: (text) => maskSecretValues(text, allSecrets()),
  exit: exitThread,
});
process.on('uncaughtException', (error) => fail({ reason: `uncaught exception: ${toWireError(error).message}`, stack: error.stack, code: 1 }));
process.exit = ((code?: number | string | null) => {
  fail({ reason: `process.exit(${code ?? ''}) was called in the backend worker`, code: Number(code) || 1 });
}) as typeof process.exit;

process.on('unhandledRejection', (reason) => {
  const event: RunnerEvent = { v: 1, type: 'log', level: 'error', msg: 'unhandled rejection in backend worker', fields: { error: redactCredentials(maskSecretValues(toWireError(reason).message, allSecrets())) } };
  for (const h of hosted.values()) h.emit(event);
});
