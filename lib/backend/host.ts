// One backend inside a backend worker: its runner (child or remote transport, MCP client, ping,
// stderr), its channels to the hubs, and the API the main thread calls over comlink. A worker
// hosts one backend (the default) or, with --backends-per-worker, several, each reporting its
// state events on its own port (workers/backend.ts).
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { Inventory } from '../shared/messages/calls.ts';
import { type BackendApi, type BackendWorkerData, countsOf, DEFAULT_INPUT_TIMEOUT_MS, DEFAULT_MAX_MESSAGE_BYTES, type RunnerEvent, type WorkerEvent } from '../shared/messages/state-events.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { Code } from '../shared/errors.ts';
import { backendLogFields, serviceLevel } from '../shared/backend-log.ts';
import { secretValuesOf } from '../shared/secret-values.ts';
import { DEFAULT_STDERR_LIMITS } from '../shared/stderr-limits.ts';
import { makeCodeCache } from './code-cache-hook.ts';
import { HubPorts } from './hub-ports.ts';
import { collectOnceSettled } from './settled-gc.ts';
import { maskEventSecrets } from './secret-events.ts';
import { BackendRunner } from './runner.ts';

export type HostedBackend = {
  readonly name: string;
  readonly runner: BackendRunner;
  readonly log: Logger;
  /** Reports a runner event as the runner would (the worker's failure path uses it). */
  emit: (event: RunnerEvent) => void;
  /** Lets go of the API and event ports (the runner has been stopped). */
  close: () => void;
  /** The server's configured secrets (secret-values.ts): what the worker masks in its reports. */
  readonly secrets: readonly string[];
};

/** What every backend of a worker reports in its `ready`. */
export type WorkerFacts = { tid: number | null; codeCache: 'accepted' | 'rejected' | 'none' | null };

export function hostBackend(data: BackendWorkerData, toMain: (event: WorkerEvent) => void, facts: WorkerFacts): HostedBackend {
  // Whatever this backend reports (log lines, errors, the last stderr line) has its server's configured secrets masked.
  const secrets = secretValuesOf(data.spec);
  const log = createLogger(data.log.level, data.log.format, { secrets }).child({ backend: data.spec.name });
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
  const emit = (reported: RunnerEvent) => {
    const event = maskEventSecrets(reported, secrets);
    switch (event.type) {
      case 'connected':
        // The code that connects has run: a code cache made now holds it for the next workers.
        setImmediate(makeCodeCache);
        collectOnceSettled(undefined, (heap) => log.debug(heap, 'start-up garbage collected'));
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
        if (!hubs.backendLog(event.params)) log[serviceLevel(event.params.level)](backendLogFields(event.params), 'backend log message');
        return;
      case 'failed':
        setImmediate(makeCodeCache);
        hubs.disconnected();
        return toMain(event);
      case 'exited':
      case 'stopped':
        hubs.disconnected();
        return toMain(event);
      case 'connecting':
      case 'ping':
      case 'log':
      case 'callHealth':
        return toMain(event);
      default: {
        const unknown: never = event;
        log.error({ code: Code.protocol_error, event: unknown }, 'protocol error: unknown runner event');
      }
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
  Comlink.expose(api, nodeEndpoint(data.api));
  toMain({ v: 1, type: 'ready', tid: facts.tid, codeCache: facts.codeCache });
  // The child is spawned now, not after a round trip through a main thread busy starting others.
  if (data.autoStart) void runner.start();
  return { name: data.spec.name, runner, log, emit, close: () => data.api.close(), secrets };
}
