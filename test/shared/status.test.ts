import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  UNLOADED_CONFIGURATION,
  type BackendPhase,
  type BackendState,
  type ConfigurationSummary,
  type SupervisionFacts,
  type SupervisionState,
} from '../../lib/shared/backend-state.ts';
import {
  CRITICAL_ERROR_WINDOW_MS,
  EXIT_RECOVERY_MS,
  type HealthFacts,
  TIMEOUTS_CRITICAL,
  MAX_MISSED_PINGS,
  isHealthy,
  isReady,
  overallStatus,
  serverStatus,
  type OverallStatus,
  type ServerStatus,
} from '../../lib/shared/status.ts';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

const supervision = (state: SupervisionState): SupervisionFacts => ({ state, attempt: 0, limit: 5, nextRetryAt: null });

const LOADED: ConfigurationSummary = { loaded: true, serverCount: 3, enabledCount: 3, disabledCount: 0, authEnabled: false, transport: 'http' };

// ---------------------------------------------------------------------------------------------
// overallStatus: every row of service.md "Overall status"
// ---------------------------------------------------------------------------------------------

type OverallCase = [name: string, loaded: boolean, total: number, healthy: number, status: OverallStatus, http: 200 | 503];

const overallCases: OverallCase[] = [
  ['configuration not loaded', false, 0, 0, 'unhealthy', 503],
  ['not loaded wins even if every server is healthy', false, 2, 2, 'unhealthy', 503],
  ['loaded, no servers configured', true, 0, 0, 'degraded', 200],
  ['loaded, 1/1 healthy', true, 1, 1, 'healthy', 200],
  ['loaded, all 7/7 healthy', true, 7, 7, 'healthy', 200],
  ['loaded, 2/3 healthy (>50%)', true, 3, 2, 'degraded', 200],
  ['loaded, 3/4 healthy (>50%)', true, 4, 3, 'degraded', 200],
  ['loaded, 6/10 healthy (>50%)', true, 10, 6, 'degraded', 200],
  ['loaded, 51/100 healthy (>50%)', true, 100, 51, 'degraded', 200],
  ['loaded, exactly 50%: 1/2', true, 2, 1, 'unhealthy', 503],
  ['loaded, exactly 50%: 2/4', true, 4, 2, 'unhealthy', 503],
  ['loaded, exactly 50%: 5/10', true, 10, 5, 'unhealthy', 503],
  ['loaded, below 50%: 1/3', true, 3, 1, 'unhealthy', 503],
  ['loaded, below 50%: 49/100', true, 100, 49, 'unhealthy', 503],
  ['loaded, 0/1 healthy', true, 1, 0, 'unhealthy', 503],
  ['loaded, 0/5 healthy', true, 5, 0, 'unhealthy', 503],
];

function runOverall(input: { loaded: boolean; total: number; healthy: number }, expected: { status: OverallStatus; httpStatus: 200 | 503 }): void {
  assert.equal(overallStatus(input.loaded, input.total, input.healthy), expected);
}

for (const [name, loaded, total, healthy, status, httpStatus] of overallCases) {
  test(`overallStatus :: ${name}`, () => runOverall({ loaded, total, healthy }, { status, httpStatus }));
}

// ---------------------------------------------------------------------------------------------
// serverStatus: every phase, unsupervised and with each supervision state
// ---------------------------------------------------------------------------------------------

type StatusCase = [phase: BackendPhase, supervision: SupervisionState | null, expected: ServerStatus];

const statusCases: StatusCase[] = [
  // unsupervised (remote backends, stdio without restartOnExit, invalid entries)
  ['invalid', null, 'error'],
  ['queued', null, 'disconnected'],
  ['starting', null, 'disconnected'],
  ['connecting', null, 'disconnected'],
  ['connected', null, 'connected'],
  ['failed', null, 'error'],
  ['exited', null, 'error'], // an unsupervised exit is an error
  ['awaiting_oauth', null, 'awaiting_oauth'],
  ['stopping', null, 'disconnected'],
  ['stopped', null, 'disconnected'],

  // supervised, running normally
  ['starting', 'starting', 'disconnected'],
  ['connecting', 'starting', 'disconnected'],
  ['connected', 'connected', 'connected'],
  ['failed', 'starting', 'error'], // failed first start, not yet handed to supervision

  // supervised, restarting: on its way back, so disconnected (decisions §3)
  ['failed', 'restarting', 'disconnected'],
  ['exited', 'restarting', 'disconnected'],
  ['connecting', 'restarting', 'disconnected'],
  ['starting', 'restarting', 'disconnected'],

  // supervised, crash loop: always error, whatever the phase
  ['failed', 'crashLoop', 'error'],
  ['exited', 'crashLoop', 'error'],
  ['stopped', 'crashLoop', 'error'],
  ['connected', 'crashLoop', 'error'],

  // supervised, stopped: being stopped is disconnected
  ['stopping', 'stopped', 'disconnected'],
  ['stopped', 'stopped', 'disconnected'],
];

function runStatus(input: Pick<BackendState, 'phase' | 'supervision'>, expected: ServerStatus): void {
  assert.is(serverStatus(input), expected);
}

for (const [phase, sup, expected] of statusCases) {
  test(`serverStatus :: phase ${phase}, supervision ${sup ?? 'none'} -> ${expected}`, () =>
    runStatus({ phase, supervision: sup ? supervision(sup) : null }, expected));
}

test('serverStatus :: every BackendPhase is covered by the table', () => {
  const phases: BackendPhase[] = ['invalid', 'queued', 'starting', 'connecting', 'connected', 'failed', 'exited', 'awaiting_oauth', 'stopping', 'stopped'];
  const covered = new Set(statusCases.filter(([, sup]) => sup === null).map(([phase]) => phase));
  for (const phase of phases) assert.ok(covered.has(phase), `unsupervised phase ${phase} missing from the table`);
});

// ---------------------------------------------------------------------------------------------
// isHealthy: connected + no critical error + fewer than two missed pings. Critical: a transport
// failure in the last 60 s; a child exit until the replacement stayed connected 10 s; three
// consecutive request timeouts, for 60 s after the last (decisions §3, revised in wave 2).
// ---------------------------------------------------------------------------------------------

type HealthyInput = HealthFacts;
type HealthyCase = [name: string, input: HealthyInput, now: number, expected: boolean];

const base: HealthyInput = {
  phase: 'connected',
  supervision: null,
  lastConnected: NOW - 3_600_000,
  lastCriticalAt: null,
  exitCriticalAt: null,
  consecutiveTimeouts: 0,
  lastTimeoutAt: null,
  missedPings: 0,
};
// A child exited 30 s ago and its replacement connected `ago` ms before NOW.
const exitThenConnected = (ago: number): HealthyInput => ({ ...base, exitCriticalAt: NOW - 30_000, lastConnected: NOW - ago });

const healthyCases: HealthyCase[] = [
  ['connected, no critical error, 0 missed pings', base, NOW, true],
  ['connected, 1 missed ping', { ...base, missedPings: 1 }, NOW, true],
  ['connected, 2 missed pings', { ...base, missedPings: 2 }, NOW, false],
  ['connected, 3 missed pings', { ...base, missedPings: 3 }, NOW, false],
  ['critical error just now', { ...base, lastCriticalAt: NOW }, NOW, false],
  ['critical error 1 s ago', { ...base, lastCriticalAt: NOW - 1_000 }, NOW, false],
  ['critical error 59.999 s ago (inside the window)', { ...base, lastCriticalAt: NOW - 59_999 }, NOW, false],
  ['critical error exactly 60 s ago (window over)', { ...base, lastCriticalAt: NOW - 60_000 }, NOW, true],
  ['critical error 61 s ago', { ...base, lastCriticalAt: NOW - 61_000 }, NOW, true],
  ['critical error an hour ago', { ...base, lastCriticalAt: NOW - 3_600_000 }, NOW, true],
  ['same backend judged at a later now leaves the window', { ...base, lastCriticalAt: NOW }, NOW + 60_000, true],
  ['old critical error but 2 missed pings', { ...base, lastCriticalAt: NOW - 120_000, missedPings: 2 }, NOW, false],
  ['exit: replacement connected 10 s ago (recovered)', exitThenConnected(10_000), NOW, true],
  ['exit: replacement connected 9.999 s ago', exitThenConnected(9_999), NOW, false],
  ['exit: replacement connected just now', exitThenConnected(0), NOW, false],
  ['exit: no connection since the exit', { ...base, exitCriticalAt: NOW - 30_000, lastConnected: NOW - 40_000 }, NOW, false],
  ['exit: never connected', { ...base, exitCriticalAt: NOW - 30_000, lastConnected: null }, NOW, false],
  ['exit an hour ago, replacement connected 10 s after it', { ...base, exitCriticalAt: NOW - 3_600_000, lastConnected: NOW - 3_590_000 }, NOW, true],
  ['exit: the window does not end by time alone', { ...base, exitCriticalAt: NOW - 3_600_000, lastConnected: NOW - 3_700_000 }, NOW, false],
  ['2 consecutive timeouts', { ...base, consecutiveTimeouts: 2, lastTimeoutAt: NOW - 1_000 }, NOW, true],
  ['3 consecutive timeouts, the last 1 s ago', { ...base, consecutiveTimeouts: 3, lastTimeoutAt: NOW - 1_000 }, NOW, false],
  ['5 consecutive timeouts, the last 59.999 s ago', { ...base, consecutiveTimeouts: 5, lastTimeoutAt: NOW - 59_999 }, NOW, false],
  ['3 consecutive timeouts, the last 60 s ago', { ...base, consecutiveTimeouts: 3, lastTimeoutAt: NOW - 60_000 }, NOW, true],
  ['timeouts reset by a successful call', { ...base, consecutiveTimeouts: 0, lastTimeoutAt: NOW - 1_000 }, NOW, true],
  ['supervised and connected', { ...base, supervision: supervision('connected') }, NOW, true],
  ['not connected: connecting', { ...base, phase: 'connecting' }, NOW, false],
  ['not connected: starting', { ...base, phase: 'starting' }, NOW, false],
  ['not connected: failed', { ...base, phase: 'failed' }, NOW, false],
  ['not connected: exited', { ...base, phase: 'exited' }, NOW, false],
  ['not connected: awaiting_oauth', { ...base, phase: 'awaiting_oauth' }, NOW, false],
  ['not connected: stopped', { ...base, phase: 'stopped' }, NOW, false],
  ['not connected: invalid', { ...base, phase: 'invalid' }, NOW, false],
  ['restarting (phase exited)', { ...base, phase: 'exited', supervision: supervision('restarting') }, NOW, false],
  ['crash loop', { ...base, phase: 'failed', supervision: supervision('crashLoop') }, NOW, false],
];

function runHealthy(input: { backend: HealthyInput; now: number }, expected: boolean): void {
  assert.is(isHealthy(input.backend, input.now), expected);
}

for (const [name, backend, now, expected] of healthyCases) {
  test(`isHealthy :: ${name} -> ${expected}`, () => runHealthy({ backend, now }, expected));
}

test('isHealthy :: constants match decisions §3', () => {
  assert.is(CRITICAL_ERROR_WINDOW_MS, 60_000);
  assert.is(EXIT_RECOVERY_MS, 10_000);
  assert.is(TIMEOUTS_CRITICAL, 3);
  assert.is(MAX_MISSED_PINGS, 2);
});

// ---------------------------------------------------------------------------------------------
// isReady: configuration loaded and no supervised backend restarting or in crash loop
// ---------------------------------------------------------------------------------------------

type ReadyCase = [name: string, configuration: ConfigurationSummary, supervision: Array<SupervisionState | null>, expected: boolean];

const readyCases: ReadyCase[] = [
  ['configuration not loaded', UNLOADED_CONFIGURATION, [], false],
  ['not loaded, even with connected backends', { ...LOADED, loaded: false }, ['connected'], false],
  ['loaded, no backends', LOADED, [], true],
  ['loaded, unsupervised backends only', LOADED, [null, null], true],
  ['loaded, supervised connected', LOADED, ['connected', 'connected'], true],
  ['loaded, supervised starting (does not wait for loading)', LOADED, ['starting'], true],
  ['loaded, supervised stopped (does not fail readiness)', LOADED, ['stopped'], true],
  ['loaded, one supervised restarting', LOADED, ['connected', 'restarting'], false],
  ['loaded, one supervised in crash loop', LOADED, [null, 'crashLoop', 'connected'], false],
  ['loaded, restarting and crash loop', LOADED, ['restarting', 'crashLoop'], false],
  ['loaded, mix of starting, stopped, connected and unsupervised', LOADED, ['starting', 'stopped', 'connected', null], true],
];

function runReady(input: { configuration: ConfigurationSummary; backends: Array<Pick<BackendState, 'supervision'>> }, expected: boolean): void {
  assert.is(isReady(input.configuration, input.backends), expected);
}

for (const [name, configuration, states, expected] of readyCases) {
  test(`isReady :: ${name} -> ${expected}`, () =>
    runReady({ configuration, backends: states.map((s) => ({ supervision: s ? supervision(s) : null })) }, expected));
}

test('isReady :: accepts any iterable (Map values)', () => {
  const map = new Map<string, Pick<BackendState, 'supervision'>>([
    ['a', { supervision: supervision('connected') }],
    ['b', { supervision: supervision('restarting') }],
  ]);
  assert.is(isReady(LOADED, map.values()), false);
  map.delete('b');
  assert.is(isReady(LOADED, map.values()), true);
});

// The MCP workers are supervised like a backend (decisions §1): with none up, clients get 503.
test('isReady :: no MCP worker up -> not ready; one of two up, or none counted -> ready', () => {
  const backends = [{ supervision: supervision('connected') }];
  const table: [{ total: number; up: number } | undefined, boolean][] = [
    [{ total: 1, up: 0 }, false],
    [{ total: 2, up: 0 }, false],
    [{ total: 2, up: 1 }, true],
    [{ total: 1, up: 1 }, true],
    [{ total: 0, up: 0 }, true],
    [undefined, true],
  ];
  for (const [workers, expected] of table) assert.is(isReady(LOADED, backends, workers), expected, JSON.stringify(workers));
  assert.is(isReady({ ...LOADED, loaded: false }, backends, { total: 1, up: 1 }), false, 'the configuration first');
});

test.run();
