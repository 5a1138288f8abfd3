// `agent serve` on the main thread (decisions §1): take the control socket (one HTTP service
// per configuration directory), end what a killed predecessor left, listen (health answered
// here, everything else forwarded as bytes to the hubs), start the hubs, load the configuration
// in the config worker, start the backends, watch for changes, and stop everything on
// SIGINT/SIGTERM within a deadline (decisions §2).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import type { ServeOptions } from '../cli/serve-options.ts';
import { ensureConfigFile } from '../config/ensure.ts';
import { resolveConfigLocation } from '../config/paths.ts';
import type { LoadedConfig } from '../config/types.ts';
import { callControl } from '../control/client.ts';
import { type Announcement, announceService } from '../control/discovery.ts';
import { type ControlServer, ControlSocketInUseError, socketPath, startControlServer } from '../control/server.ts';
import { createLogger, flushLogger } from '../shared/logger.ts';
import { redactCredentials } from '../shared/sanitize.ts';
import { AgentError, Code } from '../shared/errors.ts';
import { SERVICE_VERSION } from '../shared/version.ts';
import { workerEntry } from '../shared/worker-entry.ts';
import { createApp } from './app.ts';
import { ConfigLoader } from './config-loader.ts';
import { watchConfig } from './config-watch.ts';
import { createControlHandlers } from './control-handlers.ts';
import { currentProcessFacts } from './health/process-facts.ts';
import { createHealthRateLimiter } from './health/rate-limit.ts';
import type { HubHandle } from './hub-handle.ts';
import { HubPool } from './hubs.ts';
import { endOrphans } from './orphans.ts';
import { procStartTime, recordChild } from '../shared/child-records.ts';
import { createOriginGuard, type OriginGuard } from './origin-guard.ts';
import { BackendRegistry, DEFAULT_STOP_GRACE_MS } from './registry.ts';
import type { WorkerChannels } from './backend-worker-setup.ts';
import { keepStdoutForProtocol } from './stdout-guard.ts';
import { DEFAULT_MAX_HELD_ANSWERS, HeldAnswers } from './held-answers.ts';
import { BackendThreads, WORKER_OPTIONS } from './backend-threads.ts';
import { CodeCache } from './code-cache.ts';
import { exposeGcToWorkers } from './expose-gc.ts';
import { StartQueue } from './start-queue.ts';
import { ConfigReloader } from './reloader.ts';
import { runShutdown } from './shutdown.ts';
import { loadStateKey } from './state-key.ts';
import { StateTable } from './state-table.ts';
import type { StatusView } from './status-view.ts';
import { StdioBridge } from './stdio-bridge.ts';
import { DEFAULT_REQUEST_TIMEOUT } from '../shared/backend-spec.ts';
import { throttledReport } from './throttled-report.ts';
import { survivesWorkerStartFailures } from './worker-start-failure.ts';

export const PING_INTERVAL_MS = 30_000;
/** How often a state directory of its own (--state-dir) is looked for. */
const STATE_CHECK_MS = 2_000;
export const PING_TIMEOUT_MS = 5_000;
/** After stdin's end (stdio mode), answers owed are awaited for the longest requestTimeout and this much more. */
const STDIN_DRAIN_MARGIN_MS = 5_000;
/** How long the shutdown waits for a stdio client to read what stdout still holds. */
const STDOUT_FLUSH_MS = 2_000;

/** How long a second signal waits for its log line to be written before the process exits. */
const KILL_LOG_FLUSH_MS = 500;

/** The whole shutdown: backends stop in parallel (2 s + 2 s grace, then SIGKILL), with room to spare. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

export type RunningService = {
  /** The HTTP port, or null with --no-http. */
  port: number | null;
  /** Stops everything; resolves with the exit code (1 when a step failed or the deadline passed). */
  shutdown(reason: string): Promise<0 | 1>;
  /** SIGKILLs every backend process group at once (a second signal), logs it; settles when the log is written (at most 500 ms). */
  kill(signal: string): Promise<void>;
  /** Settles with the exit code when the service has shut down by itself (stdin EOF in stdio mode). */
  done: Promise<0 | 1>;
};

/** Another HTTP service runs on the same configuration directory. */
export class ServiceRunningError extends AgentError {
  override readonly name: string = 'ServiceRunningError';
  constructor(message: string) {
    super(Code.service_running, message);
  }
}

// Who holds the control socket, for the refusal message.
// `ownStateDir`: the state directory is a --state-dir of its own, shared with that service.
async function describeRunning(socket: string, dir: string, ownStateDir: boolean): Promise<string> {
  const answer = await callControl(socket, 'status', {}, { timeoutMs: 2_000 }).catch(() => null);
  const view = answer?.ok ? (answer.result as StatusView) : null;
  const who = view ? `pid ${view.pid}${view.address ? `, ${view.address}` : ''}` : `control socket ${socket}`;
  const what = ownStateDir ? 'state directory' : 'configuration directory';
  return `another agent service is already running on the ${what} ${dir} (${who}); stop it first, or start this one with another ${ownStateDir ? '--state-dir' : '--config-dir'}`;
}

/** Waits for `work`; if it is not done within `ms`, calls `nudge` (which should make it end) and goes on waiting. */
async function finishWithin(work: Promise<unknown>, ms: number, nudge: () => void): Promise<void> {
  const timer = setTimeout(nudge, ms);
  try {
    await work;
  } finally {
    clearTimeout(timer);
  }
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound ? bound.port : port);
    });
  });
}

/** What tests put in place of the real worker entries (fixtures named after a failure). */
export type ServeSeams = { hubWorker?: { file: string; workerData: Record<string, unknown> } };

export async function serve(options: ServeOptions, seams: ServeSeams = {}): Promise<RunningService> {
  const startedAt = Date.now();
  exposeGcToWorkers();
  const log = createLogger(options.logLevel, options.logFormat, { sync: false });
  // A stray rejected promise must not take the probes down with the process: log it instead.
  process.on('unhandledRejection', (reason) => log.error({ code: Code.internal, error: redactCredentials(reason) }, 'unhandled rejection on the main thread'));
  survivesWorkerStartFailures((error) => log.error({ code: Code.internal, error: redactCredentials(error.message) }, 'a worker thread could not start (out of file descriptors or memory?); the service keeps running'));
  // stderr carries log lines only: Node's warnings become log lines too.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => log.warn({ warning: warning.name, warningCode: (warning as { code?: string }).code }, warning.message));

  const location = resolveConfigLocation({ config: options.config, configDir: options.configDir, platform: process.platform, homedir: os.homedir(), env: process.env, cwd: process.cwd() });
  const stateDir = options.stateDir ?? location.dir;
  const table = new StateTable();
  let address: string | null = null;
  // What shutdown() stops: declared first, since stdin's end (stdio mode) may come at any time.
  let server: http.Server | null = null;
  let watcher: { close(): Promise<void> } | null = null;
  let announcement: Announcement | null = null;
  let stopping: Promise<0 | 1> | null = null;
  // stdio mode: why answers were lost (the service then exits 1), as the bridge said.
  let answersLost: string | null = null;

  // Backend workers from the bundle share one V8 code cache, kept in the state directory between runs.
  const entry = workerEntry('backend');
  const bundle = (entry.workerData.loader as { bundle?: string } | undefined)?.bundle;
  const codeCache = bundle ? new CodeCache(bundle, path.join(stateDir, 'code-cache')) : undefined;

  let hubs: HubPool | null = null;
  // Every backend worker gets a direct channel to every hub that is up.
  const wire = (hub: HubHandle, handle: WorkerChannels) => {
    const port = handle.channelToHub(hub.index);
    if (port) hubs?.attach(hub, handle.spec.name, handle.workerNumber, port);
  };
  const registry = new BackendRegistry(table, {
    log,
    logLevel: options.logLevel,
    logFormat: options.logFormat,
    pingIntervalMs: PING_INTERVAL_MS,
    pingTimeoutMs: PING_TIMEOUT_MS,
    stopGraceMs: DEFAULT_STOP_GRACE_MS,
    maxMessageBytes: options.maxMessageBytes,
    stateDir,
    workerNice: options.workerNice,
    inputTimeoutMs: options.inputTimeout,
    stderrLimits: options.stderrLimits,
    starts: new StartQueue(options.workerStartConcurrency),
    threads: new BackendThreads(options.backendsPerWorker, WORKER_OPTIONS),
    ...(codeCache ? { codeCache } : {}),
    onFacts: (name) => hubs?.touch(name),
    onWorker: (handle) => {
      for (const hub of hubs?.hubs ?? []) if (hub.up) wire(hub, handle);
    },
    onDown: (name, message) => hubs?.broadcast({ type: 'backendDown', name, message }),
    // Without a control bus (stdio mode, or one that did not start) `agent mcp restart` cannot reach this service.
    crashLoopAdvice: () => (control ? undefined : 'fix its configuration: a saved change to its entry restarts it'),
  });
  const loader = new ConfigLoader(options.workerNice);
  const reloader = new ConfigReloader({
    location,
    load: (at) => loader.load(at, process.env),
    apply: async (loaded: LoadedConfig) => {
      const config = options.transport === 'stdio' ? keepStdoutForProtocol(loaded) : loaded;
      for (const warning of config.warnings) registry.warnOnce(warning);
      await registry.apply(config);
      hubs?.refresh();
    },
    loaded: () => table.configuration.loaded,
    log,
  });

  // The control socket is the instance lock: one HTTP service per configuration directory.
  // A stdio service (a desktop client's own) runs beside it without the control bus.
  let control: ControlServer | null = null;
  let stateCheck: NodeJS.Timeout | null = null;
  let controlAt: { socket: string; handlers: ReturnType<typeof createControlHandlers> } | null = null;
  if (options.transport === 'http') {
    const socket = socketPath(stateDir);
    const handlers = createControlHandlers({ table, registry, configFile: location.file, address: () => address, reload: () => reloader.reload('agent mcp reload'), reloadFacts: () => reloader.facts });
    try {
      control = await startControlServer(socket, handlers, log);
      controlAt = { socket, handlers };
      log.debug({ socket: control.path }, 'control bus listening');
    } catch (error) {
      if (error instanceof ControlSocketInUseError) throw new ServiceRunningError(await describeRunning(socket, stateDir, stateDir !== location.dir));
      log.error({ code: error instanceof AgentError ? error.code : Code.internal, error: redactCredentials(error) }, 'control bus not started: `agent mcp` commands cannot reach this service');
    }
  } else {
    log.info({ configDir: location.dir }, 'stdio mode: the control bus is not started (`agent mcp` commands reach the HTTP service of this configuration directory, if one runs)');
  }
  // Backends a killed predecessor left behind end before ours start; those of a live service (an
  // HTTP one, or a stdio one beside this) are its own. A stdio client that kills its service
  // before the backends have stopped (the SDK's sends SIGKILL 2 s after SIGTERM) leaves some.
  endOrphans(stateDir, log);

  // Readiness counts the MCP workers up (none: clients get 503).
  const countHubs = () => (table.mcpWorkers = { total: options.mcpWorkers, up: hubs?.hubs.filter((hub) => hub.up).length ?? 0 });
  table.mcpWorkers = { total: options.mcpWorkers, up: 0 };
  // Answers clients are not reading, held by the main thread: four answers of twice
  // --max-message-bytes together (128 MiB by default), as each hub holds at most beyond its windows.
  const heldAnswers = new HeldAnswers(Math.max(8 * options.maxMessageBytes, DEFAULT_MAX_HELD_ANSWERS), ({ bytes, held }) =>
    log.warn({ code: Code.client_too_slow, bytes, held }, 'an MCP client stopped reading its answer while clients that are not reading held more than the limit together: its connection was cut'),
  );
  hubs = new HubPool(
    options.mcpWorkers,
    {
      log: { level: options.logLevel, format: options.logFormat },
      lazyTools: options.lazyTools,
      transport: options.transport,
      initialWaitUntil: startedAt + options.initialWait,
      maxMessageBytes: options.maxMessageBytes,
      maxSessions: options.maxSessions,
      nice: options.workerNice,
      version: SERVICE_VERSION,
      requestStateKey: loadStateKey(stateDir).toString('hex'),
      instance: randomUUID(),
      inputTimeoutMs: options.inputTimeout,
    },
    {
      log,
      limits: { maxBodyBytes: options.maxMessageBytes, held: heldAnswers },
      backends: () => table.backends,
      disabled: () => table.disabled,
      configAttempted: () => reloader.attempted,
      ...(seams.hubWorker ? { worker: seams.hubWorker } : {}),
      wireBackends: (hub) => {
        for (const handle of registry.all()) wire(hub, handle);
      },
      onUp: (hub) => {
        countHubs();
        if (hub.index === 0 && hub.pump) stdio?.attach(hub.pump);
      },
      onDown: (hub) => {
        countHubs();
        if (hub.index === 0) stdio?.detach();
      },
    },
  );

  let finished: (code: 0 | 1) => void = () => undefined;
  const done = new Promise<0 | 1>((resolve) => (finished = resolve));
  // After stdin's end the calls read by then may take up to their requestTimeout (a question to
  // the client fails at once), counted from when they can be routed: not before the initial load
  // (its wait included) is over. Before the configuration is loaded, the default requestTimeout.
  const drainUntil = (endedAt: number) => {
    const longest = reloader.attempted ? Math.max(0, ...[...registry.all()].map((handle) => handle.spec.requestTimeout)) : DEFAULT_REQUEST_TIMEOUT;
    return Math.max(endedAt, startedAt + options.initialWait) + longest + STDIN_DRAIN_MARGIN_MS;
  };
  // Answers lost (the deadline, a closed stdout, a dead hub): exit 1, so a script can tell.
  const onStdioEnd = (reason: string, clean: boolean) => {
    if (!clean) answersLost ??= reason;
    void shutdown(reason).then(finished);
  };
  const stdio =
    options.transport === 'stdio'
      ? new StdioBridge(onStdioEnd, {
          drainUntil,
          maxLineBytes: options.maxMessageBytes,
          onDropped: (bytes) =>
            log.warn({ code: Code.hub_failed, bytes }, `${bytes} bytes of stdin were dropped: the MCP worker that took them died before reading them, twice in a row (or they are the rest of a line over --max-message-bytes whose start went to a worker that died); a request among them gets no answer`),
        })
      : null;
  // The hubs load while the listener opens; a request that comes first waits for them.
  hubs.start();

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
      (req, res) => hubs!.forward(req, res),
    );
    const listening = http.createServer(app.handler);
    try {
      port = await listen(listening, options.port, options.host);
    } catch (error) {
      // The service will not run: give the control socket back, stop the hubs.
      await control?.close();
      await hubs.stopAll();
      throw error;
    }
    server = listening;
    // An accept that fails (EMFILE: out of file descriptors) is emitted here; unheard, it would end the process.
    listening.on(
      'error',
      throttledReport((error: NodeJS.ErrnoException, notReported) =>
        log.warn({ code: Code.internal, error: error.message, errno: error.code, failuresNotLogged: notReported || undefined }, 'accepting an HTTP connection failed; the service keeps listening (out of file descriptors? see README "Many backends")'),
      ),
    );
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

  log.info(
    { file: bundle ?? entry.file, workerStartConcurrency: options.workerStartConcurrency, backendsPerWorker: options.backendsPerWorker },
    bundle || (entry.file.endsWith('.mjs') && !entry.workerData.entry) ? 'backend workers run from the bundle' : 'backend workers run from source (no fresh bundle: `npm run bundle` makes one)',
  );

  try {
    if (await ensureConfigFile(location)) log.info({ file: location.file }, 'configuration file did not exist: created an empty one');
  } catch (error) {
    log.error({ code: Code.write_failed, file: location.file, error: redactCredentials(error) }, 'could not create the configuration file');
  }
  // The configuration directory removed and made again (a redeploy, a new checkout): when it is
  // also the state directory, this service's control socket and its backends' child records (the
  // orphan sweep's) went with it, and are made again.
  let remaking = false;
  const remakeState = async (what: string) => {
    if (stopping || remaking) return;
    remaking = true;
    if (control && controlAt) {
      await control.close().catch(() => undefined);
      control = await startControlServer(controlAt.socket, controlAt.handlers, log).catch((error: unknown) => {
        log.error({ code: Code.internal, error: redactCredentials(error) }, 'control bus not started again: `agent mcp` commands cannot reach this service');
        return null;
      });
    }
    let records = 0;
    try {
      for (const [name, state] of table.backends) {
        const spec = registry.handle(name)?.spec;
        const startTime = state.pid === null ? null : procStartTime(state.pid);
        if (state.pid === null || startTime === null || spec?.type !== 'stdio') continue;
        recordChild(stateDir, { pid: state.pid, startTime, backend: name, servicePid: process.pid, command: spec.command, recordedAt: new Date().toISOString() });
        records++;
      }
      log.warn({ dir: stateDir, socket: control?.path ?? null, childRecords: records }, `${what}: the control socket and the child records are made again in it`);
    } catch (error) {
      log.error({ code: Code.write_failed, dir: stateDir, error: redactCredentials(error) }, `${what}: the child records could not be made again (the orphan sweep may miss these backends)`);
    } finally {
      remaking = false;
    }
  };
  const stateDirBack = () => {
    if (stateDir === location.dir) void remakeState('the configuration directory was removed and made again');
  };
  // A state directory of its own (--state-dir) that is removed is made again by the service (it
  // is the service's), looked for every STATE_CHECK_MS: a stat, on the main thread.
  if (stateDir !== location.dir) {
    stateCheck = setInterval(() => {
      if (stopping || remaking || fs.existsSync(stateDir)) return;
      try {
        fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      } catch (error) {
        return void log.error({ code: Code.write_failed, dir: stateDir, error: redactCredentials(error) }, 'the state directory was removed and cannot be made again');
      }
      void remakeState('the state directory was removed');
    }, STATE_CHECK_MS);
    stateCheck.unref();
  }
  if (options.reload && !stopping) {
    watcher = watchConfig(
      location.file,
      () => void reloader.reload('file changed'),
      throttledReport((error: NodeJS.ErrnoException, notReported) =>
        log.warn(
          { code: Code.internal, error: redactCredentials(error.message), errno: error.code, failuresNotLogged: notReported || undefined },
          'watching the configuration failed: a change to the file may not reload it (`agent mcp reload` still does); the service keeps running',
        ),
      ),
      undefined,
      stateDirBack,
    );
  }

  // The code cache on disk (a few ms) is read before the first backend starts.
  await codeCache?.loaded;
  await reloader.reload('startup');

  // Lets `agent mcp ...` without --config find this service (lib/control/discovery.ts).
  if (control && !stopping) {
    announcement = await announceService({ pid: process.pid, configFile: location.file, configDir: location.dir, stateDir, socket: control.path, address, startedAt: new Date(startedAt).toISOString() }).catch(
      (error: unknown) => {
        log.warn({ code: error instanceof AgentError ? error.code : Code.internal, error: redactCredentials(error) }, 'service not announced: `agent mcp` commands need --config or --config-dir to find it');
        return null;
      },
    );
  }

  function lostUnread(bytes: number): void {
    log.warn({ code: Code.service_stopping, bytes }, `${bytes} bytes of stdin were never read: no MCP worker was up when the service stopped (one was starting or restarting); a request among them gets no answer`);
    answersLost ??= 'stdin read while no MCP worker was up was never answered';
  }

  // Stop accepting, tell clients (their sessions end), stop every backend, then return.
  function shutdown(reason: string): Promise<0 | 1> {
    stopping ??= (async () => {
      log.info({ reason }, 'shutting down');
      const code = await runShutdown(
        [
          { name: 'stop accepting', run: () => server?.close() },
          { name: 'close MCP sessions', run: () => hubs?.stopAll() },
          // stdio: lines read while no hub was up (one starting or restarting) reach none now; the main thread does not read them to answer.
          { name: 'count unread stdin', run: () => void (stdio?.unsentBytes && lostUnread(stdio.unsentBytes)) },
          { name: 'withdraw the announcement', run: () => announcement?.remove() },
          { name: 'close the control bus', run: () => (stateCheck && clearInterval(stateCheck), control?.close()) },
          { name: 'close connections', run: () => server?.closeAllConnections() },
          { name: 'stop watching the configuration', run: () => watcher?.close() },
          // A load that does not finish soon (a worker that cannot start) is ended with its worker.
          { name: 'finish the configuration load', run: () => finishWithin(reloader.close(), 2_000, () => void loader.close()) },
          { name: 'stop backends', run: () => registry.stopAll() },
          { name: 'stop the config worker', run: () => loader.close() },
          // The last answers and error lines reach a stdio client before the process exits.
          { name: 'flush stdout', run: () => stdio?.flushed(STDOUT_FLUSH_MS) },
        ],
        { deadlineMs: SHUTDOWN_DEADLINE_MS, log, killAll: () => registry.killAll() },
      );
      // Read now: stdout may have failed while the shutdown ran.
      const exitCode = answersLost ? 1 : code;
      log.info({ exitCode }, answersLost ? `stopped with exit code 1: ${answersLost}` : code === 0 ? 'stopped' : 'stopped with errors');
      await flushLogger(log);
      return exitCode;
    })();
    return stopping;
  }
  const kill = (signal: string) => {
    log.warn({ signal, exitCode: 1 }, `second ${signal}: every backend's process group (and what left it) SIGKILLed, exiting now with code 1`);
    registry.killAll();
    return Promise.race([flushLogger(log), new Promise<void>((resolve) => setTimeout(resolve, KILL_LOG_FLUSH_MS))]);
  };
  return { port, shutdown, kill, done };
}
