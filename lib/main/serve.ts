// `agent serve`: listen first, then load the configuration, start the backends, watch for
// changes, and stop everything on SIGINT/SIGTERM (decisions §2).
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
import { redactCredentials, sanitize } from '../shared/sanitize.ts';
import { createApp } from './app.ts';
import { createLogger, flushLogger } from '../shared/logger.ts';
import { Catalog } from '../hub/catalog.ts';
import { createMcpEndpoints } from '../hub/http.ts';
import { ChangeNotifier } from '../hub/notifier.ts';
import { Router } from '../hub/router.ts';
import { serveOverStdio } from '../hub/stdio.ts';
import { createRestHandlers } from '../hub/rest.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { TokenEstimator } from '../hub/token-estimator.ts';
import { type ControlServer, socketPath, startControlServer } from '../control/server.ts';
import { type Announcement, announceService } from '../control/discovery.ts';
import { createControlHandlers } from './control-handlers.ts';
import type { ReloadFacts } from './status-view.ts';

export const PING_INTERVAL_MS = 30_000;
export const PING_TIMEOUT_MS = 5_000;

export type RunningService = {
  /** The HTTP port, or null with --no-http. */
  port: number | null;
  shutdown(reason: string): Promise<void>;
  /** Settles when the service has shut down by itself (stdin EOF in stdio mode). */
  done: Promise<void>;
};

export async function serve(options: ServeOptions): Promise<RunningService> {
  const log = createLogger(options.logLevel, options.logFormat, { sync: false });
  // A stray rejected promise must not take the probes down with the process: log it instead.
  process.on('unhandledRejection', (reason) => log.error({ error: sanitize(reason) }, 'unhandled rejection on the main thread'));
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
    onChange: () => notifier.changed(),
    onBackendLog: (name, params) => router?.backendLog(name, params),
  });
  router = new Router(catalog, (name) => registry.handle(name));

  const tokens = new TokenEstimator();
  const mcpHttp = options.transport === 'http' ? createMcpEndpoints({ catalog, router, notifier, log, lazyTools: options.lazyTools }) : null;
  let server: http.Server | null = null;
  let port: number | null = null;
  if (options.http) {
    const app = createApp(
      {
        table,
        level: options.healthInfoLevel,
        limiter: createHealthRateLimiter({ limit: options.healthRateLimit, windowSeconds: options.healthRateWindow, exempt: options.healthRateExempt }),
        now: Date.now,
        facts: currentProcessFacts,
      },
      mcpHttp ?? undefined,
      createRestHandlers({ table, tokens }),
    );
    // polka's handler takes an optional `next`; passing one would replace its own route loop.
    const handle = app.handler.bind(app) as unknown as http.RequestListener;
    const listening = http.createServer(handle);
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(options.port, options.host, () => {
        listening.off('error', reject);
        resolve();
      });
    });
    server = listening;
    const address = listening.address();
    port = typeof address === 'object' && address ? address.port : options.port;
    log.info({ host: options.host, port, healthInfoLevel: options.healthInfoLevel, transport: options.transport }, `listening on http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`);
  }

  const entry = workerEntry('backend');
  log.info({ file: entry.file }, entry.file.endsWith('.mjs') && !entry.workerData.entry ? 'backend workers run from the bundle' : 'backend workers run from source (no fresh bundle: `npm run bundle` makes one)');

  const location = resolveConfigLocation({ config: options.config, configDir: options.configDir, platform: process.platform, homedir: os.homedir(), env: process.env, cwd: process.cwd() });
  try {
    if (await ensureConfigFile(location)) log.info({ file: location.file }, 'configuration file did not exist: created an empty one');
  } catch (error) {
    log.error({ file: location.file, error: sanitize(error) }, 'could not create the configuration file');
  }

  // Loads are serialized: a change during a load is applied after it, never concurrently.
  let loading: Promise<unknown> = Promise.resolve();
  let closed = false;
  let appliedFingerprint = '';
  // What `agent mcp status` tells of reloads: when the served configuration was loaded, and a rejection since.
  const reloadFacts: ReloadFacts = { loadedAt: null, rejected: null };
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
      log.error({ error: sanitize(error) }, 'configuration load failed');
      return { ok: false, message: `configuration load failed: ${sanitize(error)}` };
    });
    loading = next;
    return next;
  };
  const watcher = options.reload ? watchConfig(location.file, () => void reload('file changed')) : null;
  await reload('startup');

  let control: ControlServer | null = null;
  try {
    control = await startControlServer(socketPath(location.dir), createControlHandlers({ table, registry, configFile: location.file, reload: () => reload('agent mcp reload'), reloadFacts: () => reloadFacts }), log);
    log.debug({ socket: control.path }, 'control bus listening');
  } catch (error) {
    log.error({ error: sanitize(error) }, 'control bus not started: `agent mcp` commands cannot reach this service');
  }
  // Lets `agent mcp ...` without --config find this service (lib/control/discovery.ts).
  let announcement: Announcement | null = null;
  if (control) {
    const address = port === null ? null : `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    announcement = await announceService({ pid: process.pid, configFile: location.file, configDir: location.dir, socket: control.path, address, startedAt: new Date().toISOString() }).catch(
      (error: unknown) => {
        log.warn({ error: redactCredentials(error) }, 'service not announced: `agent mcp` commands need --config or --config-dir to find it');
        return null;
      },
    );
  }

  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const stdio = options.transport === 'stdio' ? serveOverStdio({ catalog, router, notifier, log, lazyTools: options.lazyTools, onEnd: () => void shutdown('stdin closed').then(finished) }) : null;

  // Stop accepting, tell clients (their sessions end), stop every backend, then return.
  async function shutdown(reason: string): Promise<void> {
    if (closed) return;
    closed = true;
    log.info({ reason }, 'shutting down');
    server?.close();
    await mcpHttp?.close();
    await stdio?.close();
    await announcement?.remove().catch(() => undefined);
    await control?.close();
    server?.closeAllConnections();
    notifier.close();
    await watcher?.close();
    await loading;
    await registry.stopAll();
    await tokens.close();
    log.info('stopped');
    await flushLogger(log);
  }
  return { port, shutdown, done };
}
