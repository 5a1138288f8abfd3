import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UNLOADED_CONFIGURATION, newBackendState, type BackendState, type ConfigurationSummary } from '../../../lib/shared/backend-state.ts';
import { StateTable } from '../../../lib/main/state-table.ts';
import type { HealthLevel } from '../../../lib/main/health/levels.ts';
import { createHealthRateLimiter, type RateLimitOptions } from '../../../lib/main/health/rate-limit.ts';
import { buildHealthReport, buildMcpLoadingReport, buildMcpServerReport, type ProcessFacts } from '../../../lib/main/health/report.ts';
import type { HealthRouteDeps } from '../../../lib/main/health/routes.ts';
import { sanitize } from '../../../lib/shared/sanitize.ts';
import { createApp } from '../../../lib/main/app.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures and a real HTTP server per scenario
// ---------------------------------------------------------------------------------------------

const NOW = Date.parse('2026-03-01T12:34:56.789Z');
const NOW_ISO = '2026-03-01T12:34:56.789Z';
const GENERIC_FAILURE = 'The health report could not be built';

const FACTS: ProcessFacts = {
  uptimeSeconds: 12345.678,
  heapUsedBytes: 50 * 1024 * 1024,
  heapTotalBytes: 100 * 1024 * 1024,
  pid: 4242,
  nodeVersion: 'v20.99.0',
  platform: 'linux',
  arch: 'x64',
  version: '9.8.7',
};

function backend(init: Partial<BackendState> & { name: string }): BackendState {
  // Tests state what health shows: the stored error is already the public (sanitized) form.
  return { ...newBackendState(init.name, init.tags ?? [], init.supervision ?? null), lastErrorPublic: init.lastError ?? null, ...init };
}
const up = (name: string) => backend({ name, phase: 'connected', firstConnect: false, lastConnected: NOW - 5_000 });
const down = (name: string) => backend({ name, phase: 'failed', firstConnect: false, lastError: 'spawn failed' });
const supervised = (name: string, state: 'connected' | 'restarting' | 'crashLoop' | 'stopped' | 'starting', pid: number | null = null) =>
  backend({ name, phase: state === 'connected' ? 'connected' : 'exited', pid, supervision: { state, attempt: 1, limit: 5, nextRetryAt: null } });

function configuration(enabled: number, disabled = 0): ConfigurationSummary {
  return { loaded: true, serverCount: enabled + disabled, enabledCount: enabled, disabledCount: disabled, authEnabled: false, transport: 'http' };
}

function table(backends: BackendState[], config: ConfigurationSummary = configuration(backends.length)): StateTable {
  const t = new StateTable();
  for (const b of backends) t.backends.set(b.name, b);
  t.configuration = config;
  return t;
}

type Scenario = {
  table?: StateTable;
  level?: HealthLevel;
  rate?: Partial<RateLimitOptions>;
  facts?: () => ProcessFacts;
  buildReport?: HealthRouteDeps['buildReport'];
};

const servers: http.Server[] = [];

// Stands in for the hub: every route that is not a health route is forwarded there.
function forwarded(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  res.writeHead(404, { 'Content-Type': 'application/json', 'X-Forwarded-To': 'hub' });
  res.end(JSON.stringify({ error: 'not_found', message: 'No such route' }));
}

async function start(s: Scenario = {}): Promise<string> {
  const deps: HealthRouteDeps = {
    table: s.table ?? table([up('a'), up('b')]),
    level: s.level ?? 'basic',
    limiter: createHealthRateLimiter({ limit: 100, windowSeconds: 300, exempt: [], ...s.rate }),
    now: () => NOW,
    facts: s.facts ?? (() => FACTS),
    ...(s.buildReport ? { buildReport: s.buildReport } : {}),
  };
  const app = createApp(deps, () => null, forwarded);
  // polka's handler must be called without `next`, or its own route loop is replaced.
  const server = http.createServer(app.handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Reply = { status: number; headers: Headers; body: Record<string, unknown> };

async function get(base: string, path: string, method = 'GET'): Promise<Reply> {
  // The signal only guards against a hanging request; it is not a timing assertion.
  const res = await fetch(base + path, { method, signal: AbortSignal.timeout(5_000) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const keys = (value: unknown): string[] => Object.keys(value as Record<string, unknown>).sort();

function assertJsonNoCache(r: Reply): void {
  assert.is(r.headers.get('content-type'), 'application/json');
  assert.is(r.headers.get('cache-control'), 'no-cache, no-store, must-revalidate');
}

function assertRateHeaders(r: Reply, expected: { policy: string; limit: string; remaining: string }): void {
  assert.is(r.headers.get('ratelimit-policy'), expected.policy);
  assert.is(r.headers.get('ratelimit-limit'), expected.limit);
  assert.is(r.headers.get('ratelimit-remaining'), expected.remaining);
  assert.match(r.headers.get('ratelimit-reset') ?? '', /^\d+$/);
}

test.after(async () => {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// GET /health
// ---------------------------------------------------------------------------------------------

test('routes :: GET /health healthy -> 200 with every header and the report body', async () => {
  const t = table([up('a'), up('b')]);
  const base = await start({ table: t, level: 'basic' });
  const r = await get(base, '/health');
  assert.is(r.status, 200);
  assertJsonNoCache(r);
  assert.is(r.headers.get('x-health-status'), 'healthy');
  assert.is(r.headers.get('x-service-version'), '9.8.7');
  assert.is(r.headers.get('x-uptime-seconds'), '12345');
  assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
  assert.equal(r.body, buildHealthReport(t, 'basic', NOW, FACTS).body);
  assert.is(r.body.status, 'healthy');
  assert.is(r.body.timestamp, NOW_ISO);
  assert.is(r.body.version, '9.8.7');
});

type HealthCase = [name: string, t: () => StateTable, http: number, status: string];

const healthCases: HealthCase[] = [
  ['all healthy', () => table([up('a'), up('b')]), 200, 'healthy'],
  ['no servers configured', () => table([]), 200, 'degraded'],
  ['2/3 healthy', () => table([up('a'), up('b'), down('c')]), 200, 'degraded'],
  ['exactly half healthy', () => table([up('a'), down('b')]), 503, 'unhealthy'],
  ['none healthy', () => table([down('a')]), 503, 'unhealthy'],
  ['configuration not loaded', () => table([], UNLOADED_CONFIGURATION), 503, 'unhealthy'],
];

async function runHealth(input: { table: StateTable }, expected: { http: number; status: string }): Promise<void> {
  const r = await get(await start({ table: input.table }), '/health');
  assert.is(r.status, expected.http);
  assert.is(r.body.status, expected.status);
  assert.is(r.headers.get('x-health-status'), expected.status);
  assert.is(r.headers.get('x-service-version'), '9.8.7');
  assertJsonNoCache(r);
}

for (const [name, t, httpStatus, status] of healthCases) {
  test(`routes :: GET /health ${name} -> ${httpStatus} ${status}`, () => runHealth({ table: t() }, { http: httpStatus, status }));
}

test('routes :: GET /health not loaded body carries loaded false, zero counts, authEnabled false', async () => {
  const r = await get(await start({ table: table([], UNLOADED_CONFIGURATION) }), '/health');
  assert.is(r.status, 503);
  assert.equal(r.body.configuration, { loaded: false, serverCount: 0, enabledCount: 0, disabledCount: 0, authEnabled: false, transport: 'http' });
});

const uptimeCases: Array<[uptime: number, header: string]> = [
  [12345.678, '12345'],
  [0.4, '0'],
  [59.999, '59'],
  [3600, '3600'],
];

for (const [uptime, header] of uptimeCases) {
  test(`routes :: X-Uptime-Seconds is an integer (${uptime} -> ${header})`, async () => {
    const r = await get(await start({ facts: () => ({ ...FACTS, uptimeSeconds: uptime }) }), '/health');
    assert.is(r.headers.get('x-uptime-seconds'), header);
    assert.match(r.headers.get('x-uptime-seconds') ?? '', /^\d+$/);
  });
}

const levelCases: Array<[HealthLevel, system: string[], servers: string[]]> = [
  ['minimal', ['uptime'], ['healthy', 'total', 'unhealthy']],
  ['basic', ['memory', 'uptime'], ['details', 'healthy', 'total', 'unhealthy']],
  ['full', ['memory', 'process', 'uptime'], ['details', 'healthy', 'total', 'unhealthy']],
];

for (const [level, system, serverKeys] of levelCases) {
  test(`routes :: GET /health body follows the ${level} level`, async () => {
    const r = await get(await start({ level }), '/health');
    assert.equal(keys(r.body), ['configuration', 'servers', 'status', 'system', 'timestamp', 'version']);
    assert.equal(keys(r.body.system), system);
    assert.equal(keys(r.body.servers), serverKeys);
  });
}

// ---------------------------------------------------------------------------------------------
// GET /health/live and GET /health/ready
// ---------------------------------------------------------------------------------------------

test('routes :: GET /health/live -> 200 alive', async () => {
  // Liveness does not depend on configuration or backends.
  const r = await get(await start({ table: table([down('a')], UNLOADED_CONFIGURATION) }), '/health/live');
  assert.is(r.status, 200);
  assert.equal(r.body, { status: 'alive', timestamp: NOW_ISO });
  assertJsonNoCache(r);
  assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
});

type ReadyCase = [name: string, t: () => StateTable, http: number, status: string];

const readyCases: ReadyCase[] = [
  ['loaded, no backends', () => table([]), 200, 'ready'],
  ['loaded, supervised connected, unsupervised failed', () => table([supervised('a', 'connected', 11), down('b')]), 200, 'ready'],
  ['loaded, supervised starting and stopped', () => table([supervised('a', 'starting'), supervised('b', 'stopped')]), 200, 'ready'],
  ['loaded, one restarting', () => table([supervised('a', 'connected', 11), supervised('b', 'restarting')]), 503, 'not_ready'],
  ['loaded, one crash loop', () => table([supervised('a', 'crashLoop')]), 503, 'not_ready'],
  ['configuration not loaded', () => table([], UNLOADED_CONFIGURATION), 503, 'not_ready'],
];

for (const [name, t, httpStatus, status] of readyCases) {
  test(`routes :: GET /health/ready ${name} -> ${httpStatus} ${status}`, async () => {
    const r = await get(await start({ table: t() }), '/health/ready');
    assert.is(r.status, httpStatus);
    assert.is(r.body.status, status);
    assert.is(r.body.timestamp, NOW_ISO);
    assert.equal(keys(r.body), ['backendSupervision', 'configuration', 'mcpWorkers', 'status', 'timestamp']);
    assertJsonNoCache(r);
    assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
  });
}

const readyLevelCases: Array<[HealthLevel, supervision: Record<string, unknown>]> = [
  ['minimal', { total: 2, connected: 1, restarting: 1, crashLoop: 0, stopped: 0 }],
  [
    'basic',
    {
      total: 2,
      connected: 1,
      restarting: 1,
      crashLoop: 0,
      stopped: 0,
      backends: [
        { name: 'a', state: 'connected', attempt: 1, limit: 5, nextRetryAt: null, lastExit: null, lastError: null },
        { name: 'b', state: 'restarting', attempt: 1, limit: 5, nextRetryAt: null, lastExit: null, lastError: null },
      ],
    },
  ],
  [
    'full',
    {
      total: 2,
      connected: 1,
      restarting: 1,
      crashLoop: 0,
      stopped: 0,
      backends: [
        { name: 'a', state: 'connected', attempt: 1, limit: 5, nextRetryAt: null, lastExit: null, lastError: null, pid: 11 },
        { name: 'b', state: 'restarting', attempt: 1, limit: 5, nextRetryAt: null, lastExit: null, lastError: null, pid: null },
      ],
    },
  ],
];

for (const [level, supervision] of readyLevelCases) {
  test(`routes :: GET /health/ready backendSupervision at ${level}`, async () => {
    const r = await get(await start({ level, table: table([supervised('a', 'connected', 11), supervised('b', 'restarting')]) }), '/health/ready');
    assert.is(r.status, 503);
    assert.equal(r.body.backendSupervision, supervision);
    assert.equal(r.body.configuration, configuration(2));
  });
}

// ---------------------------------------------------------------------------------------------
// Rate limiting (decisions §5)
// ---------------------------------------------------------------------------------------------

function assertRateLimited(r: Reply): void {
  assert.is(r.status, 429);
  assert.equal(r.body, { status: 'rate_limited', error: 'Too many health check requests', timestamp: NOW_ISO });
  assertJsonNoCache(r);
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${r.headers.get('retry-after')}`);
  assertRateHeaders(r, { policy: '3;w=60', limit: '3', remaining: '0' });
}

test('routes :: one quota shared by /health, /health/ready and /health/live; then 429', async () => {
  const base = await start({ rate: { limit: 3, windowSeconds: 60 } });
  const first = [await get(base, '/health'), await get(base, '/health/ready'), await get(base, '/health/live')];
  assert.equal(
    first.map((r) => r.status),
    [200, 200, 200],
  );
  assert.equal(
    first.map((r) => r.headers.get('ratelimit-remaining')),
    ['2', '1', '0'],
  );
  for (const r of first) assert.is(r.headers.get('ratelimit-policy'), '3;w=60');
  // Over quota on every route, including liveness.
  for (const path of ['/health/live', '/health', '/health/ready']) assertRateLimited(await get(base, path));
});

test('routes :: /health/live alone can exhaust the quota of /health', async () => {
  const base = await start({ rate: { limit: 3, windowSeconds: 60 } });
  for (let i = 0; i < 3; i++) assert.is((await get(base, '/health/live')).status, 200);
  const r = await get(base, '/health');
  assertRateLimited(r);
  assert.is(r.headers.get('x-health-status'), null, 'a rate-limited reply carries no health verdict');
});

test('routes :: another method on a health route is a health answer: 405 with its headers, counted in the quota; a CORS preflight is not', async () => {
  const base = await start({ rate: { limit: 3, windowSeconds: 60 } });
  const cases: [string, string][] = [
    ['POST', '/health'],
    ['PUT', '/Health/Ready/'],
    ['DELETE', '/health/mcp/some%20server?x=1'],
  ];
  for (const [i, [method, path]] of cases.entries()) {
    const r = await get(base, path, method);
    assert.is(r.status, 405, `${method} ${path}`);
    assert.is(r.headers.get('allow'), 'GET, HEAD');
    assertJsonNoCache(r);
    assertRateHeaders(r, { policy: '3;w=60', limit: '3', remaining: String(2 - i) });
    assert.equal(r.body, { error: 'method_not_allowed', message: `Method ${method} is not allowed on ${path.split('?')[0]}; use GET or HEAD` });
    assert.is(r.headers.get('x-forwarded-to'), null, 'answered by the main thread');
  }
  const preflight = await fetch(`${base}/health`, { method: 'OPTIONS', headers: { origin: 'http://page.example', 'access-control-request-method': 'GET' } });
  assert.is(preflight.headers.get('x-forwarded-to'), 'hub', 'a preflight goes the CORS way');
  await preflight.arrayBuffer();
  // An OPTIONS that is no preflight (no method asked, or no Origin) is a health answer too (found by outside checks): over quota now.
  assertRateLimited(await get(base, '/health', 'OPTIONS'));
  const noOrigin = await fetch(`${base}/health`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET' } });
  assert.equal([noOrigin.status, noOrigin.headers.get('x-forwarded-to')], [429, null]);
  await noOrigin.arrayBuffer();
  assertRateLimited(await get(base, '/health', 'POST'));
  assertRateLimited(await get(base, '/health'));
  assert.is((await get(base, '/health/other', 'POST')).headers.get('x-forwarded-to'), 'hub', 'no health route: forwarded');
});

test('routes :: limit 0 disables the quota and its headers', async () => {
  const base = await start({ rate: { limit: 0 } });
  for (let i = 0; i < 10; i++) {
    const r = await get(base, i % 2 ? '/health/live' : '/health');
    assert.is(r.status, 200);
    assert.is(r.headers.get('ratelimit-limit'), null);
  }
});

test('routes :: an exempt client address is never limited', async () => {
  const base = await start({ rate: { limit: 1, windowSeconds: 60, exempt: ['127.0.0.0/8'] } });
  for (let i = 0; i < 5; i++) {
    assert.is((await get(base, '/health')).status, 200);
    const live = await get(base, '/health/live');
    assert.is(live.status, 200);
    assert.is(live.headers.get('ratelimit-policy'), '1;w=60', 'exempt clients are told the policy too');
    assert.is(live.headers.get('ratelimit-remaining'), '1');
  }
});

// ---------------------------------------------------------------------------------------------
// 500: the Error report
// ---------------------------------------------------------------------------------------------

const SECRET_ERROR = 'cannot read /var/lib/agent/state.json via https://admin:hunter2@10.1.2.3:8443/api password=hunter2';

const errorCases: Array<[HealthLevel, message: string]> = [
  ['minimal', GENERIC_FAILURE],
  ['basic', sanitize(SECRET_ERROR)],
  ['full', sanitize(SECRET_ERROR)],
];

for (const [level, message] of errorCases) {
  test(`routes :: GET /health 500 Error report at ${level}`, async () => {
    const base = await start({
      level,
      buildReport: () => {
        throw new Error(SECRET_ERROR);
      },
    });
    const r = await get(base, '/health');
    assert.is(r.status, 500);
    assert.equal(keys(r.body), ['error', 'message', 'status', 'timestamp']);
    assert.equal(r.body, { status: 'unhealthy', timestamp: NOW_ISO, error: 'health_check_failed', message });
    for (const leak of ['hunter2', '/var/lib', '10.1.2.3', 'admin']) assert.not.ok((r.body.message as string).includes(leak), `${leak} leaked`);
    assertJsonNoCache(r);
    assert.is(r.headers.get('x-health-status'), 'unhealthy');
    assert.is(r.headers.get('x-service-version'), '9.8.7');
    assert.is(r.headers.get('x-uptime-seconds'), '12345');
    assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
  });
}

test('routes :: GET /health 500 sanitized message is not empty for an empty error', async () => {
  const base = await start({
    level: 'full',
    buildReport: () => {
      throw new Error('');
    },
  });
  const r = await get(base, '/health');
  assert.is(r.status, 500);
  assert.is(r.body.message, GENERIC_FAILURE);
});

test('routes :: GET /health sanitized message of a non-Error throw', async () => {
  const base = await start({
    level: 'basic',
    buildReport: () => {
      throw 'state at /srv/agent/data/x.json unreadable';
    },
  });
  const r = await get(base, '/health');
  assert.is(r.status, 500);
  assert.is(r.body.message, 'state at [PATH] unreadable');
});

test('routes :: GET /health 500 (not a hang) when the process facts throw', async () => {
  const base = await start({
    level: 'basic',
    facts: () => {
      throw new Error('heap statistics unavailable');
    },
  });
  const r = await get(base, '/health');
  assert.is(r.status, 500);
  assert.equal(r.body, { status: 'unhealthy', timestamp: NOW_ISO, error: 'health_check_failed', message: 'heap statistics unavailable' });
  assert.is(r.headers.get('x-health-status'), 'unhealthy');
  assertJsonNoCache(r);
});

test('routes :: GET /health/ready 500 (not a hang) when the state table is broken', async () => {
  const broken = new StateTable();
  broken.configuration = configuration(1);
  Object.defineProperty(broken, 'backends', {
    get() {
      throw new Error('table corrupted at /var/lib/agent');
    },
  });
  const base = await start({ table: broken, level: 'minimal' });
  const ready = await get(base, '/health/ready');
  assert.is(ready.status, 500);
  assert.equal(ready.body, { status: 'unhealthy', timestamp: NOW_ISO, error: 'health_check_failed', message: GENERIC_FAILURE });
  const health = await get(base, '/health');
  assert.is(health.status, 500);
  assert.is(health.body.message, GENERIC_FAILURE);
  // The service itself is still alive.
  assert.is((await get(base, '/health/live')).status, 200);
});

// ---------------------------------------------------------------------------------------------
// Unknown routes
// ---------------------------------------------------------------------------------------------

const notFoundCases: Array<[method: string, path: string]> = [
  ['GET', '/'],
  ['GET', '/nope'],
  ['GET', '/healthz'],
  ['GET', '/health/nope'],
  ['GET', '/health/live/extra'],
  ['GET', '/health/mcp/a/extra'],
  ['POST', '/health/live/extra'],
];

for (const [method, path] of notFoundCases) {
  test(`routes :: ${method} ${path} -> 404`, async () => {
    const r = await get(await start(), path, method);
    assert.is(r.status, 404);
    assert.is(r.headers.get('content-type'), 'application/json');
    assert.is(r.body.error, 'not_found');
    assert.is(r.headers.get('x-forwarded-to'), 'hub', 'not a health route: forwarded');
  });
}

test('routes :: query strings do not change the route', async () => {
  const r = await get(await start(), '/health/live?probe=1');
  assert.is(r.status, 200);
  assert.is(r.body.status, 'alive');
});

// The exact probe paths have a fast path before polka; the spellings it does not take must
// still reach the same answers through polka.
test('routes :: /health, /health/, /health?x=1 and HEAD /health give the same answer', async () => {
  const base = await start();
  const answers = [await get(base, '/health'), await get(base, '/health/'), await get(base, '/health?x=1'), await get(base, '/health/ready/')];
  for (const r of answers.slice(0, 3)) {
    assert.is(r.status, 200);
    assert.is(r.body.status, 'healthy');
    assert.is(r.headers.get('x-health-status'), 'healthy');
    assert.is(r.headers.get('ratelimit-limit'), '100');
  }
  assert.is(answers[3]!.body.status, 'ready');
  const head = await fetch(`${base}/health`, { method: 'HEAD', signal: AbortSignal.timeout(5_000) });
  assert.is(head.status, 200);
  assert.is(head.headers.get('x-health-status'), 'healthy');
  assert.is(Number(head.headers.get('content-length')), Buffer.byteLength(JSON.stringify(answers[0]!.body)));
});

// ---------------------------------------------------------------------------------------------
// GET /health/mcp and GET /health/mcp/:serverName (decisions §3)
// ---------------------------------------------------------------------------------------------

const firstConnect = (name: string) => backend({ name, phase: 'connecting', pid: 21 });
const oauth = (name: string) => backend({ name, phase: 'awaiting_oauth', firstConnect: false, lastError: 'HTTP 401' });

function withDisabled(t: StateTable, ...names: string[]): StateTable {
  for (const name of names) t.disabled.add(name);
  t.configuration = configuration(t.backends.size, names.length);
  return t;
}

type McpCase = [name: string, t: () => StateTable, http: number, status: string];

const mcpCases: McpCase[] = [
  ['all connected', () => table([up('a'), supervised('b', 'connected', 11)]), 200, 'ready'],
  ['no servers', () => table([]), 200, 'ready'],
  ['one first connect in progress', () => table([up('a'), firstConnect('b')]), 202, 'loading'],
  ['one failed', () => table([up('a'), down('b')]), 200, 'degraded'],
  ['one awaiting OAuth', () => table([up('a'), oauth('b')]), 200, 'degraded'],
  ['one restarting', () => table([up('a'), supervised('b', 'restarting')]), 200, 'degraded'],
  ['configuration not loaded', () => table([], UNLOADED_CONFIGURATION), 202, 'loading'],
];

for (const [name, t, httpStatus, status] of mcpCases) {
  test(`routes :: GET /health/mcp ${name} -> ${httpStatus} ${status}`, async () => {
    const tbl = t();
    const r = await get(await start({ table: tbl, level: 'basic' }), '/health/mcp');
    assert.is(r.status, httpStatus);
    assert.is(r.body.status, status);
    assert.is(r.body.timestamp, NOW_ISO);
    assert.equal(r.body, buildMcpLoadingReport(tbl, 'basic', NOW).body);
    assertJsonNoCache(r);
    assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
    assert.is(r.headers.get('x-health-status'), null, 'only /health carries the X-* headers');
  });
}

const mcpLevelCases: Array<[HealthLevel, top: string[]]> = [
  ['minimal', ['backendSupervision', 'loading', 'mcpWorkers', 'status', 'timestamp']],
  ['basic', ['backendSupervision', 'loading', 'mcpWorkers', 'servers', 'status', 'timestamp']],
  ['full', ['backendSupervision', 'loading', 'mcpWorkers', 'servers', 'status', 'timestamp']],
];

for (const [level, top] of mcpLevelCases) {
  test(`routes :: GET /health/mcp body follows the ${level} level`, async () => {
    const tbl = withDisabled(table([supervised('a', 'connected', 11), supervised('b', 'crashLoop'), down('c')]), 'off');
    const r = await get(await start({ level, table: tbl }), '/health/mcp');
    assert.is(r.status, 200);
    assert.equal(keys(r.body), top);
    assert.equal(r.body.loading, { complete: 3, total: 3, pending: 0, connecting: 0, ready: 1, failed: 2, awaitingOAuth: 0 });
    assert.equal(r.body, buildMcpLoadingReport(tbl, level, NOW).body);
    assert.is(JSON.stringify(r.body).includes('"pid"'), level === 'full');
  });
}

type McpServerCase = [path: string, t: () => StateTable, http: number, state: string];

const mcpServerTable = () =>
  withDisabled(
    table([
      up('up'),
      firstConnect('loading'),
      down('failed'),
      oauth('oauth'),
      supervised('sup', 'connected', 11),
      supervised('restarting', 'restarting'),
      supervised('crash', 'crashLoop'),
      supervised('stopped', 'stopped'),
      backend({ name: 'unhealthy', phase: 'connected', firstConnect: false, missedPings: 2 }),
      backend({ name: 'with space', phase: 'connected', firstConnect: false }),
    ]),
    'off',
  );

const mcpServerCases: McpServerCase[] = [
  ['/health/mcp/up', mcpServerTable, 200, 'connected'],
  ['/health/mcp/sup', mcpServerTable, 200, 'connected'],
  ['/health/mcp/loading', mcpServerTable, 202, 'connecting'],
  ['/health/mcp/unhealthy', mcpServerTable, 503, 'connected'],
  ['/health/mcp/restarting', mcpServerTable, 503, 'restarting'],
  ['/health/mcp/crash', mcpServerTable, 503, 'crashLoop'],
  ['/health/mcp/stopped', mcpServerTable, 503, 'stopped'],
  ['/health/mcp/failed', mcpServerTable, 503, 'error'],
  ['/health/mcp/oauth', mcpServerTable, 503, 'awaiting_oauth'],
  ['/health/mcp/off', mcpServerTable, 503, 'disabled'],
  ['/health/mcp/with%20space', mcpServerTable, 200, 'connected'],
  ['/health/mcp/up?probe=1', mcpServerTable, 200, 'connected'],
  ['/health/mcp/up/', mcpServerTable, 200, 'connected'],
];

for (const [path, t, httpStatus, state] of mcpServerCases) {
  test(`routes :: GET ${path} -> ${httpStatus} ${state}`, async () => {
    for (const level of ['minimal', 'basic', 'full'] as const) {
      const r = await get(await start({ level, table: t() }), path);
      assert.is(r.status, httpStatus, level);
      assert.is(r.body.state, state, level);
      assert.is(r.body.timestamp, NOW_ISO);
      assertJsonNoCache(r);
      assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });
    }
  });
}

test('routes :: GET /health/mcp/:serverName body follows the level', async () => {
  const tbl = mcpServerTable();
  const expectedKeys: Record<HealthLevel, string[]> = {
    minimal: ['name', 'state', 'timestamp'],
    basic: ['attempt', 'lastError', 'lastExit', 'limit', 'name', 'nextRetryAt', 'state', 'status', 'timestamp'],
    full: ['attempt', 'lastError', 'lastExit', 'limit', 'name', 'nextRetryAt', 'pid', 'state', 'status', 'timestamp'],
  };
  for (const level of ['minimal', 'basic', 'full'] as const) {
    const r = await get(await start({ level, table: tbl }), '/health/mcp/restarting');
    assert.is(r.status, 503);
    assert.equal(keys(r.body), expectedKeys[level]);
    assert.equal(r.body, buildMcpServerReport(tbl, 'restarting', level, NOW).body);
  }
});

test('routes :: GET /health/mcp/:serverName unknown name -> 404 with the name, capped and decoded', async () => {
  const base = await start({ table: mcpServerTable() });
  const r = await get(base, '/health/mcp/nope');
  assert.is(r.status, 404);
  assert.equal(r.body, { error: 'not_found', message: "Server 'nope' not found", timestamp: NOW_ISO });
  assertJsonNoCache(r);
  assertRateHeaders(r, { policy: '100;w=300', limit: '100', remaining: '99' });

  const long = await get(base, `/health/mcp/${'n'.repeat(5_000)}`);
  assert.is(long.status, 404);
  assert.is(long.body.message, `Server '${'n'.repeat(100)}' not found`);

  const odd = await get(base, `/health/mcp/${encodeURIComponent(`a'"<b>\u00e9`)}`);
  assert.is(odd.status, 404);
  assert.is(odd.body.message, `Server 'a'"<b>\u00e9' not found`);
});

test('routes :: /health/mcp routes share the one health quota; then 429', async () => {
  const base = await start({ table: mcpServerTable(), rate: { limit: 3, windowSeconds: 60 } });
  const first = [await get(base, '/health/mcp'), await get(base, '/health/mcp/up'), await get(base, '/health/live')];
  assert.equal(
    first.map((r) => r.status),
    [202, 200, 200],
  );
  assert.equal(
    first.map((r) => r.headers.get('ratelimit-remaining')),
    ['2', '1', '0'],
  );
  // Over quota, even for an unknown name: the route's own work is skipped.
  for (const path of ['/health/mcp', '/health/mcp/up', '/health/mcp/nope', '/health']) assertRateLimited(await get(base, path));
});

test('routes :: an exempt client is never limited on /health/mcp routes', async () => {
  const base = await start({ rate: { limit: 1, windowSeconds: 60, exempt: ['127.0.0.0/8'] } });
  for (let i = 0; i < 3; i++) {
    assert.is((await get(base, '/health/mcp')).status, 200);
    assert.is((await get(base, '/health/mcp/a')).status, 200);
  }
});

test('routes :: /health/mcp routes answer 500 (not a hang) when the state table is broken', async () => {
  const broken = new StateTable();
  broken.configuration = configuration(1);
  Object.defineProperty(broken, 'backends', {
    get() {
      throw new Error('table corrupted at /var/lib/agent');
    },
  });
  const base = await start({ table: broken, level: 'basic' });
  for (const path of ['/health/mcp', '/health/mcp/a']) {
    const r = await get(base, path);
    assert.is(r.status, 500, path);
    assert.equal(r.body, { status: 'unhealthy', timestamp: NOW_ISO, error: 'health_check_failed', message: 'table corrupted at [PATH]' });
    assertJsonNoCache(r);
  }
});

test.run();
