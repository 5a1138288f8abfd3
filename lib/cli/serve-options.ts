// Parses `agent serve` options (flags beat AGENT_* variables) into validated settings. Pure.
import { type HealthLevel, HEALTH_LEVELS, DEFAULT_HEALTH_LEVEL } from '../main/health/levels.ts';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../shared/logger.ts';
import { parseExemptList } from '../main/health/rate-limit.ts';
import { STDERR_LIMIT_KEYS, STDERR_LIMIT_MAX, type StderrLimits } from '../shared/stderr-limits.ts';
import { DEFAULT_INPUT_TIMEOUT_MS } from '../shared/messages/state-events.ts';
import { AgentError, Code } from '../shared/errors.ts';

/** Hubs, backend workers and their children run this much nicer than the main thread (benchmarks/README.md). */
export const DEFAULT_WORKER_NICE = 10;
/** Backend starts in flight at once, each from its worker's creation to its first connect, failure or stop, at most 15 s (`--worker-start-concurrency`), chosen by benchmark (benchmarks/README.md). */
export const DEFAULT_WORKER_START_CONCURRENCY = 2;

/** A command line that cannot run (catalogue code `usage`, exit code 2). */
export class UsageError extends AgentError {
  override readonly name: string = 'UsageError';
  constructor(message: string) {
    super(Code.usage, message);
  }
}

export type ServeOptions = {
  config: string | undefined;
  configDir: string | undefined;
  host: string;
  port: number;
  healthInfoLevel: HealthLevel;
  logLevel: LogLevel;
  logFormat: LogFormat;
  healthRateLimit: number;
  healthRateWindow: number;
  healthRateExempt: string[];
  reload: boolean;
  /** How the one-server MCP endpoint is offered: `http` (/mcp and /sse) or `stdio`. */
  transport: 'http' | 'stdio';
  /** Listen for HTTP (health and, with transport http, MCP). Only `--transport stdio` may turn it off. */
  http: boolean;
  /** Expose tool_list / tool_schema / tool_invoke instead of every backend tool. */
  lazyTools: boolean;
  /** Origins admitted on non-health routes besides the service's own; `*` = any. */
  allowedOrigins: string[];
  /** Host header values admitted besides the loopback names of a loopback listener; `*` = any. */
  allowedHosts: string[];
  /** At start, how long requests wait for every backend's first connection attempt, ms (0 = not at all). */
  initialWait: number;
  /** Largest JSON-RPC message in any direction, bytes (stdin lines, MCP request bodies, backend lines). */
  maxMessageBytes: number;
  /** 2025 and SSE sessions kept at most (over every hub). */
  maxSessions: number;
  /** Hubs (MCP face worker threads). */
  mcpWorkers: number;
  /** Nice value of hubs, backend workers and backend children (0-19; the main thread keeps its own). */
  workerNice: number;
  /** Backend starts in flight at once, to the first connect or failure (0 = no limit). */
  workerStartConcurrency: number;
  /** Backends sharing one worker thread (1 = a worker each, the default). */
  backendsPerWorker: number;
  /** How long a client may take to answer a backend's question (elicitation, sampling), ms. */
  inputTimeout: number;
  /** Writable state (backups, socket, child records): default the configuration directory. */
  stateDir: string | undefined;
  /** Service-wide stderr limits (`--stderr-*`): under each server's own, over the spec's defaults. Only the ones given. */
  stderrLimits: Partial<StderrLimits>;
};

/** The flag of each stderr limit; its variable is AGENT_ and the flag in upper snake case. */
export const STDERR_LIMIT_FLAGS: Readonly<Record<keyof StderrLimits, string>> = {
  lineBytes: 'stderr-line-bytes',
  linesPerWindow: 'stderr-lines-per-window',
  windowSeconds: 'stderr-window-seconds',
  summaryIntervalSeconds: 'stderr-summary-interval-seconds',
  queueHighWaterBytes: 'stderr-queue-high-water-bytes',
};

type Raw = Record<string, unknown>;

/** `agent serve` options that take no value; every other one does. */
const SERVE_SWITCHES = new Set(['reload', 'http', 'lazy-tools', 'help', 'h', 'version', 'v']);

/**
 * The `agent serve` command line made ready for the argument parser (mri, under sade): a value
 * that looks like a negative number is joined to its option (`--worker-nice -1` would otherwise
 * read as an unknown option `-1`, and the range check never see it), and every option given
 * with a value is listed as a string option, so an empty value stays empty (mri turns it into 0)
 * and counts as unset, while an option given without any value is still refused.
 */
export function serveArgv(argv: readonly string[]): { argv: string[]; string: string[] } {
  const out: string[] = [];
  const valued = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = /^--([^=]+)/.exec(arg)?.[1];
    if (name === undefined || SERVE_SWITCHES.has(name) || name.startsWith('no-')) {
      out.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (!arg.includes('=') && next !== undefined && /^-\d/.test(next)) {
      valued.add(name);
      out.push(`${arg}=${next}`);
      i++;
      continue;
    }
    // Only an option that has a value (`--x v`, `--x ""`, `--x=`) is a string option: one with
    // none (`--port --config-dir d`, `--config` last) stays `true` and is refused by the checks.
    if (arg.includes('=') || (next !== undefined && !next.startsWith('-'))) valued.add(name);
    out.push(arg);
  }
  return { argv: out, string: [...valued] };
}

// An empty flag or variable counts as unset (`--worker-nice "$UNSET"` keeps the default).
function pick(flags: Raw, env: Record<string, string | undefined>, flag: string, variable: string): { value: unknown; from: string } | undefined {
  if (flags[flag] !== undefined && flags[flag] !== '') return { value: flags[flag], from: `--${flag}` };
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: variable };
  return undefined;
}

// An option given without a value (mri makes it `true`): said as such, not as `got "true"`.
const noValue = (found: { value: unknown; from: string }, expected: string) =>
  found.value === true && found.from.startsWith('--') ? new UsageError(`Expected ${found.from} to be given ${expected}, got no value`) : null;

function oneOf<T extends string>(found: { value: unknown; from: string } | undefined, allowed: readonly T[], fallback: T): T {
  if (!found) return fallback;
  const missing = noValue(found, `one of ${allowed.join(', ')}`);
  if (missing) throw missing;
  const value = String(found.value);
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Expected ${found.from} to be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
}

function integer(found: { value: unknown; from: string } | undefined, fallback: number, min: number, max: number): number {
  if (!found) return fallback;
  const missing = noValue(found, `a whole number from ${min} to ${max}`);
  if (missing) throw missing;
  const text = String(found.value);
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`Expected ${found.from} to be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

function text(found: { value: unknown; from: string } | undefined): string | undefined {
  if (!found) return undefined;
  const missing = noValue(found, 'a value');
  if (missing) throw missing;
  if (typeof found.value !== 'string') throw new UsageError(`Expected ${found.from} to be given once with a value, got ${JSON.stringify(found.value)}`);
  return found.value;
}

function list(found: { value: unknown; from: string } | undefined): string[] {
  const value = text(found);
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

// Origins as browsers send them: scheme://host[:port], nothing after; or `*`.
function origins(found: { value: unknown; from: string } | undefined): string[] {
  const entries = list(found);
  for (const entry of entries) {
    if (entry === '*') continue;
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin === 'null' || entry.replace(/\/$/, '').toLowerCase() !== url.origin.toLowerCase()) {
      throw new UsageError(`Expected ${found!.from} to be a comma-separated list of origins such as http://localhost:6274 (scheme, host and port only) or *, got ${JSON.stringify(entry)}`);
    }
  }
  return entries;
}

function hosts(found: { value: unknown; from: string } | undefined): string[] {
  const entries = list(found);
  for (const entry of entries) {
    if (entry !== '*' && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(entry)) {
      throw new UsageError(`Expected ${found!.from} to be a comma-separated list of host names or host:port entries or *, got ${JSON.stringify(entry)}`);
    }
  }
  return entries;
}

function stderrLimits(flags: Raw, env: Record<string, string | undefined>): Partial<StderrLimits> {
  const limits: Partial<StderrLimits> = {};
  for (const key of STDERR_LIMIT_KEYS) {
    const flag = STDERR_LIMIT_FLAGS[key];
    const found = pick(flags, env, flag, `AGENT_${flag.replace(/-/g, '_').toUpperCase()}`);
    if (found) limits[key] = integer(found, 0, 1, STDERR_LIMIT_MAX[key]);
  }
  return limits;
}

export function parseServeOptions(flags: Raw, env: Record<string, string | undefined>): ServeOptions {
  const level = pick(flags, env, 'health-info-level', 'AGENT_HEALTH_INFO_LEVEL');
  const exemptFound = pick(flags, env, 'health-rate-exempt', 'AGENT_HEALTH_RATE_EXEMPT');
  const exemptText = text(exemptFound);
  const healthRateExempt = exemptText ? exemptText.split(',').map((s) => s.trim()).filter(Boolean) : [];
  try {
    parseExemptList(healthRateExempt);
  } catch (error) {
    throw new UsageError(`Expected ${exemptFound?.from ?? '--health-rate-exempt'} to be a comma-separated list of IP addresses or CIDRs: ${(error as Error).message}`);
  }
  const options: ServeOptions = {
    config: text(pick(flags, env, 'config', 'AGENT_CONFIG')),
    configDir: text(pick(flags, env, 'config-dir', 'AGENT_CONFIG_DIR')),
    host: text(pick(flags, env, 'host', 'AGENT_HOST')) ?? '127.0.0.1',
    port: integer(pick(flags, env, 'port', 'AGENT_PORT'), 3050, 0, 65535),
    healthInfoLevel: oneOf(level, HEALTH_LEVELS, DEFAULT_HEALTH_LEVEL),
    logLevel: oneOf(pick(flags, env, 'log-level', 'AGENT_LOG_LEVEL'), LOG_LEVELS, 'info'),
    logFormat: oneOf(pick(flags, env, 'log-format', 'AGENT_LOG_FORMAT'), LOG_FORMATS, 'json'),
    healthRateLimit: integer(pick(flags, env, 'health-rate-limit', 'AGENT_HEALTH_RATE_LIMIT'), 200, 0, 1_000_000_000),
    healthRateWindow: integer(pick(flags, env, 'health-rate-window', 'AGENT_HEALTH_RATE_WINDOW'), 300, 1, 86_400),
    healthRateExempt,
    reload: flags.reload !== false,
    transport: oneOf(pick(flags, env, 'transport', 'AGENT_TRANSPORT'), ['http', 'stdio'] as const, 'http'),
    http: flags.http !== false,
    lazyTools: flags['lazy-tools'] === true || /^(1|true|yes)$/i.test(env.AGENT_LAZY_TOOLS ?? ''),
    allowedOrigins: origins(pick(flags, env, 'allowed-origins', 'AGENT_ALLOWED_ORIGINS')),
    allowedHosts: hosts(pick(flags, env, 'allowed-hosts', 'AGENT_ALLOWED_HOSTS')),
    initialWait: integer(pick(flags, env, 'initial-wait', 'AGENT_INITIAL_WAIT'), 10_000, 0, 600_000),
    maxMessageBytes: integer(pick(flags, env, 'max-message-bytes', 'AGENT_MAX_MESSAGE_BYTES'), 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxSessions: integer(pick(flags, env, 'max-sessions', 'AGENT_MAX_SESSIONS'), 1000, 1, 1_000_000),
    mcpWorkers: integer(pick(flags, env, 'mcp-workers', 'AGENT_MCP_WORKERS'), 1, 1, 64),
    workerNice: integer(pick(flags, env, 'worker-nice', 'AGENT_WORKER_NICE'), DEFAULT_WORKER_NICE, 0, 19),
    backendsPerWorker: integer(pick(flags, env, 'backends-per-worker', 'AGENT_BACKENDS_PER_WORKER'), 1, 1, 64),
    workerStartConcurrency: integer(pick(flags, env, 'worker-start-concurrency', 'AGENT_WORKER_START_CONCURRENCY'), DEFAULT_WORKER_START_CONCURRENCY, 0, 1024),
    inputTimeout: integer(pick(flags, env, 'input-timeout', 'AGENT_INPUT_TIMEOUT'), DEFAULT_INPUT_TIMEOUT_MS, 1_000, 86_400_000),
    stateDir: text(pick(flags, env, 'state-dir', 'AGENT_STATE_DIR')),
    stderrLimits: stderrLimits(flags, env),
  };
  if (!options.http && options.transport !== 'stdio') throw new UsageError('Expected --no-http only with --transport stdio: otherwise nothing would be served');
  return options;
}
