// A hub: the MCP face of the service in its own worker thread (decisions §1). It serves what
// the main thread forwards over the byte pump (HTTP, or stdin/stdout in stdio mode), keeps the
// catalog from what the backend workers tell it over their direct channels, and routes calls to
// them without the main thread.
import { SessionQuota, sessionSlots } from '../shared/session-quota.ts';
import type { MessagePort } from 'node:worker_threads';
import { createLogger, type Logger } from '../shared/logger.ts';
import type { HubSettings, HubToMain, MainToHub } from '../shared/messages/hub.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { backendLogFields, serviceLevel } from '../shared/backend-log.ts';
import { Code, Messages } from '../shared/errors.ts';
import { createHubApp } from './app.ts';
import { HubBackends } from './backends.ts';
import { Catalog } from './catalog.ts';
import { createMcpEndpoints } from './http.ts';
import { InitialLoad } from './initial-load.ts';
import { ChangeNotifier } from './notifier.ts';
import { DEFAULT_MAX_BACKLOG_BYTES, type PumpServer, servePump } from './pump-server.ts';
import { createStateCodec } from './request-state.ts';
import { createTaskIdCodec } from './task-ids.ts';
import { TaskOwners } from './tasks.ts';
import { ResourceSubscriptions } from './subscriptions.ts';
import { createRestHandlers } from './rest.ts';
import { Router } from './router.ts';
import { serveOverStdio } from './stdio.ts';
import { TokenEstimator } from './token-estimator.ts';


export type Hub = { close(): Promise<void> };

/** How often a hub checks whether its sessions or calls in flight changed (the `load` message). */
const LOAD_INTERVAL_MS = 250;
/** A restarted hub waits at most this long for the channels of the connected backends before answering. */
const REWIRE_WAIT_MS = 5_000;

/** At shutdown, how long the calls just failed may take to send their answers before the sessions close. */
const ANSWERS_WAIT_MS = 500;

/** Resolves once no POST waits for its answer's first bytes (those the calls failed have sent theirs), or after `ms`. */
async function answersSent(pump: PumpServer, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  await new Promise((resolve) => setImmediate(resolve));
  while (pump.awaitingAnswer > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

export function startHub(settings: HubSettings, pumpPort: MessagePort, parent: MessagePort, log: Logger = createLogger(settings.log.level, settings.log.format).child({ hub: settings.index })): Hub {
  const post = (message: HubToMain) => parent.postMessage(message);
  let router: Router | null = null;
  let initialLoad: InitialLoad | null = null;
  const subscriptions = new ResourceSubscriptions();
  const taskOwners = new TaskOwners();
  const backends = new HubBackends({
    changed: () => {
      notifier.changed();
      initialLoad?.update();
    },
    backendLog: (name, params) => router?.backendLog(name, params),
    warn: (fields, msg) => log.warn(fields, msg),
    resourceUpdated: (name, uri) => router?.resourceUpdated(name, uri),
    taskStatus: (name, params) => router?.tasks.status(name, params),
    connected: (name, worker, connection) => {
      const lost = router?.tasks.reconnected(name, worker, connection) ?? 0;
      if (lost) log.warn({ backend: name, code: Code.backend_disconnected, tasks: lost }, `${lost} task(s) of backend '${name}' were lost when it restarted; the sessions that created them were told they failed`);
    },
    // Its subscriptions and tasks went with its worker; a server added again under the name starts afresh.
    removed: (name) => {
      subscriptions.forget(name);
      taskOwners.forget(name);
    },
    // A backend worker that died took the subscriptions it held: its successor is asked again.
    attached: (name, link) => subscriptions.relink(name, link),
  });
  const catalog = new Catalog(backends, log);
  // A retry may come a while after the question: the state lives as long as a parked question, and a little more.
  const stateCodec = createStateCodec(Buffer.from(settings.requestStateKey, 'hex'), settings.instance, settings.inputTimeoutMs + 60_000);
  const notifier = new ChangeNotifier(catalog);
  // A restarted hub starts with no backend: a 2025 session that began before their channels said
  // they are connected would keep an empty capability set for its life.
  initialLoad = new InitialLoad({
    waitMs: Math.max(0, settings.initialWaitUntil - Date.now(), (settings.generation ?? 1) > 1 ? REWIRE_WAIT_MS : 0),
    backends: () => (backends.configAttempted ? backends.all() : null),
    alsoWaiting: () => backends.unwired(),
    onDeadline: (still) => {
      if (still.length) log.warn({ code: Code.backend_unavailable, stillConnecting: still }, 'initial wait over: clients are answered with the backends connected so far');
    },
  });
  router = new Router({
    catalog,
    links: (name) => backends.link(name),
    initialLoad,
    logUnrouted: (backend, params) => log[serviceLevel(params.level)]({ backend, ...backendLogFields(params) }, 'backend log message'),
    stateCodec,
    inputTimeoutMs: settings.inputTimeoutMs,
    subscriptions,
    taskIds: createTaskIdCodec(Buffer.from(settings.requestStateKey, 'hex'), settings.instance),
    taskOwners,
  });
  const tokens = new TokenEstimator();
  const mcp =
    settings.transport === 'http'
      ? createMcpEndpoints({
          catalog,
          router,
          notifier,
          log,
          lazyTools: settings.lazyTools,
          initialLoad,
          sessionPrefix: `h${settings.index}-`,
          // The cap is the service's, counted over every hub.
          sessions: new SessionQuota(settings.sessionSlots ?? sessionSlots(1), settings.sessionSlots ? settings.index : 0, settings.maxSessions),
          maxMessageBytes: settings.maxMessageBytes,
        })
      : null;
  const app = createHubApp({ mcp, rest: createRestHandlers({ source: backends, tokens }) });
  const maxBacklogBytes = Math.max(2 * settings.maxMessageBytes, DEFAULT_MAX_BACKLOG_BYTES);
  const pump = servePump(pumpPort, app, (error) => log.error({ code: Code.internal, error: redactCredentials(error) }, 'hub request failed'), {
    maxBacklogBytes,
    maxHeldBytes: 4 * maxBacklogBytes,
    onBacklog: (bytes, held) =>
      held === undefined
        ? log.warn({ code: Code.client_too_slow, bytes, limit: maxBacklogBytes }, 'an MCP client stopped reading its answer: its connection was cut')
        : log.warn({ code: Code.client_too_slow, bytes, held, limit: 4 * maxBacklogBytes }, 'an MCP client stopped reading its answer while clients that are not reading held more than the limit together: its connection was cut'),
  });
  const stdio =
    settings.transport === 'stdio' && settings.index === 0
      ? serveOverStdio({ catalog, router, notifier, log, channel: pump, maxMessageBytes: settings.maxMessageBytes, lazyTools: settings.lazyTools, initialLoad })
      : null;

  // A hub that dies cannot say what it took with it: the main thread logs what it last heard.
  let load = { sessions: 0, calls: 0 };
  const loadTimer = setInterval(() => {
    const now = { sessions: mcp?.sessionCount() ?? 0, calls: backends.callsInFlight() };
    if (now.sessions === load.sessions && now.calls === load.calls) return;
    load = now;
    post({ type: 'load', ...now });
  }, LOAD_INTERVAL_MS);
  loadTimer.unref();

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(loadTimer);
      // Calls in flight fail first, and their answers leave before the sessions close: a closed
      // session ends its streams without the answers it owed (a 2026-07-28 request gets a bare 499).
      backends.closeAll(Messages.serviceStopping);
      await answersSent(pump, ANSWERS_WAIT_MS);
      const sessions = (await mcp?.close()) ?? 0;
      await stdio?.close();
      notifier.close();
      await tokens.close();
      if (sessions) log.info({ sessions }, 'MCP sessions closed');
    })());

  parent.on('message', (message: MainToHub) => {
    switch (message.type) {
      case 'facts':
        backends.configAttempted = message.configAttempted;
        backends.applyFacts(message.upsert, message.remove, message.disabled);
        return;
      case 'attach':
        backends.attach(message.name, message.worker, message.port);
        return;
      case 'backendDown':
        backends.down(message.name, message.message);
        return;
      case 'shutdown':
        void close().then(() => post({ type: 'closed' }));
        return;
      default: {
        const unknown: never = message;
        log.error({ code: Code.protocol_error, message: unknown }, 'protocol error: unknown message from the main thread');
      }
    }
  });
  post({ type: 'ready' });
  return { close };
}
