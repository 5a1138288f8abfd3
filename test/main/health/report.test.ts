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
import { buildHealthReport, buildLivenessReport, buildReadinessReport, supervisionSummary, type ProcessFacts } from '../../../lib/main/health/report.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures: a fixed clock, fixed process facts and a hand-built state table
// ---------------------------------------------------------------------------------------------

const NOW = Date.parse('2026-03-01T12:34:56.789Z');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LEVELS: HealthLevel[] = ['minimal', 'basic', 'full'];

const FACTS: ProcessFacts = {
  uptimeSeconds: 12345.678,
  heapUsedBytes: 53_663_367, // 51.1774 MB
  heapTotalBytes: 105_635_377, // 100.7417 MB, 50.8006 %
  pid: 4242,
  nodeVersion: 'v20.99.0',
  platform: 'linux',
  arch: 'x64',
  version: '9.8.7',
};

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

function configuration(enabled: number, disabled: number): ConfigurationSummary {
  return { loaded: true, serverCount: enabled + disabled, enabledCount: enabled, disabledCount: disabled, authEnabled: false, transport: 'http' };
}

function table(backends: BackendState[], config: ConfigurationSummary, disabled: string[] = []): StateTable {
  const t = new StateTable();
  for (const b of backends) t.backends.set(b.name, b);
  for (const name of disabled) t.disabled.add(name);
  t.configuration = config;
  return t;
}

// Seven enabled backends covering every supervision state plus unsupervised ones; one disabled.
function fullTable(): StateTable {
  return table(
    [
      backend({
        name: 'alpha',
        tags: ['db', 'prod'],
        phase: 'connected',
        firstConnect: false,
        lastConnected: Date.parse('2026-03-01T12:00:00.123Z'),
        pid: 1001,
        supervision: sup('connected', { attempt: 0 }),
        lastExit: { code: 0, signal: null, at: Date.parse('2026-03-01T11:59:00.500Z'), pid: 900 },
      }),
      backend({
        name: 'beta',
        phase: 'exited',
        firstConnect: false,
        lastConnected: Date.parse('2026-03-01T12:30:00.000Z'),
        lastError: 'process exited with code 1',
        pid: null,
        supervision: sup('restarting', { attempt: 2, limit: 5, nextRetryAt: Date.parse('2026-03-01T12:35:00.250Z') }),
        lastExit: { code: 1, signal: null, at: Date.parse('2026-03-01T12:34:50.001Z'), pid: 1002 },
      }),
      backend({
        name: 'gamma',
        tags: ['remote'],
        phase: 'connected',
        firstConnect: false,
        lastConnected: Date.parse('2026-03-01T12:10:00.000Z'),
        missedPings: 2,
      }),
      backend({ name: 'delta', phase: 'starting' }),
      backend({
        name: 'epsilon',
        phase: 'failed',
        firstConnect: false,
        lastError: 'spawn failed: [PATH] not found',
        supervision: sup('crashLoop', { attempt: 3, limit: 3 }),
        lastExit: { code: null, signal: 'SIGKILL', at: Date.parse('2026-03-01T12:20:00.000Z'), pid: 1005 },
      }),
      backend({ name: 'zeta', phase: 'stopped', firstConnect: false, supervision: sup('stopped', { limit: null }) }),
      backend({ name: 'eta', phase: 'connecting', pid: 1007, supervision: sup('starting', { limit: null }) }),
    ],
    configuration(7, 1),
    ['off'],
  );
}

const keys = (value: unknown): string[] => Object.keys(value as Record<string, unknown>).sort();
const obj = (value: unknown): Record<string, unknown> => value as Record<string, unknown>;
const arr = (value: unknown): Record<string, unknown>[] => value as Record<string, unknown>[];

const TOP_KEYS = ['configuration', 'servers', 'status', 'system', 'timestamp', 'version'];
const CONFIG_KEYS = ['authEnabled', 'disabledCount', 'enabledCount', 'loaded', 'serverCount', 'transport'];
const DETAIL_KEYS = ['healthy', 'lastConnected', 'lastError', 'name', 'status', 'tags'];
const COUNT_KEYS = ['connected', 'crashLoop', 'restarting', 'stopped', 'total'];
const ENTRY_KEYS_BASIC = ['attempt', 'lastError', 'lastExit', 'limit', 'name', 'nextRetryAt', 'state'];

// ---------------------------------------------------------------------------------------------
// buildHealthReport: key sets per level
// ---------------------------------------------------------------------------------------------

type ShapeExpectation = {
  system: string[];
  memory: string[] | null;
  process: string[] | null;
  servers: string[];
  details: boolean;
};

const shapeCases: Array<[HealthLevel, ShapeExpectation]> = [
  ['minimal', { system: ['uptime'], memory: null, process: null, servers: ['healthy', 'total', 'unhealthy'], details: false }],
  ['basic', { system: ['memory', 'uptime'], memory: ['percentage', 'total', 'used'], process: null, servers: ['details', 'healthy', 'total', 'unhealthy'], details: true }],
  [
    'full',
    {
      system: ['memory', 'process', 'uptime'],
      memory: ['percentage', 'total', 'used'],
      process: ['arch', 'nodeVersion', 'pid', 'platform'],
      servers: ['details', 'healthy', 'total', 'unhealthy'],
      details: true,
    },
  ],
];

function runShape(level: HealthLevel, expected: ShapeExpectation): void {
  const { body } = buildHealthReport(fullTable(), level, NOW, FACTS);
  assert.equal(keys(body), TOP_KEYS);
  const system = obj(body.system);
  assert.equal(keys(system), expected.system);
  if (expected.memory) assert.equal(keys(system.memory), expected.memory);
  else assert.not.ok('memory' in system, 'memory must be omitted, not faked');
  if (expected.process) assert.equal(keys(system.process), expected.process);
  else assert.not.ok('process' in system, 'process must be omitted, not faked');
  const servers = obj(body.servers);
  assert.equal(keys(servers), expected.servers);
  if (expected.details) for (const d of arr(servers.details)) assert.equal(keys(d), DETAIL_KEYS);
  else assert.not.ok('details' in servers, 'details must be omitted at minimal');
  assert.equal(keys(body.configuration), CONFIG_KEYS);
}

for (const [level, expected] of shapeCases) {
  test(`buildHealthReport :: key set at ${level}`, () => runShape(level, expected));
}

test('buildHealthReport :: nothing hidden is null or 0-faked at minimal (deep scan)', () => {
  const { body } = buildHealthReport(fullTable(), 'minimal', NOW, FACTS);
  const text = JSON.stringify(body);
  for (const hidden of ['memory', 'process', 'pid', 'nodeVersion', 'platform', 'arch', 'details', 'lastError', 'lastConnected', 'tags']) {
    assert.not.ok(text.includes(`"${hidden}"`), `${hidden} leaked at minimal`);
  }
});

// ---------------------------------------------------------------------------------------------
// buildHealthReport: values
// ---------------------------------------------------------------------------------------------

const memoryCases: Array<[HealthLevel, { used: number; total: number; percentage: number }]> = [
  ['basic', { used: 51, total: 101, percentage: 51 }],
  ['full', { used: 51.18, total: 100.74, percentage: 50.8 }],
];

for (const [level, expected] of memoryCases) {
  test(`buildHealthReport :: memory rounding at ${level}`, () => {
    const { body } = buildHealthReport(fullTable(), level, NOW, FACTS);
    assert.equal(obj(body.system).memory, expected);
  });
}

test('buildHealthReport :: memory whole MB at basic rounds half up and down', () => {
  const MB = 1024 * 1024;
  const facts = { ...FACTS, heapUsedBytes: Math.round(10.5 * MB), heapTotalBytes: Math.round(20.49 * MB) };
  const basic = obj(obj(buildHealthReport(fullTable(), 'basic', NOW, facts).body.system).memory);
  assert.is(basic.used, 11);
  assert.is(basic.total, 20);
  const full = obj(obj(buildHealthReport(fullTable(), 'full', NOW, facts).body.system).memory);
  assert.is(full.used, 10.5);
  assert.is(full.total, 20.49);
});

test('buildHealthReport :: system.process at full and uptime at every level', () => {
  for (const level of LEVELS) {
    const system = obj(buildHealthReport(fullTable(), level, NOW, FACTS).body.system);
    assert.type(system.uptime, 'number');
    assert.ok(Math.abs((system.uptime as number) - FACTS.uptimeSeconds) < 0.001, `uptime at ${level}`);
  }
  const full = obj(buildHealthReport(fullTable(), 'full', NOW, FACTS).body.system);
  assert.equal(full.process, { pid: 4242, nodeVersion: 'v20.99.0', platform: 'linux', arch: 'x64' });
});

test('buildHealthReport :: status, timestamp, version, counts of the full table at every level', () => {
  for (const level of LEVELS) {
    const report = buildHealthReport(fullTable(), level, NOW, FACTS);
    // alpha is the only healthy one (gamma has 2 missed pings): 1/7 -> unhealthy
    assert.is(report.status, 'unhealthy');
    assert.is(report.httpStatus, 503);
    assert.is(report.body.status, 'unhealthy');
    assert.is(report.body.timestamp, '2026-03-01T12:34:56.789Z');
    assert.ok(ISO_MS.test(report.body.timestamp as string));
    assert.is(report.body.version, '9.8.7');
    const servers = obj(report.body.servers);
    assert.is(servers.total, 7, 'disabled server not counted');
    assert.is(servers.healthy, 1);
    assert.is(servers.unhealthy, 6);
    assert.equal(report.body.configuration, configuration(7, 1));
  }
});

test('buildHealthReport :: servers.details entries (basic and full are identical)', () => {
  const expected = [
    { name: 'alpha', status: 'connected', healthy: true, lastConnected: '2026-03-01T12:00:00.123Z', lastError: null, tags: ['db', 'prod'] },
    { name: 'beta', status: 'disconnected', healthy: false, lastConnected: '2026-03-01T12:30:00.000Z', lastError: 'process exited with code 1', tags: [] },
    { name: 'gamma', status: 'connected', healthy: false, lastConnected: '2026-03-01T12:10:00.000Z', lastError: null, tags: ['remote'] },
    { name: 'delta', status: 'disconnected', healthy: false, lastConnected: null, lastError: null, tags: [] },
    { name: 'epsilon', status: 'error', healthy: false, lastConnected: null, lastError: 'spawn failed: [PATH] not found', tags: [] },
    { name: 'zeta', status: 'disconnected', healthy: false, lastConnected: null, lastError: null, tags: [] },
    { name: 'eta', status: 'disconnected', healthy: false, lastConnected: null, lastError: null, tags: [] },
  ];
  for (const level of ['basic', 'full'] as const) {
    const details = arr(obj(buildHealthReport(fullTable(), level, NOW, FACTS).body.servers).details);
    assert.equal(details, expected, `details at ${level}`);
    for (const d of details) if (d.lastConnected !== null) assert.ok(ISO_MS.test(d.lastConnected as string));
  }
});

test('buildHealthReport :: disabled servers never appear in servers.*', () => {
  const t = fullTable();
  for (const level of ['basic', 'full'] as const) {
    const servers = obj(buildHealthReport(t, level, NOW, FACTS).body.servers);
    assert.not.ok(arr(servers.details).some((d) => d.name === 'off'));
  }
  assert.is(obj(buildHealthReport(t, 'minimal', NOW, FACTS).body.configuration).disabledCount, 1);
});

test('buildHealthReport :: configuration is a copy, not the table object', () => {
  const t = fullTable();
  const { body } = buildHealthReport(t, 'basic', NOW, FACTS);
  assert.is.not(body.configuration, t.configuration);
});

// Overall status through the report, with hand-built tables.
type OverallTableCase = [name: string, t: () => StateTable, status: string, http: number, counts: [total: number, healthy: number, unhealthy: number]];

const up = (name: string) => backend({ name, phase: 'connected', lastConnected: NOW - 1000 });
const down = (name: string) => backend({ name, phase: 'failed', lastError: 'boom' });

const overallTableCases: OverallTableCase[] = [
  ['configuration not loaded', () => table([], UNLOADED_CONFIGURATION), 'unhealthy', 503, [0, 0, 0]],
  ['loaded, no servers', () => table([], configuration(0, 0)), 'degraded', 200, [0, 0, 0]],
  ['loaded, only disabled servers', () => table([], configuration(0, 2), ['x', 'y']), 'degraded', 200, [0, 0, 0]],
  ['all healthy', () => table([up('a'), up('b')], configuration(2, 0)), 'healthy', 200, [2, 2, 0]],
  ['all healthy, a disabled one aside', () => table([up('a')], configuration(1, 1), ['off']), 'healthy', 200, [1, 1, 0]],
  ['2/3 healthy', () => table([up('a'), up('b'), down('c')], configuration(3, 0)), 'degraded', 200, [3, 2, 1]],
  ['1/2 healthy', () => table([up('a'), down('b')], configuration(2, 0)), 'unhealthy', 503, [2, 1, 1]],
  ['0/2 healthy', () => table([down('a'), down('b')], configuration(2, 0)), 'unhealthy', 503, [2, 0, 2]],
  [
    'critical error 30 s ago makes connected unhealthy',
    () => table([up('a'), backend({ name: 'b', phase: 'connected', lastCriticalAt: NOW - 30_000 })], configuration(2, 0)),
    'unhealthy',
    503,
    [2, 1, 1],
  ],
  [
    'critical error 90 s ago no longer counts',
    () => table([up('a'), backend({ name: 'b', phase: 'connected', lastCriticalAt: NOW - 90_000 })], configuration(2, 0)),
    'healthy',
    200,
    [2, 2, 0],
  ],
];

function runOverallTable(t: StateTable, expected: { status: string; http: number; counts: [number, number, number] }): void {
  for (const level of LEVELS) {
    const report = buildHealthReport(t, level, NOW, FACTS);
    assert.is(report.status, expected.status);
    assert.is(report.body.status, expected.status);
    assert.is(report.httpStatus, expected.http);
    const servers = obj(report.body.servers);
    assert.equal([servers.total, servers.healthy, servers.unhealthy], expected.counts);
  }
}

for (const [name, t, status, http, counts] of overallTableCases) {
  test(`buildHealthReport :: overall ${name} -> ${status} ${http}`, () => runOverallTable(t(), { status, http, counts }));
}

test('buildHealthReport :: not loaded reports loaded false, counts 0, authEnabled false', () => {
  const { body } = buildHealthReport(table([], UNLOADED_CONFIGURATION), 'full', NOW, FACTS);
  assert.equal(body.configuration, { loaded: false, serverCount: 0, enabledCount: 0, disabledCount: 0, authEnabled: false, transport: 'http' });
  assert.equal(obj(body.servers).details, []);
});

// ---------------------------------------------------------------------------------------------
// supervisionSummary and buildReadinessReport
// ---------------------------------------------------------------------------------------------

const COUNTS = { total: 5, connected: 1, restarting: 1, crashLoop: 1, stopped: 1 };

const entriesBasic = [
  {
    name: 'alpha',
    state: 'connected',
    attempt: 0,
    limit: 5,
    nextRetryAt: null,
    lastExit: { code: 0, signal: null, at: '2026-03-01T11:59:00.500Z' },
    lastError: null,
  },
  {
    name: 'beta',
    state: 'restarting',
    attempt: 2,
    limit: 5,
    nextRetryAt: '2026-03-01T12:35:00.250Z',
    lastExit: { code: 1, signal: null, at: '2026-03-01T12:34:50.001Z' },
    lastError: 'process exited with code 1',
  },
  {
    name: 'epsilon',
    state: 'crashLoop',
    attempt: 3,
    limit: 3,
    nextRetryAt: null,
    lastExit: { code: null, signal: 'SIGKILL', at: '2026-03-01T12:20:00.000Z' },
    lastError: 'spawn failed: [PATH] not found',
  },
  { name: 'zeta', state: 'stopped', attempt: 0, limit: null, nextRetryAt: null, lastExit: null, lastError: null },
  { name: 'eta', state: 'starting', attempt: 0, limit: null, nextRetryAt: null, lastExit: null, lastError: null },
];

const fullPids: Record<string, { pid: number | null; exitPid?: number | null }> = {
  alpha: { pid: 1001, exitPid: 900 },
  beta: { pid: null, exitPid: 1002 },
  epsilon: { pid: null, exitPid: 1005 },
  zeta: { pid: null },
  eta: { pid: 1007 },
};

const entriesFull = entriesBasic.map((e) => {
  const p = fullPids[e.name]!;
  return { ...e, pid: p.pid, lastExit: e.lastExit ? { ...e.lastExit, pid: p.exitPid } : null };
});

const summaryCases: Array<[HealthLevel, Record<string, unknown>]> = [
  ['minimal', COUNTS],
  ['basic', { ...COUNTS, backends: entriesBasic }],
  ['full', { ...COUNTS, backends: entriesFull }],
];

function runSummary(level: HealthLevel, expected: Record<string, unknown>): void {
  const summary = supervisionSummary(fullTable().backends.values(), level);
  assert.equal(summary, expected);
  if (level === 'minimal') {
    assert.equal(keys(summary), COUNT_KEYS);
    return;
  }
  assert.equal(keys(summary), [...COUNT_KEYS, 'backends'].sort());
  for (const entry of arr(obj(summary).backends)) {
    assert.equal(keys(entry), level === 'full' ? [...ENTRY_KEYS_BASIC, 'pid'].sort() : ENTRY_KEYS_BASIC);
    if (entry.lastExit) assert.equal(keys(entry.lastExit), level === 'full' ? ['at', 'code', 'pid', 'signal'] : ['at', 'code', 'signal']);
    if (entry.nextRetryAt !== null) assert.ok(ISO_MS.test(entry.nextRetryAt as string));
  }
}

for (const [level, expected] of summaryCases) {
  test(`supervisionSummary :: ${level}`, () => runSummary(level, expected));
}

test('supervisionSummary :: no pid anywhere below full', () => {
  for (const level of ['minimal', 'basic'] as const) {
    assert.not.ok(JSON.stringify(supervisionSummary(fullTable().backends.values(), level)).includes('"pid"'), level);
  }
});

test('supervisionSummary :: empty and unsupervised-only tables', () => {
  const zero = { total: 0, connected: 0, restarting: 0, crashLoop: 0, stopped: 0 };
  assert.equal(supervisionSummary([], 'minimal'), zero);
  assert.equal(supervisionSummary([], 'basic'), { ...zero, backends: [] });
  const unsupervised = [backend({ name: 'r', phase: 'connected' })];
  assert.equal(supervisionSummary(unsupervised, 'full'), { ...zero, backends: [] });
});

const readinessCases: Array<[HealthLevel, Record<string, unknown>]> = [
  ['minimal', COUNTS],
  ['basic', { ...COUNTS, backends: entriesBasic }],
  ['full', { ...COUNTS, backends: entriesFull }],
];

for (const [level, supervision] of readinessCases) {
  test(`buildReadinessReport :: ${level} with restarting and crash loop -> not_ready 503`, () => {
    const report = buildReadinessReport(fullTable(), level, NOW);
    assert.is(report.httpStatus, 503);
    assert.equal(keys(report.body), ['backendSupervision', 'configuration', 'mcpWorkers', 'status', 'timestamp']);
    assert.equal(report.body, {
      status: 'not_ready',
      timestamp: '2026-03-01T12:34:56.789Z',
      configuration: configuration(7, 1),
      backendSupervision: supervision,
      mcpWorkers: { total: 0, up: 0 },
    });
  });
}

type ReadyTableCase = [name: string, t: () => StateTable, status: 'ready' | 'not_ready', http: 200 | 503];

const readyTableCases: ReadyTableCase[] = [
  ['not loaded', () => table([], UNLOADED_CONFIGURATION), 'not_ready', 503],
  ['loaded, no backends', () => table([], configuration(0, 0)), 'ready', 200],
  [
    'loaded, starting/connected/stopped/unsupervised failed',
    () =>
      table(
        [
          backend({ name: 'a', phase: 'connecting', supervision: sup('starting') }),
          backend({ name: 'b', phase: 'connected', supervision: sup('connected') }),
          backend({ name: 'c', phase: 'stopped', supervision: sup('stopped') }),
          down('d'),
        ],
        configuration(4, 0),
      ),
    'ready',
    200,
  ],
  ['loaded, one restarting', () => table([backend({ name: 'a', phase: 'exited', supervision: sup('restarting') })], configuration(1, 0)), 'not_ready', 503],
  ['loaded, one crash loop', () => table([backend({ name: 'a', phase: 'failed', supervision: sup('crashLoop') })], configuration(1, 0)), 'not_ready', 503],
];

for (const [name, t, status, http] of readyTableCases) {
  test(`buildReadinessReport :: ${name} -> ${status}`, () => {
    for (const level of LEVELS) {
      const report = buildReadinessReport(t(), level, NOW);
      assert.is(report.body.status, status);
      assert.is(report.httpStatus, http);
      assert.ok(ISO_MS.test(report.body.timestamp));
    }
  });
}

test('buildReadinessReport :: not loaded carries the unloaded configuration', () => {
  const report = buildReadinessReport(table([], UNLOADED_CONFIGURATION), 'basic', NOW);
  assert.equal(report.body.configuration, { ...UNLOADED_CONFIGURATION });
  assert.equal(report.body.backendSupervision, { total: 0, connected: 0, restarting: 0, crashLoop: 0, stopped: 0, backends: [] });
});

test('buildLivenessReport :: alive with an ISO timestamp in milliseconds', () => {
  assert.equal(buildLivenessReport(NOW), { status: 'alive', timestamp: '2026-03-01T12:34:56.789Z' });
  assert.equal(buildLivenessReport(Date.parse('2026-01-01T00:00:00Z')).timestamp, '2026-01-01T00:00:00.000Z');
});

test.run();
