// `agent serve`: take the control socket (one HTTP service per configuration directory), listen,
// then load the configuration, start the backends, watch for changes, and stop everything on
// SIGINT/SIGTERM within a deadline (decisions §2).
import http from 'node:http';
import os from 'node:os';
import { BackendRegistry, DEFAULT_STOP_GRACE_MS } from './registry.ts';
import { StateTable } from './state-table.ts';
import type { ServeOptions } from '../cli/serve-options.ts';
import { formatProblem } from '../config/errors.ts';
import { ensureConfigFile, loadConfig } from '../config/load.ts';
import { resolveConfigLocation } from '../config/paths.ts';
import { watchConfig } from './config-watch.ts';
import { currentProcessFacts } from './health/process-facts.ts';
import { createHealthRateLimiter } from './health/rate-limit.ts';
import { createApp } from './app.ts';
import { createLogger, flushLogger } from '../shared/logger.ts';
import { Catalog } from '../hub/catalog.ts';
import { createMcpEndpoints } from '../hub/http.ts';
import { ChangeNotifier } from '../hub/notifier.ts';
import { Router } from '../hub/router.ts';
import { InitialLoad } from '../hub/initial-load.ts';
import { serveOverStdio } from '../hub/stdio.ts';
import { createRestHandlers } from '../hub/rest.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { TokenEstimator } from '../hub/token-estimator.ts';
import { callControl } from '../control/client.ts';
import { type ControlServer, ControlSocketInUseError, socketPath, startControlServer } from '../control/server.ts';
import { type Announcement, announceService } from '../control/discovery.ts';
import { createControlHandlers } from './control-handlers.ts';
import { createOriginGuard, type OriginGuard } from './origin-guard.ts';
import { runShutdown } from './shutdown.ts';
import type { ReloadFacts, StatusView } from './status-view.ts';
import { redactCredentials } from '../shared/sanitize.ts';

export const PING_INTERVAL_MS = 30_000;
export const PING_TIMEOUT_MS = 5_000;
/** The whole shutdown: backends stop in parallel (2 s + 2 s grace, then SIGKILL), with room to spare. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

export type RunningService = {
  /** The HTTP port, or null with --no-http. */
  port: number | null;
  /** Stops everything; resolves with the exit code (1 when a step failed or the deadline passed). */
  shutdown(reason: string): Promise<0 | 1>;
  /** SIGKILLs every backend process group at once (a second signal). */
  kill(): void;
  /** Settles with the exit code when the service has shut down by itself (stdin EOF in stdio mode). */
  done: Promise<0 | 1>;
};

/** Another HTTP service runs on the same configuration directory. */
export class ServiceRunningError extends Error {
  override readonly name = 'ServiceRunningError';
}

// Who holds the control socket, for the refusal message.
async function describeRunning(socket: string, configDir: string): Promise<string> {
  const answer = await callControl(socket, 'status', {}, { timeoutMs: 2_000 }).catch(() => null);
  const view = answer?.ok ? (answer.result as StatusView) : null;
  const who = view ? `pid ${view.pid}${view.address ? `, ${view.address}` : ''}` : `control socket ${socket}`;
  return `another agent service is already running on ${configDir} (${who}); stop it first, or start this one with another --config-dir`;
}

export async function serve(options: ServeOptions): Promise<RunningService> {
  const log = createLogger(options.logLevel, options.logFormat, { sync: false });
  // A stray rejected promise must not take the probes down with the process: log it instead.
  process.on('unhandledRejection', (reason) => log.error({ error: redactCredentials(reason) }, 'unhandled rejection on the main thread'));
  // stderr carries log lines only: Node's warnings become log lines too.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => log.warn({ warning: warning.name, code: (warning as { code?: string }).code }, warning.message));
  const location = resolveConfigLocation({ config: options.config, configDir: options.configDir, platform: process.platform, homedir: os.homedir(), env: process.env, cwd: process.cwd() });
  const table = new StateTable();
  const catalog = new Catalog(table, log);
  const notifier = new ChangeNotifier(catalog);
  let router: Router | undefined;
  const registry = new BackendRegistry(table, {
    log,
    logLevel: options.logLevel,
    logFormat: options.logFormat,
    pingIntervalMs: PING_INTERVAL_MS,
    pingTimeoutMs: PING_TIMEOUT_MS,
    stopGraceMs: DEFAULT_STOP_GRACE_MS,
    maxMessageBytes: 16 * 1024 * 1024,
    stateDir: null,
    onChange: () => {
      notifier.changed();
      initialLoad.update();
    },
    onBackendLog: (name, params) => router?.backendLog(name, params),
  });
  let configAttempted = false;
  const initialLoad = new InitialLoad({
    waitMs: options.initialWait,
    backends: () => (configAttempted ? table.backends.values() : null),
    onDeadline: (still) => log.warn({ initialWaitMs: options.initialWait, stillConnecting: still }, 'initial wait over: clients are answered with the backends connected so far'),
  });
  router = new Router({
    catalog,
    links: (name) => registry.handle(name),
    initialLoad,
    logUnrouted: (backend, params) => log.info({ backend, level: params.level, logger: params.logger, data: params.data }, 'backend log message'),
  });

  // Loads are serialized: a change during a load is applied after it, never concurrently.
  let loading: Promise<unknown> = Promise.resolve();
  let closed = false;
  let appliedFingerprint = '';
  // What `agent mcp status` tells of reloads: when the served configuration was loaded, and a rejection since.
  const reloadFacts: ReloadFacts = { loadedAt: null, rejected: null };
  let address: string | null = null;

  // The control socket is the instance lock: one HTTP service per configuration directory.
  // A stdio service (a desktop client's own) runs beside it without the control bus.
  let control: ControlServer | null = null;
  if (options.transport === 'http') {
    const socket = socketPath(location.dir);
    const handlers = createControlHandlers({ table, registry, configFile: location.file, address: () => address, reload: () => reload('agent mcp reload'), reloadFacts: () => reloadFacts });
    try {
      control = await startControlServer(socket, handlers, log);
      log.debug({ socket: control.path }, 'control bus listening');
    } catch (error) {
      if (error instanceof ControlSocketInUseError) throw new ServiceRunningError(await describeRunning(socket, location.dir));
      log.error({ error: redactCredentials(error) }, 'control bus not started: `agent mcp` commands cannot reach this service');
    }
  } else {
    log.info({ configDir: location.dir }, 'stdio mode: the control bus is not started (`agent mcp` commands reach the HTTP service of this configuration directory, if one runs)');
  }

  const tokens = new TokenEstimator();
  const mcpHttp = options.transport === 'http' ? createMcpEndpoints({ catalog, router, notifier, log, lazyTools: options.lazyTools, initialLoad }) : null;
  let server: http.Server | null = null;
  let port: number | null = null;
  let guard: OriginGuard | null = null;
  if (options.http) {
    const app = createApp(
      {
        table,
        level: options.healthInfoLevel,
        limiter: createHealthRateLimiter({ limit: options.healthRateLimit, windowSeconds: options.healthRateWindow, exempt: options.healthRateExempt }),
        now: Date.now,
        facts: currentProcessFacts,
      },
      () => guard,
      mcpHttp ?? undefined,
      createRestHandlers({ table, tokens }),
    );
    // polka's handler takes an optional `next`; passing one would replace its own route loop.
    const handle = app.handler.bind(app) as unknown as http.RequestListener;
    const listening = http.createServer(handle);
    try {
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(options.port, options.host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      // The service will not run: give the control socket back.
      await control?.close();
      throw error;
    }
    server = listening;
    const bound = listening.address();
    port = typeof bound === 'object' && bound ? bound.port : options.port;
    guard = createOriginGuard({
      listenHost: options.host,
      port,
      allowedOrigins: options.allowedOrigins,
      allowedHosts: options.allowedHosts,
      interfaceAddresses: Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
    });
    address = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    log.info({ host: options.host, port, healthInfoLevel: options.healthInfoLevel, transport: options.transport }, `listening on ${address}`);
  }

  const entry = workerEntry('backend');
  log.info({ file: entry.file }, entry.file.endsWith('.mjs') && !entry.workerData.entry ? 'backend workers run from the bundle' : 'backend workers run from source (no fresh bundle: `npm run bundle` makes one)');

  try {
    if (await ensureConfigFile(location)) log.info({ file: location.file }, 'configuration file did not exist: created an empty one');
  } catch (error) {
    log.error({ file: location.file, error: redactCredentials(error) }, 'could not create the configuration file');
  }

  const reload = (why: string): Promise<{ ok: boolean; message: string }> => {
    const next = loading.then(async () => {
      if (closed) return { ok: false, message: 'the service is shutting down' };
      const outcome = await loadConfig(location, process.env);
      if (closed) return { ok: false, message: 'the service is shutting down' };
      if (!outcome.ok) {
        const kept = table.configuration.loaded ? 'the last good configuration stays active' : 'the service stays up without a configuration (503) until a valid file appears';
        for (const problem of outcome.problems) log.error({ file: problem.file, line: problem.line, column: problem.column, path: problem.path || undefined }, `configuration rejected: ${formatProblem(problem)}; ${kept}`);
        const reason = outcome.problems.map(formatProblem).join('; ');
        reloadFacts.rejected = { at: new Date().toISOString(), reason };
        return { ok: false, message: `${reason}; ${kept}` };
      }
      // Editors, symlink swaps and our own files make events without a change: nothing to do then.
      const recovered = reloadFacts.rejected;
      reloadFacts.rejected = null;
      if (recovered) log.info({ file: location.file, rejectedSince: recovered.at }, 'configuration is valid again');
      if (why === 'file changed' && outcome.fingerprint === appliedFingerprint) return { ok: true, message: 'configuration unchanged' };
      appliedFingerprint = outcome.fingerprint;
      reloadFacts.loadedAt = new Date().toISOString();
      for (const warning of outcome.config.warnings) registry.warnOnce(warning);
      await registry.apply(outcome.config);
      log.info({ file: location.file, servers: outcome.config.servers.length, reason: why }, 'configuration loaded');
      return { ok: true, message: `loaded ${outcome.config.servers.length} servers from ${location.file}` };
    }).catch((error: unknown) => {
      log.error({ error: redactCredentials(error) }, 'configuration load failed');
      return { ok: false, message: `configuration load failed: ${redactCredentials(error)}` };
    });
    loading = next;
    return next;
  };
  const watcher = options.reload ? watchConfig(location.file, () => void reload('file changed')) : null;
  await reload('startup');
  configAttempted = true;
  initialLoad.update();

  // Lets `agent mcp ...` without --config find this service (lib/control/discovery.ts).
  let announcement: Announcement | null = null;
  if (control) {
    announcement = await announceService({ pid: process.pid, configFile: location.file, configDir: location.dir, socket: control.path, address, startedAt: new Date().toISOString() }).catch(
      (error: unknown) => {
        log.warn({ error: redactCredentials(error) }, 'service not announced: `agent mcp` commands need --config or --config-dir to find it');
        return null;
      },
    );
  }

  let finished: (code: 0 | 1) => void = () => undefined;
  const done = new Promise<0 | 1>((resolve) => (finished = resolve));
  const stdio = options.transport === 'stdio' ? serveOverStdio({ catalog, router, notifier, log, lazyTools: options.lazyTools, initialLoad, onEnd: () => void shutdown('stdin closed').then(finished) }) : null;

  // Stop accepting, tell clients (their sessions end), stop every backend, then return.
  let stopping: Promise<0 | 1> | null = null;
  function shutdown(reason: string): Promise<0 | 1> {
    stopping ??= (async () => {
      closed = true;
      log.info({ reason }, 'shutting down');
      const code = await runShutdown(
        [
          { name: 'stop accepting', run: () => server?.close() },
          { name: 'close MCP sessions', run: () => mcpHttp?.close() },
          { name: 'close the stdio session', run: () => stdio?.close() },
          { name: 'withdraw the announcement', run: () => announcement?.remove() },
          { name: 'close the control bus', run: () => control?.close() },
          { name: 'close connections', run: () => server?.closeAllConnections() },
          { name: 'stop notifications', run: () => notifier.close() },
          { name: 'stop watching the configuration', run: () => watcher?.close() },
          { name: 'finish the configuration load', run: () => loading },
          { name: 'stop backends', run: () => registry.stopAll() },
          { name: 'stop the token pool', run: () => tokens.close() },
        ],
        { deadlineMs: SHUTDOWN_DEADLINE_MS, log, killAll: () => registry.killAll() },
      );
      log.info({ code }, code === 0 ? 'stopped' : 'stopped with errors');
      await flushLogger(log);
      return code;
    })();
    return stopping;
  }
  return { port, shutdown, kill: () => registry.killAll(), done };
}
