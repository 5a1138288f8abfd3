// A hub: the MCP face of the service in its own worker thread (decisions §1). It serves what
// the main thread forwards over the byte pump (HTTP, or stdin/stdout in stdio mode), keeps the
// catalog from what the backend workers tell it over their direct channels, and routes calls to
// them without the main thread.
import type { MessagePort } from 'node:worker_threads';
import { createLogger, type Logger } from '../shared/logger.ts';
import type { HubSettings, HubToMain, MainToHub } from '../shared/messages/hub.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { createHubApp } from './app.ts';
import { HubBackends } from './backends.ts';
import { Catalog } from './catalog.ts';
import { createMcpEndpoints } from './http.ts';
import { InitialLoad } from './initial-load.ts';
import { ChangeNotifier } from './notifier.ts';
import { servePump } from './pump-server.ts';
import { createStateCodec } from './request-state.ts';
import { createTaskIdCodec } from './task-ids.ts';
import { TaskOwners } from './tasks.ts';
import { ResourceSubscriptions } from './subscriptions.ts';
import { createRestHandlers } from './rest.ts';
import { Router } from './router.ts';
import { serveOverStdio } from './stdio.ts';
import { TokenEstimator } from './token-estimator.ts';

export type Hub = { close(): Promise<void> };

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
    taskStatus: (name, params) => router?.taskStatus(name, params),
    // Its subscriptions and tasks went with its worker; a server added again under the name starts afresh.
    removed: (name) => {
      subscriptions.forget(name);
      taskOwners.forget(name);
    },
  });
  const catalog = new Catalog(backends, log);
  // A retry may come a while after the question: the state lives as long as a parked question, and a little more.
  const stateCodec = createStateCodec(Buffer.from(settings.requestStateKey, 'hex'), settings.instance, settings.inputTimeoutMs + 60_000);
  const notifier = new ChangeNotifier(catalog);
  initialLoad = new InitialLoad({
    waitMs: Math.max(0, settings.initialWaitUntil - Date.now()),
    backends: () => (backends.configAttempted ? backends.all() : null),
    onDeadline: (still) => {
      if (still.length) log.warn({ stillConnecting: still }, 'initial wait over: clients are answered with the backends connected so far');
    },
  });
  router = new Router({
    catalog,
    links: (name) => backends.link(name),
    initialLoad,
    logUnrouted: (backend, params) => log.info({ backend, level: params.level, logger: params.logger, data: params.data }, 'backend log message'),
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
          // The cap is the service's: each of n hubs keeps its share.
          maxSessions: Math.max(1, Math.ceil(settings.maxSessions / settings.hubs)),
          maxMessageBytes: settings.maxMessageBytes,
        })
      : null;
  const app = createHubApp({ mcp, rest: createRestHandlers({ source: backends, tokens }) });
  const pump = servePump(pumpPort, app, (error) => log.error({ error: redactCredentials(error) }, 'hub request failed'));
  const stdio =
    settings.transport === 'stdio' && settings.index === 0
      ? serveOverStdio({ catalog, router, notifier, log, channel: pump, maxMessageBytes: settings.maxMessageBytes, lazyTools: settings.lazyTools, initialLoad })
      : null;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const sessions = (await mcp?.close()) ?? 0;
      await stdio?.close();
      notifier.close();
      backends.closeAll('the service is shutting down; the request was not completed');
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
        log.error({ message: unknown }, 'protocol error: unknown message from the main thread');
      }
    }
  });
  post({ type: 'ready' });
  return { close };
}
