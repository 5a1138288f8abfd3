import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_WORKER_START_CONCURRENCY, parseServeOptions, type ServeOptions, serveArgv, UsageError } from '../../lib/cli/serve-options.ts';

const DEFAULTS: ServeOptions = {
  config: undefined,
  configDir: undefined,
  host: '127.0.0.1',
  port: 3050,
  healthInfoLevel: 'minimal',
  logLevel: 'info',
  logFormat: 'json',
  healthRateLimit: 200,
  healthRateWindow: 300,
  healthRateExempt: [],
  reload: true,
  transport: 'http',
  http: true,
  lazyTools: false,
  allowedOrigins: [],
  allowedHosts: [],
  initialWait: 10_000,
  maxMessageBytes: 16 * 1024 * 1024,
  maxSessions: 1000,
  mcpWorkers: 1,
  workerNice: 10,
  workerStartConcurrency: DEFAULT_WORKER_START_CONCURRENCY,
  backendsPerWorker: 1,
  inputTimeout: 300_000,
  stateDir: undefined,
  stderrLimits: {},
};

type Env = Record<string, string | undefined>;

function run(flags: Record<string, unknown>, env: Env, expected: Partial<ServeOptions>): void {
  assert.equal(parseServeOptions(flags, env), { ...DEFAULTS, ...expected });
}

function usageError(flags: Record<string, unknown>, env: Env, message: string): void {
  try {
    parseServeOptions(flags, env);
    assert.unreachable('expected a UsageError');
  } catch (error) {
    assert.instance(error, UsageError);
    assert.is((error as UsageError).name, 'UsageError');
    assert.is((error as UsageError).message, message);
  }
}

test('serve-options :: defaults', () => run({}, {}, {}));

test('serve-options :: unrelated environment variables are ignored', () => run({}, { PORT: '80', HOST: '0.0.0.0', CONFIG: '/x' }, {}));

const valueCases: Array<[title: string, flags: Record<string, unknown>, env: Env, expected: Partial<ServeOptions>]> = [
  // from the environment
  ['AGENT_CONFIG', {}, { AGENT_CONFIG: '/etc/agent/mcp.json' }, { config: '/etc/agent/mcp.json' }],
  ['AGENT_CONFIG_DIR', {}, { AGENT_CONFIG_DIR: '/etc/agent' }, { configDir: '/etc/agent' }],
  ['AGENT_HOST', {}, { AGENT_HOST: '0.0.0.0' }, { host: '0.0.0.0' }],
  ['AGENT_PORT', {}, { AGENT_PORT: '8080' }, { port: 8080 }],
  ['AGENT_PORT 0 means any free port', {}, { AGENT_PORT: '0' }, { port: 0 }],
  ['AGENT_HEALTH_INFO_LEVEL', {}, { AGENT_HEALTH_INFO_LEVEL: 'full' }, { healthInfoLevel: 'full' }],
  ['AGENT_LOG_LEVEL', {}, { AGENT_LOG_LEVEL: 'debug' }, { logLevel: 'debug' }],
  ['AGENT_LOG_FORMAT', {}, { AGENT_LOG_FORMAT: 'pretty' }, { logFormat: 'pretty' }],
  ['AGENT_HEALTH_RATE_LIMIT 0 disables', {}, { AGENT_HEALTH_RATE_LIMIT: '0' }, { healthRateLimit: 0 }],
  ['AGENT_HEALTH_RATE_WINDOW', {}, { AGENT_HEALTH_RATE_WINDOW: '60' }, { healthRateWindow: 60 }],
  ['AGENT_HEALTH_RATE_EXEMPT list', {}, { AGENT_HEALTH_RATE_EXEMPT: '10.0.0.0/8, fd00::/8,,192.168.1.5' }, { healthRateExempt: ['10.0.0.0/8', 'fd00::/8', '192.168.1.5'] }],
  ['empty AGENT_* values count as unset', {}, { AGENT_PORT: '', AGENT_HEALTH_INFO_LEVEL: '', AGENT_CONFIG: '' }, {}],

  // flags
  ['--port as a number (as sade passes it)', { port: 9000 }, {}, { port: 9000 }],
  ['--port as a string', { port: '9001' }, {}, { port: 9001 }],
  ['--health-info-level basic', { 'health-info-level': 'basic' }, {}, { healthInfoLevel: 'basic' }],
  ['--health-rate-limit as a number', { 'health-rate-limit': 10 }, {}, { healthRateLimit: 10 }],
  ['--no-reload', { reload: false }, {}, { reload: false }],
  ['--reload', { reload: true }, {}, { reload: true }],

  // flag beats environment
  ['--config beats AGENT_CONFIG', { config: 'a.json' }, { AGENT_CONFIG: 'b.json' }, { config: 'a.json' }],
  ['--config-dir beats AGENT_CONFIG_DIR', { 'config-dir': '/a' }, { AGENT_CONFIG_DIR: '/b' }, { configDir: '/a' }],
  ['--host beats AGENT_HOST', { host: '::1' }, { AGENT_HOST: '0.0.0.0' }, { host: '::1' }],
  ['--port beats AGENT_PORT', { port: 4000 }, { AGENT_PORT: '5000' }, { port: 4000 }],
  ['--health-info-level beats AGENT_HEALTH_INFO_LEVEL', { 'health-info-level': 'basic' }, { AGENT_HEALTH_INFO_LEVEL: 'full' }, { healthInfoLevel: 'basic' }],
  ['--log-level beats AGENT_LOG_LEVEL', { 'log-level': 'warn' }, { AGENT_LOG_LEVEL: 'trace' }, { logLevel: 'warn' }],
  ['--log-format beats AGENT_LOG_FORMAT', { 'log-format': 'json' }, { AGENT_LOG_FORMAT: 'pretty' }, { logFormat: 'json' }],
  ['--health-rate-limit beats AGENT_HEALTH_RATE_LIMIT', { 'health-rate-limit': 5 }, { AGENT_HEALTH_RATE_LIMIT: '50' }, { healthRateLimit: 5 }],
  ['--health-rate-window beats AGENT_HEALTH_RATE_WINDOW', { 'health-rate-window': 30 }, { AGENT_HEALTH_RATE_WINDOW: '600' }, { healthRateWindow: 30 }],
  ['--health-rate-exempt beats AGENT_HEALTH_RATE_EXEMPT', { 'health-rate-exempt': '127.0.0.1' }, { AGENT_HEALTH_RATE_EXEMPT: '10.0.0.0/8' }, { healthRateExempt: ['127.0.0.1'] }],
  ['a valid flag hides an invalid variable', { 'health-info-level': 'full' }, { AGENT_HEALTH_INFO_LEVEL: 'verbose' }, { healthInfoLevel: 'full' }],
  ['an empty flag falls back to the variable', { config: '' }, { AGENT_CONFIG: '/env.json' }, { config: '/env.json' }],

  // service-wide stderr limits: only the ones given; a flag beats its variable, key by key
  ['--stderr-line-bytes', { 'stderr-line-bytes': 1024 }, {}, { stderrLimits: { lineBytes: 1024 } }],
  ['--stderr-lines-per-window as a string', { 'stderr-lines-per-window': '100' }, {}, { stderrLimits: { linesPerWindow: 100 } }],
  ['--stderr-window-seconds', { 'stderr-window-seconds': 60 }, {}, { stderrLimits: { windowSeconds: 60 } }],
  ['--stderr-summary-interval-seconds', { 'stderr-summary-interval-seconds': 1 }, {}, { stderrLimits: { summaryIntervalSeconds: 1 } }],
  ['--stderr-queue-high-water-bytes', { 'stderr-queue-high-water-bytes': 8_388_608 }, {}, { stderrLimits: { queueHighWaterBytes: 8_388_608 } }],
  ['AGENT_STDERR_* variables', {}, {
    AGENT_STDERR_LINE_BYTES: '65536', AGENT_STDERR_LINES_PER_WINDOW: '1000', AGENT_STDERR_WINDOW_SECONDS: '30',
    AGENT_STDERR_SUMMARY_INTERVAL_SECONDS: '10', AGENT_STDERR_QUEUE_HIGH_WATER_BYTES: '262144',
  }, { stderrLimits: { lineBytes: 65_536, linesPerWindow: 1000, windowSeconds: 30, summaryIntervalSeconds: 10, queueHighWaterBytes: 262_144 } }],
  ['--stderr-lines-per-window beats AGENT_STDERR_LINES_PER_WINDOW; the other variable still applies', { 'stderr-lines-per-window': 5 }, { AGENT_STDERR_LINES_PER_WINDOW: '500', AGENT_STDERR_WINDOW_SECONDS: '2' }, { stderrLimits: { linesPerWindow: 5, windowSeconds: 2 } }],
  ['the largest values are accepted', { 'stderr-line-bytes': 1_048_576, 'stderr-queue-high-water-bytes': 67_108_864 }, {}, { stderrLimits: { lineBytes: 1_048_576, queueHighWaterBytes: 67_108_864 } }],
  ['an empty AGENT_STDERR_* value counts as unset', {}, { AGENT_STDERR_LINE_BYTES: '' }, {}],
];

for (const [title, flags, env, expected] of valueCases) {
  test(`serve-options :: ${title}`, () => run(flags, env, expected));
}

const errorCases: Array<[title: string, flags: Record<string, unknown>, env: Env, message: string]> = [
  ['invalid --health-info-level', { 'health-info-level': 'verbose' }, {}, 'Expected --health-info-level to be one of full, basic, minimal, got "verbose"'],
  ['invalid AGENT_HEALTH_INFO_LEVEL', {}, { AGENT_HEALTH_INFO_LEVEL: 'FULL' }, 'Expected AGENT_HEALTH_INFO_LEVEL to be one of full, basic, minimal, got "FULL"'],
  ['--health-info-level without a value', { 'health-info-level': true }, {}, 'Expected --health-info-level to be given one of full, basic, minimal, got no value'],
  ['invalid --log-level', { 'log-level': 'verbose' }, {}, 'Expected --log-level to be one of fatal, error, warn, info, debug, trace, got "verbose"'],
  ['invalid AGENT_LOG_FORMAT', {}, { AGENT_LOG_FORMAT: 'text' }, 'Expected AGENT_LOG_FORMAT to be one of json, pretty, got "text"'],
  ['non-numeric --port', { port: 'http' }, {}, 'Expected --port to be a whole number from 0 to 65535, got "http"'],
  ['--port too large', { port: 70000 }, {}, 'Expected --port to be a whole number from 0 to 65535, got "70000"'],
  ['negative --port', { port: -1 }, {}, 'Expected --port to be a whole number from 0 to 65535, got "-1"'],
  ['fractional --port', { port: '80.5' }, {}, 'Expected --port to be a whole number from 0 to 65535, got "80.5"'],
  ['hex AGENT_PORT', {}, { AGENT_PORT: '0x50' }, 'Expected AGENT_PORT to be a whole number from 0 to 65535, got "0x50"'],
  ['AGENT_PORT with a unit', {}, { AGENT_PORT: '80/tcp' }, 'Expected AGENT_PORT to be a whole number from 0 to 65535, got "80/tcp"'],
  ['--health-rate-window of 0', { 'health-rate-window': 0 }, {}, 'Expected --health-rate-window to be a whole number from 1 to 86400, got "0"'],
  ['negative AGENT_HEALTH_RATE_LIMIT', {}, { AGENT_HEALTH_RATE_LIMIT: '-5' }, 'Expected AGENT_HEALTH_RATE_LIMIT to be a whole number from 0 to 1000000000, got "-5"'],
  ['bad exempt CIDR prefix', { 'health-rate-exempt': '10.0.0.0/33' }, {}, 'Expected --health-rate-exempt to be a comma-separated list of IP addresses or CIDRs: expected an IP address or CIDR such as 10.0.0.0/8 or fd00::/8, got "10.0.0.0/33"'],
  ['exempt host name instead of an address', { 'health-rate-exempt': '127.0.0.1,localhost' }, {}, 'Expected --health-rate-exempt to be a comma-separated list of IP addresses or CIDRs: expected an IP address or CIDR such as 10.0.0.0/8 or fd00::/8, got "localhost"'],
  ['bad exempt CIDR from AGENT_HEALTH_RATE_EXEMPT', {}, { AGENT_HEALTH_RATE_EXEMPT: 'fd00::/129' }, 'Expected AGENT_HEALTH_RATE_EXEMPT to be a comma-separated list of IP addresses or CIDRs: expected an IP address or CIDR such as 10.0.0.0/8 or fd00::/8, got "fd00::/129"'],
  ['--config given twice', { config: ['a.json', 'b.json'] }, {}, 'Expected --config to be given once with a value, got ["a.json","b.json"]'],
  ['--config-dir without a value', { 'config-dir': true }, {}, 'Expected --config-dir to be given a value, got no value'],
  ['--stderr-line-bytes of 0', { 'stderr-line-bytes': 0 }, {}, 'Expected --stderr-line-bytes to be a whole number from 1 to 1048576, got "0"'],
  ['--stderr-line-bytes with a unit', { 'stderr-line-bytes': '8k' }, {}, 'Expected --stderr-line-bytes to be a whole number from 1 to 1048576, got "8k"'],
  ['--stderr-lines-per-window above a million', { 'stderr-lines-per-window': 1_000_001 }, {}, 'Expected --stderr-lines-per-window to be a whole number from 1 to 1000000, got "1000001"'],
  ['negative AGENT_STDERR_WINDOW_SECONDS', {}, { AGENT_STDERR_WINDOW_SECONDS: '-10' }, 'Expected AGENT_STDERR_WINDOW_SECONDS to be a whole number from 1 to 3600, got "-10"'],
  ['fractional --stderr-summary-interval-seconds', { 'stderr-summary-interval-seconds': '0.5' }, {}, 'Expected --stderr-summary-interval-seconds to be a whole number from 1 to 3600, got "0.5"'],
  ['AGENT_STDERR_QUEUE_HIGH_WATER_BYTES above 64 MiB', {}, { AGENT_STDERR_QUEUE_HIGH_WATER_BYTES: '67108865' }, 'Expected AGENT_STDERR_QUEUE_HIGH_WATER_BYTES to be a whole number from 1 to 67108864, got "67108865"'],
  ['--stderr-line-bytes without a value', { 'stderr-line-bytes': true }, {}, 'Expected --stderr-line-bytes to be given a whole number from 1 to 1048576, got no value'],
];

for (const [title, flags, env, message] of errorCases) {
  test(`serve-options :: ${title} is a UsageError`, () => usageError(flags, env, message));
}

test('serve-options :: does not read process.env by itself', () => {
  const key = 'AGENT_PORT';
  const before = process.env[key];
  process.env[key] = '1234';
  try {
    assert.is(parseServeOptions({}, {}).port, 3050);
  } finally {
    if (before === undefined) delete process.env[key];
    else process.env[key] = before;
  }
});

test('serve-options :: --transport stdio and AGENT_TRANSPORT', () => {
  run({ transport: 'stdio' }, {}, { transport: 'stdio' });
  run({}, { AGENT_TRANSPORT: 'stdio' }, { transport: 'stdio' });
  run({ transport: 'stdio', http: false }, {}, { transport: 'stdio', http: false });
});

test('serve-options :: a bad --transport is a usage error', () => {
  usageError({ transport: 'tcp' }, {}, 'Expected --transport to be one of http, stdio, got "tcp"');
});

test('serve-options :: --no-http needs --transport stdio', () => {
  usageError({ http: false }, {}, 'Expected --no-http only with --transport stdio: otherwise nothing would be served');
});

test('serve-options :: --allowed-origins and --allowed-hosts, flags beat AGENT_ALLOWED_*', () => {
  run({ 'allowed-origins': 'http://localhost:6274, https://a.example' }, {}, { allowedOrigins: ['http://localhost:6274', 'https://a.example'] });
  run({}, { AGENT_ALLOWED_ORIGINS: '*' }, { allowedOrigins: ['*'] });
  run({ 'allowed-hosts': 'gw.internal,[::1]:8080' }, { AGENT_ALLOWED_HOSTS: 'x' }, { allowedHosts: ['gw.internal', '[::1]:8080'] });
});

test('serve-options :: a bad origin or host is a usage error naming it', () => {
  usageError({ 'allowed-origins': 'http://localhost:6274/app' }, {}, 'Expected --allowed-origins to be a comma-separated list of origins such as http://localhost:6274 (scheme, host and port only) or *, got "http://localhost:6274/app"');
  usageError({}, { AGENT_ALLOWED_ORIGINS: 'localhost:6274' }, 'Expected AGENT_ALLOWED_ORIGINS to be a comma-separated list of origins such as http://localhost:6274 (scheme, host and port only) or *, got "localhost:6274"');
  usageError({ 'allowed-hosts': 'a b' }, {}, 'Expected --allowed-hosts to be a comma-separated list of host names or host:port entries or *, got "a b"');
});

test('serve-options :: --initial-wait and AGENT_INITIAL_WAIT', () => {
  run({ 'initial-wait': 0 }, {}, { initialWait: 0 });
  run({}, { AGENT_INITIAL_WAIT: '2500' }, { initialWait: 2500 });
  usageError({ 'initial-wait': '1s' }, {}, 'Expected --initial-wait to be a whole number from 0 to 600000, got "1s"');
});

test('serve-options :: limits, hubs, priority and the state directory, flags beat AGENT_*', () => {
  run({ 'max-message-bytes': 1048576, 'max-sessions': 50, 'mcp-workers': 2, 'worker-nice': 0, 'state-dir': '/var/lib/agent' }, { AGENT_MCP_WORKERS: '4' }, {
    maxMessageBytes: 1048576,
    maxSessions: 50,
    mcpWorkers: 2,
    workerNice: 0,
    stateDir: '/var/lib/agent',
  });
  run({}, { AGENT_MAX_MESSAGE_BYTES: '2048', AGENT_MAX_SESSIONS: '7', AGENT_MCP_WORKERS: '3', AGENT_WORKER_NICE: '19', AGENT_STATE_DIR: '/s' }, { maxMessageBytes: 2048, maxSessions: 7, mcpWorkers: 3, workerNice: 19, stateDir: '/s' });
  usageError({ 'worker-nice': 20 }, {}, 'Expected --worker-nice to be a whole number from 0 to 19, got "20"');
  usageError({ 'mcp-workers': 0 }, {}, 'Expected --mcp-workers to be a whole number from 1 to 64, got "0"');
  run({ 'worker-start-concurrency': 0 }, { AGENT_WORKER_START_CONCURRENCY: '4' }, { workerStartConcurrency: 0 });
  run({}, { AGENT_WORKER_START_CONCURRENCY: '8' }, { workerStartConcurrency: 8 });
  run({ 'backends-per-worker': 4 }, { AGENT_BACKENDS_PER_WORKER: '2' }, { backendsPerWorker: 4 });
  usageError({ 'backends-per-worker': 0 }, {}, 'Expected --backends-per-worker to be a whole number from 1 to 64, got "0"');
  usageError({}, { AGENT_WORKER_START_CONCURRENCY: 'all' }, 'Expected AGENT_WORKER_START_CONCURRENCY to be a whole number from 0 to 1024, got "all"');
  usageError({}, { AGENT_MAX_MESSAGE_BYTES: '10' }, 'Expected AGENT_MAX_MESSAGE_BYTES to be a whole number from 1024 to 1073741824, got "10"');
});

test('serve-options :: serveArgv joins a negative value to its option and lists the valued options as strings', () => {
  assert.equal(serveArgv(['serve', '--worker-nice', '-1', '--port', '', '--no-reload', '--lazy-tools', '--mcp-workers=2', '--health-rate-limit', '-5', '--host', '::1']), {
    argv: ['serve', '--worker-nice=-1', '--port', '', '--no-reload', '--lazy-tools', '--mcp-workers=2', '--health-rate-limit=-5', '--host', '::1'],
    string: ['worker-nice', 'port', 'mcp-workers', 'health-rate-limit', 'host'],
  });
  // A value already joined, and a switch followed by something that looks negative, are left alone.
  assert.equal(serveArgv(['serve', '--port=-1', '--lazy-tools', '-1']).argv, ['serve', '--port=-1', '--lazy-tools', '-1']);
  // An option without a value is not a string option: mri makes it `true`, which the checks refuse.
  assert.equal(serveArgv(['serve', '--port', '--config-dir', 'd', '--config']).string, ['config-dir']);
  assert.equal(serveArgv(['serve', '--log-level', '--port=', '--host', '']).string, ['port', 'host']);
});

test.run();
