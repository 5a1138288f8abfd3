import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  UNLOADED_CONFIGURATION,
  newBackendState,
  type BackendState,
  type ConfigurationSummary,
  type SupervisionFacts,
} from '../../../lib/shared/backend-state.ts';
import { StateTable } from '../../../lib/main/state-table.ts';
import type { HealthLevel } from '../../../lib/main/health/levels.ts';
import {
  MAX_ECHOED_NAME_LENGTH,
  buildMcpLoadingReport,
  buildMcpServerReport,
  firstConnectInProgress,
  mcpServerState,
  supervisionSummary,
  type McpLoadingCounts,
} from '../../../lib/main/health/report.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures: a fixed clock and hand-built state tables
// ---------------------------------------------------------------------------------------------

const NOW = Date.parse('2026-03-01T12:34:56.789Z');
const NOW_ISO = '2026-03-01T12:34:56.789Z';
const LEVELS: HealthLevel[] = ['minimal', 'basic', 'full'];

type BackendInit = Partial<Omit<BackendState, 'name'>> & { name: string };

function backend(init: BackendInit): BackendState {
  // Tests state what health shows: the stored error is already the public (sanitized) form.
  return { ...newBackendState(init.name, init.tags ?? [], init.supervision ?? null), lastErrorPublic: init.lastError ?? null, ...init };
}

const sup = (state: SupervisionFacts['state'], extra: Partial<SupervisionFacts> = {}): SupervisionFacts => ({
  state,
  attempt: 0,
  limit: 5,
  nextRetryAt: null,
  ...extra,
});

function configuration(enabled: number, disabled = 0): ConfigurationSummary {
  return { loaded: true, serverCount: enabled + disabled, enabledCount: enabled, disabledCount: disabled, authEnabled: false, transport: 'http' };
}

function table(backends: BackendState[], disabled: string[] = [], config: ConfigurationSummary = configuration(backends.length, disabled.length)): StateTable {
  const t = new StateTable();
  for (const b of backends) t.backends.set(b.name, b);
  for (const name of disabled) t.disabled.add(name);
  t.configuration = config;
  return t;
}

// One backend per situation; each name says what it is.
const B = {
  // unsupervised (remote, or stdio without restartOnExit)
  loadingWorker: () => backend({ name: 'loadingWorker', phase: 'starting' }),
  firstConnecting: () => backend({ name: 'firstConnecting', phase: 'connecting', pid: 301 }),
  up: (name = 'up') => backend({ name, phase: 'connected', firstConnect: false, lastConnected: NOW - 5_000, pid: 302 }),
  pingless: () => backend({ name: 'pingless', phase: 'connected', firstConnect: false, lastConnected: NOW - 5_000, missedPings: 2 }),
  recentCritical: () => backend({ name: 'recentCritical', phase: 'connected', firstConnect: false, lastConnected: NOW - 5_000, lastCriticalAt: NOW - 30_000 }),
  failed: () => backend({ name: 'failed', phase: 'failed', firstConnect: false, lastError: 'spawn failed: [PATH] not found', lastCriticalAt: NOW - 1_000 }),
  exited: () => backend({ name: 'exited', phase: 'exited', firstConnect: false, lastError: 'process exited with code 1' }),
  invalid: () => backend({ name: 'invalid', phase: 'invalid', firstConnect: false, lastError: 'invalid configuration: command: expected a string, found 42' }),
  oauth: () => backend({ name: 'oauth', phase: 'awaiting_oauth', firstConnect: false, lastError: 'HTTP 401 from [URL]' }),
  reconnecting: () => backend({ name: 'reconnecting', phase: 'connecting', firstConnect: false, lastConnected: NOW - 60_000, lastError: 'connection reset' }),
  stopping: () => backend({ name: 'stopping', phase: 'stopping', firstConnect: false }),
  stoppedPlain: () => backend({ name: 'stoppedPlain', phase: 'stopped', firstConnect: false }),
  // supervised (stdio with restartOnExit)
  supStarting: () => backend({ name: 'supStarting', phase: 'starting', supervision: sup('starting', { limit: null }) }),
  supConnecting: () => backend({ name: 'supConnecting', phase: 'connecting', pid: 401, supervision: sup('starting') }),
  supUp: () =>
    backend({
      name: 'supUp',
      phase: 'connected',
      firstConnect: false,
      lastConnected: NOW - 10_000,
      pid: 402,
      supervision: sup('connected', { attempt: 1 }),
      lastExit: { code: 1, signal: null, at: Date.parse('2026-03-01T12:30:00.000Z'), pid: 399 },
    }),
  supRestarting: () =>
    backend({
      name: 'supRestarting',
      phase: 'exited',
      firstConnect: false,
      lastError: 'process exited with code 1',
      supervision: sup('restarting', { attempt: 2, nextRetryAt: Date.parse('2026-03-01T12:35:00.250Z') }),
      lastExit: { code: 1, signal: null, at: Date.parse('2026-03-01T12:34:50.001Z'), pid: 403 },
    }),
  // First start failed, handled like an exit: the retry is a restart, not a first connect.
  supRetryingFirst: () => backend({ name: 'supRetryingFirst', phase: 'connecting', firstConnect: true, pid: 404, supervision: sup('restarting', { attempt: 1 }) }),
  supCrashLoop: () =>
    backend({
      name: 'supCrashLoop',
      phase: 'failed',
      firstConnect: false,
      lastError: 'spawn failed',
      supervision: sup('crashLoop', { attempt: 3, limit: 3 }),
      lastExit: { code: null, signal: 'SIGKILL', at: Date.parse('2026-03-01T12:20:00.000Z'), pid: 405 },
    }),
  supStopped: () => backend({ name: 'supStopped', phase: 'stopped', firstConnect: false, supervision: sup('stopped', { limit: null }) }),
  // A replacement waiting for the instance it replaces to stop: not started yet.
  queued: () => backend({ name: 'queued', phase: 'queued', firstConnect: true }),
};

const keys = (value: unknown): string[] => Object.keys(value as Record<string, unknown>).sort();
const obj = (value: unknown): Record<string, unknown> => value as Record<string, unknown>;
const arr = (value: unknown): Record<string, unknown>[] => value as Record<string, unknown>[];

// ---------------------------------------------------------------------------------------------
// Per-server state
// ---------------------------------------------------------------------------------------------

const stateCases: Array<[name: keyof typeof B, state: string, firstConnect: boolean]> = [
  ['loadingWorker', 'connecting', true],
  ['firstConnecting', 'connecting', true],
  ['up', 'connected', false],
  ['pingless', 'connected', false],
  ['recentCritical', 'connected', false],
  ['failed', 'error', false],
  ['exited', 'error', false],
  ['invalid', 'error', false],
  ['oauth', 'awaiting_oauth', false],
  ['reconnecting', 'disconnected', false],
  ['stopping', 'disconnected', false],
  ['stoppedPlain', 'disconnected', false],
  ['supStarting', 'connecting', true],
  ['supConnecting', 'connecting', true],
  ['supUp', 'connected', false],
  ['supRestarting', 'restarting', false],
  ['supRetryingFirst', 'restarting', false],
  ['supCrashLoop', 'crashLoop', false],
  ['supStopped', 'stopped', false],
];

for (const [name, state, first] of stateCases) {
  test(`mcpServerState :: ${name} -> ${state}${first ? ' (first connect)' : ''}`, () => {
    const b = B[name]();
    assert.is(mcpServerState(b), state);
    assert.is(firstConnectInProgress(b), first);
  });
}

// ---------------------------------------------------------------------------------------------
// buildMcpLoadingReport: status, HTTP code and counts (identical at every level)
// ---------------------------------------------------------------------------------------------

const zero: McpLoadingCounts = { complete: 0, total: 0, pending: 0, connecting: 0, ready: 0, failed: 0, awaitingOAuth: 0 };
const counts = (c: Partial<McpLoadingCounts>): McpLoadingCounts => ({ ...zero, ...c });

type LoadingCase = [name: string, t: () => StateTable, status: string, http: number, loading: McpLoadingCounts];

const loadingCases: LoadingCase[] = [
  ['configuration not loaded', () => table([], [], UNLOADED_CONFIGURATION), 'loading', 202, zero],
  ['loaded, no servers', () => table([]), 'ready', 200, zero],
  ['loaded, only disabled servers', () => table([], ['off', 'off2']), 'ready', 200, zero],
  ['all connected', () => table([B.up('a'), B.up('b'), B.supUp()]), 'ready', 200, counts({ total: 3, complete: 3, ready: 3 })],
  ['connected but unhealthy still counts as connected', () => table([B.up(), B.pingless(), B.recentCritical()]), 'ready', 200, counts({ total: 3, complete: 3, ready: 3 })],
  ['one worker still loading', () => table([B.up(), B.loadingWorker()]), 'loading', 202, counts({ total: 2, complete: 1, ready: 1, connecting: 1 })],
  ['one first connect', () => table([B.up(), B.firstConnecting()]), 'loading', 202, counts({ total: 2, complete: 1, ready: 1, connecting: 1 })],
  ['a queued replacement is pending', () => table([B.up(), B.queued()]), 'loading', 202, counts({ total: 2, complete: 1, ready: 1, pending: 1 })],
  ['supervised first start', () => table([B.supStarting(), B.supConnecting()]), 'loading', 202, counts({ total: 2, connecting: 2 })],
  ['loading beats failures', () => table([B.failed(), B.oauth(), B.firstConnecting()]), 'loading', 202, counts({ total: 3, complete: 2, connecting: 1, failed: 1, awaitingOAuth: 1 })],
  ['one failed', () => table([B.up(), B.failed()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1, failed: 1 })],
  ['invalid entry and unsupervised exit are failed', () => table([B.invalid(), B.exited()]), 'degraded', 200, counts({ total: 2, complete: 2, failed: 2 })],
  ['awaiting OAuth', () => table([B.up(), B.oauth()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1, awaitingOAuth: 1 })],
  ['restarting is neither ready nor failed', () => table([B.supUp(), B.supRestarting()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1 })],
  ['retry after a failed first start is not loading', () => table([B.supUp(), B.supRetryingFirst()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1 })],
  ['crash loop is failed', () => table([B.supUp(), B.supCrashLoop()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1, failed: 1 })],
  ['reconnecting remote is not loading', () => table([B.up(), B.reconnecting()]), 'degraded', 200, counts({ total: 2, complete: 2, ready: 1 })],
  ['stopping and stopped', () => table([B.up(), B.stopping(), B.stoppedPlain(), B.supStopped()]), 'degraded', 200, counts({ total: 4, complete: 4, ready: 1 })],
  ['disabled servers are not counted', () => table([B.up()], ['off']), 'ready', 200, counts({ total: 1, complete: 1, ready: 1 })],
  [
    'every situation at once',
    () => table(Object.values(B).map((make) => make()), ['off']),
    'loading',
    202,
    // connecting: loadingWorker, firstConnecting, supStarting, supConnecting; pending: queued;
    // ready: up, pingless, recentCritical, supUp; failed: failed, exited, invalid, supCrashLoop.
    counts({ total: 20, complete: 15, pending: 1, connecting: 4, ready: 4, failed: 4, awaitingOAuth: 1 }),
  ],
];

for (const [name, t, status, http, loading] of loadingCases) {
  test(`buildMcpLoadingReport :: ${name} -> ${status} ${http}`, () => {
    for (const level of LEVELS) {
      const report = buildMcpLoadingReport(t(), level, NOW);
      assert.is(report.status, status, level);
      assert.is(report.body.status, status, level);
      assert.is(report.httpStatus, http, level);
      assert.equal(report.body.loading, loading, level);
      const l = report.body.loading as McpLoadingCounts;
      assert.is(l.complete, l.total - l.connecting - l.pending, 'complete = total - connecting - pending');
      assert.is(report.body.timestamp, NOW_ISO);
    }
  });
}

// The MCP workers: with backends ready but no hub up, clients get 503; loading still says loading.
test('buildMcpLoadingReport :: no MCP worker up -> degraded 200, with the counts; one of two up -> ready', () => {
  const cases: [{ total: number; up: number }, () => StateTable, string, number][] = [
    [{ total: 1, up: 0 }, () => table([B.up()]), 'degraded', 200],
    [{ total: 2, up: 1 }, () => table([B.up()]), 'ready', 200],
    [{ total: 1, up: 0 }, () => table([B.up(), B.firstConnecting()]), 'loading', 202],
  ];
  for (const [workers, t, status, http] of cases) {
    const tableNow = t();
    tableNow.mcpWorkers = workers;
    const report = buildMcpLoadingReport(tableNow, 'minimal', NOW);
    assert.equal([report.status, report.httpStatus, report.body.mcpWorkers], [status, http, workers], JSON.stringify(workers));
  }
});

// ---------------------------------------------------------------------------------------------
// buildMcpLoadingReport: key sets and contents per level
// ---------------------------------------------------------------------------------------------

const LOADING_KEYS = ['awaitingOAuth', 'complete', 'connecting', 'failed', 'pending', 'ready', 'total'];
const mixed = () => table([B.up(), B.failed(), B.supUp(), B.supRestarting(), B.supCrashLoop(), B.firstConnecting()], ['off']);

const loadingShapeCases: Array<[HealthLevel, top: string[], servers: boolean]> = [
  ['minimal', ['backendSupervision', 'loading', 'mcpWorkers', 'status', 'timestamp'], false],
  ['basic', ['backendSupervision', 'loading', 'mcpWorkers', 'servers', 'status', 'timestamp'], true],
  ['full', ['backendSupervision', 'loading', 'mcpWorkers', 'servers', 'status', 'timestamp'], true],
];

for (const [level, top, servers] of loadingShapeCases) {
  test(`buildMcpLoadingReport :: key set at ${level}`, () => {
    const t = mixed();
    const { body } = buildMcpLoadingReport(t, level, NOW);
    assert.equal(keys(body), top);
    assert.equal(keys(body.loading), LOADING_KEYS);
    // backendSupervision is exactly the level's supervision summary (counts, + backends[], + pids).
    assert.equal(body.backendSupervision, supervisionSummary(t.backends.values(), level));
    if (servers) for (const s of arr(body.servers)) assert.equal(keys(s), ['lastError', 'name', 'state']);
    else assert.not.ok('servers' in body, 'servers must be omitted at minimal');
  });
}

test('buildMcpLoadingReport :: servers[] at basic and full (identical, enabled only, sanitized lastError as stored)', () => {
  const expected = [
    { name: 'up', state: 'connected', lastError: null },
    { name: 'failed', state: 'error', lastError: 'spawn failed: [PATH] not found' },
    { name: 'supUp', state: 'connected', lastError: null },
    { name: 'supRestarting', state: 'restarting', lastError: 'process exited with code 1' },
    { name: 'supCrashLoop', state: 'crashLoop', lastError: 'spawn failed' },
    { name: 'firstConnecting', state: 'connecting', lastError: null },
  ];
  for (const level of ['basic', 'full'] as const) assert.equal(buildMcpLoadingReport(mixed(), level, NOW).body.servers, expected, level);
});

test('buildMcpLoadingReport :: nothing per-backend at minimal, no pid below full (deep scan)', () => {
  const minimal = JSON.stringify(buildMcpLoadingReport(mixed(), 'minimal', NOW).body);
  for (const hidden of ['servers', 'backends', 'lastError', 'pid', '"name"', 'spawn failed']) assert.not.ok(minimal.includes(hidden), `${hidden} leaked at minimal`);
  assert.not.ok(JSON.stringify(buildMcpLoadingReport(mixed(), 'basic', NOW).body).includes('"pid"'), 'pid leaked at basic');
  assert.ok(JSON.stringify(buildMcpLoadingReport(mixed(), 'full', NOW).body).includes('"pid"'), 'pid shown at full');
});

test('buildMcpLoadingReport :: backendSupervision counts supervised backends only', () => {
  const { body } = buildMcpLoadingReport(mixed(), 'minimal', NOW);
  assert.equal(body.backendSupervision, { total: 3, connected: 1, restarting: 1, crashLoop: 1, stopped: 0 });
});

// ---------------------------------------------------------------------------------------------
// buildMcpServerReport: HTTP code and state (identical at every level)
// ---------------------------------------------------------------------------------------------

const serverCases: Array<[name: keyof typeof B, http: number, state: string]> = [
  ['up', 200, 'connected'],
  ['supUp', 200, 'connected'],
  ['pingless', 503, 'connected'], // connected but not healthy: two pings unanswered
  ['recentCritical', 503, 'connected'], // connected but not healthy: critical error 30 s ago
  ['loadingWorker', 202, 'connecting'],
  ['firstConnecting', 202, 'connecting'],
  ['supStarting', 202, 'connecting'],
  ['supConnecting', 202, 'connecting'],
  ['supRestarting', 503, 'restarting'],
  ['supRetryingFirst', 503, 'restarting'],
  ['supCrashLoop', 503, 'crashLoop'],
  ['supStopped', 503, 'stopped'],
  ['failed', 503, 'error'],
  ['exited', 503, 'error'],
  ['invalid', 503, 'error'],
  ['oauth', 503, 'awaiting_oauth'],
  ['reconnecting', 503, 'disconnected'],
  ['stopping', 503, 'disconnected'],
  ['stoppedPlain', 503, 'disconnected'],
];

const everything = () => table(Object.values(B).map((make) => make()), ['off']);

for (const [name, http, state] of serverCases) {
  test(`buildMcpServerReport :: ${name} -> ${http} ${state}`, () => {
    for (const level of LEVELS) {
      const report = buildMcpServerReport(everything(), name, level, NOW);
      assert.is(report.httpStatus, http, level);
      assert.is(report.body.name, name);
      assert.is(report.body.state, state);
      assert.is(report.body.timestamp, NOW_ISO);
    }
  });
}

test('buildMcpServerReport :: a critical error 90 s ago no longer keeps a connected backend from 200', () => {
  const t = table([backend({ name: 'a', phase: 'connected', firstConnect: false, lastCriticalAt: NOW - 90_000 })]);
  assert.is(buildMcpServerReport(t, 'a', 'minimal', NOW).httpStatus, 200);
});

// ---------------------------------------------------------------------------------------------
// buildMcpServerReport: key sets per level
// ---------------------------------------------------------------------------------------------

const BASE_KEYS = ['name', 'state', 'timestamp'];
const SUPERVISED_BASIC = [...BASE_KEYS, 'attempt', 'lastError', 'lastExit', 'limit', 'nextRetryAt', 'status'].sort();
const SUPERVISED_FULL = [...SUPERVISED_BASIC, 'pid'].sort();
const UNSUPERVISED_DETAIL = [...BASE_KEYS, 'lastError', 'status'].sort();
const NOT_FOUND_KEYS = ['error', 'message', 'timestamp'];

const serverShapeCases: Array<[what: string, serverName: string, HealthLevel, expected: string[]]> = [
  ['supervised', 'supRestarting', 'minimal', BASE_KEYS],
  ['supervised', 'supRestarting', 'basic', SUPERVISED_BASIC],
  ['supervised', 'supRestarting', 'full', SUPERVISED_FULL],
  ['supervised, still starting', 'supStarting', 'basic', SUPERVISED_BASIC],
  ['supervised, still starting', 'supStarting', 'full', SUPERVISED_FULL],
  ['unsupervised', 'failed', 'minimal', BASE_KEYS],
  ['unsupervised', 'failed', 'basic', UNSUPERVISED_DETAIL],
  ['unsupervised', 'failed', 'full', UNSUPERVISED_DETAIL],
  ['disabled', 'off', 'minimal', BASE_KEYS],
  ['disabled', 'off', 'basic', BASE_KEYS],
  ['disabled', 'off', 'full', BASE_KEYS],
  ['unknown', 'nope', 'minimal', NOT_FOUND_KEYS],
  ['unknown', 'nope', 'basic', NOT_FOUND_KEYS],
  ['unknown', 'nope', 'full', NOT_FOUND_KEYS],
];

for (const [what, serverName, level, expected] of serverShapeCases) {
  test(`buildMcpServerReport :: key set of ${what} at ${level}`, () => {
    const { body } = buildMcpServerReport(everything(), serverName, level, NOW);
    assert.equal(keys(body), expected);
    if (body.lastExit) assert.equal(keys(body.lastExit), level === 'full' ? ['at', 'code', 'pid', 'signal'] : ['at', 'code', 'signal']);
  });
}

test('buildMcpServerReport :: supervised body values at basic and full', () => {
  const basic = {
    name: 'supRestarting',
    state: 'restarting',
    timestamp: NOW_ISO,
    attempt: 2,
    limit: 5,
    nextRetryAt: '2026-03-01T12:35:00.250Z',
    lastExit: { code: 1, signal: null, at: '2026-03-01T12:34:50.001Z' },
    lastError: 'process exited with code 1',
    status: 'disconnected',
  };
  assert.equal(buildMcpServerReport(everything(), 'supRestarting', 'basic', NOW).body, basic);
  assert.equal(buildMcpServerReport(everything(), 'supRestarting', 'full', NOW).body, {
    ...basic,
    lastExit: { ...basic.lastExit, pid: 403 },
    pid: null,
  });
  assert.equal(buildMcpServerReport(everything(), 'supUp', 'full', NOW).body, {
    name: 'supUp',
    state: 'connected',
    timestamp: NOW_ISO,
    attempt: 1,
    limit: 5,
    nextRetryAt: null,
    lastExit: { code: 1, signal: null, at: '2026-03-01T12:30:00.000Z', pid: 399 },
    lastError: null,
    status: 'connected',
    pid: 402,
  });
});

test('buildMcpServerReport :: supervised `state` is the report state, not the raw supervision `starting`', () => {
  const { body } = buildMcpServerReport(everything(), 'supStarting', 'basic', NOW);
  assert.is(body.state, 'connecting');
  assert.is(body.limit, null, 'null = unlimited');
  assert.is(body.status, 'disconnected');
});

test('buildMcpServerReport :: unsupervised body values at basic and full (no pid even at full)', () => {
  for (const level of ['basic', 'full'] as const) {
    assert.equal(
      buildMcpServerReport(everything(), 'failed', level, NOW).body,
      { name: 'failed', state: 'error', timestamp: NOW_ISO, status: 'error', lastError: 'spawn failed: [PATH] not found' },
      level,
    );
    assert.equal(buildMcpServerReport(everything(), 'up', level, NOW).body, { name: 'up', state: 'connected', timestamp: NOW_ISO, status: 'connected', lastError: null }, level);
  }
});

test('buildMcpServerReport :: minimal shows no facts (deep scan)', () => {
  for (const name of ['supRestarting', 'supCrashLoop', 'failed', 'supUp']) {
    const text = JSON.stringify(buildMcpServerReport(everything(), name, 'minimal', NOW).body);
    for (const hidden of ['lastError', 'status', 'pid', 'attempt', 'lastExit', 'spawn failed', 'exited with']) assert.not.ok(text.includes(hidden), `${hidden} leaked for ${name}`);
  }
});

test('buildMcpServerReport :: no pid below full (deep scan)', () => {
  for (const level of ['minimal', 'basic'] as const) {
    for (const name of ['supUp', 'supRestarting', 'supCrashLoop', 'up']) {
      assert.not.ok(JSON.stringify(buildMcpServerReport(everything(), name, level, NOW).body).includes('"pid"'), `${name} at ${level}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// buildMcpServerReport: disabled and unknown names
// ---------------------------------------------------------------------------------------------

test('buildMcpServerReport :: disabled server -> 503 disabled at every level', () => {
  for (const level of LEVELS) {
    const report = buildMcpServerReport(everything(), 'off', level, NOW);
    assert.is(report.httpStatus, 503, level);
    assert.equal(report.body, { name: 'off', state: 'disabled', timestamp: NOW_ISO }, level);
  }
});

test('buildMcpServerReport :: a disabled name wins over a stale backend entry of the same name', () => {
  const t = table([B.up('twin')], ['twin']);
  const report = buildMcpServerReport(t, 'twin', 'basic', NOW);
  assert.is(report.httpStatus, 503);
  assert.is(report.body.state, 'disabled');
});

test('buildMcpServerReport :: unknown name -> 404 not_found at every level', () => {
  for (const level of LEVELS) {
    const report = buildMcpServerReport(everything(), 'nope', level, NOW);
    assert.is(report.httpStatus, 404, level);
    assert.equal(report.body, { error: 'not_found', message: "Server 'nope' not found", timestamp: NOW_ISO }, level);
  }
});

const nameCapCases: Array<[what: string, name: string, shown: string]> = [
  ['empty', '', ''],
  ['exactly the cap', 'x'.repeat(MAX_ECHOED_NAME_LENGTH), 'x'.repeat(MAX_ECHOED_NAME_LENGTH)],
  ['one over the cap', 'y'.repeat(MAX_ECHOED_NAME_LENGTH + 1), 'y'.repeat(MAX_ECHOED_NAME_LENGTH)],
  ['far over the cap', 'z'.repeat(10_000), 'z'.repeat(MAX_ECHOED_NAME_LENGTH)],
  ['astral characters are not split', 'a'.repeat(99) + '😀😀', 'a'.repeat(99) + '😀'],
  ['quotes and control characters are kept as data', `a'"\n<b>`, `a'"\n<b>`],
];

for (const [what, name, shown] of nameCapCases) {
  test(`buildMcpServerReport :: 404 echoes the name capped at ${MAX_ECHOED_NAME_LENGTH} (${what})`, () => {
    const report = buildMcpServerReport(everything(), name, 'full', NOW);
    assert.is(report.httpStatus, 404);
    assert.is(report.body.message, `Server '${shown}' not found`);
    // The body survives a JSON round trip unchanged (escaping is the serializer's job).
    assert.equal(JSON.parse(JSON.stringify(report.body)), report.body);
  });
}

test(`buildMcpServerReport :: the cap is ${MAX_ECHOED_NAME_LENGTH}`, () => {
  assert.is(MAX_ECHOED_NAME_LENGTH, 100);
});

test('buildMcpServerReport :: names are exact (no prototype keys, no case folding)', () => {
  for (const name of ['__proto__', 'constructor', 'toString', 'UP', 'up ']) {
    assert.is(buildMcpServerReport(everything(), name, 'basic', NOW).httpStatus, 404, name);
  }
});

test('buildMcpServerReport :: configuration not loaded -> every name unknown', () => {
  const report = buildMcpServerReport(table([], [], UNLOADED_CONFIGURATION), 'up', 'basic', NOW);
  assert.is(report.httpStatus, 404);
  assert.is(obj(report.body).error, 'not_found');
});

test.run();
