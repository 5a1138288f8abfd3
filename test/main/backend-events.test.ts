import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type BackendEffect, type EventContext, FRESH_START, reduceBackendEvent } from '../../lib/main/backend-events.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';
import type { InventoryCounts, WorkerEvent } from '../../lib/shared/messages/state-events.ts';

const AT = Date.parse('2026-11-23T10:00:00.000Z');
const counts: InventoryCounts = { tools: 1, resources: 0, prompts: 0, resourceTemplates: 0 };
const exit = { code: 1, signal: null, at: AT, pid: 42 };
const running = (): BackendState => ({ ...newBackendState('b', ['t'], null), phase: 'connected', firstConnect: false, pid: 42 });
const UNSUPERVISED: EventContext = { stopping: false, supervised: false };
const SUPERVISED: EventContext = { stopping: false, supervised: true };
const STOPPING: EventContext = { stopping: true, supervised: true };

const types = (effects: BackendEffect[]) => effects.map((e) => (e.type === 'supervise' ? `supervise:${e.event}` : e.type === 'log' ? `log:${e.level}` : e.type));

type Case = [name: string, state: BackendState, event: WorkerEvent, ctx: EventContext, patch: Partial<BackendState>, effects: string[]];

const cases: Case[] = [
  ['ready asks for the pending start', running(), { v: 1, type: 'ready', tid: 123 }, UNSUPERVISED, {}, ['workerReady']],
  ['connecting records the pid', running(), { v: 1, type: 'connecting', at: AT, pid: 7 }, UNSUPERVISED, { phase: 'connecting', pid: 7 }, []],
  [
    'connected publishes and tells the supervisor',
    { ...running(), phase: 'connecting', missedPings: 1 },
    { v: 1, type: 'connected', at: AT, pid: 7, protocolVersion: '2026-07-28', counts },
    SUPERVISED,
    { phase: 'connected', firstConnect: false, pid: 7, lastConnected: AT, missedPings: 0, counts, protocolVersion: '2026-07-28' },
    ['log:info', 'supervise:connected', 'changed'],
  ],
  [
    'connected, unsupervised: no supervisor',
    running(),
    { v: 1, type: 'connected', at: AT, pid: 7, protocolVersion: null, counts },
    UNSUPERVISED,
    { phase: 'connected', firstConnect: false, pid: 7, lastConnected: AT, missedPings: 0, counts, protocolVersion: null },
    ['log:info', 'changed'],
  ],
  ['inventory: the counts change', running(), { v: 1, type: 'inventory', counts }, UNSUPERVISED, { counts }, ['changed']],
  ['an answered ping resets the count', { ...running(), missedPings: 1 }, { v: 1, type: 'ping', at: AT, ok: true, error: null }, UNSUPERVISED, { missedPings: 0 }, []],
  [
    'a missed ping counts and warns',
    running(),
    { v: 1, type: 'ping', at: AT, ok: false, error: { name: 'Error', message: 'timeout' } },
    UNSUPERVISED,
    { missedPings: 1 },
    ['log:warn'],
  ],
  [
    // Found by an outside check: a stopped backend (SIGSTOP) was unhealthy with lastError null.
    'the missed ping that makes it unhealthy is its last error',
    { ...running(), missedPings: 1 },
    { v: 1, type: 'ping', at: AT, ok: false, error: { name: 'Error', message: 'timeout' } },
    UNSUPERVISED,
    { missedPings: 2, lastError: '2 pings in a row were not answered', lastErrorPublic: '2 pings in a row were not answered' },
    ['log:warn'],
  ],
  [
    'an exit, supervised: exit critical, supervisor decides',
    running(),
    { v: 1, type: 'exited', at: AT, exit, error: { name: 'BackendExited', message: 'backend process exited with code 1 unexpectedly' } },
    SUPERVISED,
    { phase: 'exited', firstConnect: false, pid: null, lastError: 'backend process exited with code 1 unexpectedly', lastErrorPublic: 'backend process exited with code 1 unexpectedly', exitCriticalAt: AT, lastExit: exit },
    ['log:error', 'supervise:exited', 'changed'],
  ],
  [
    'an exit, unsupervised: calls fail now',
    running(),
    { v: 1, type: 'exited', at: AT, exit, error: null },
    UNSUPERVISED,
    { phase: 'exited', firstConnect: false, pid: null, lastError: 'backend process exited', lastErrorPublic: 'backend process exited', exitCriticalAt: AT, lastExit: exit },
    ['log:error', 'failInflight', 'changed'],
  ],
  [
    'a failed start without an exit is a 60 s critical error; the operator sees the path, health does not',
    { ...running(), phase: 'connecting' },
    { v: 1, type: 'failed', at: AT, error: { name: 'Error', message: 'failed to start: command not found: /opt/x/bin/srv (ENOENT)' }, authRequired: false, exit: null },
    SUPERVISED,
    {
      phase: 'failed',
      firstConnect: false,
      pid: null,
      lastError: 'failed to start: command not found: /opt/x/bin/srv (ENOENT)',
      lastErrorPublic: 'failed to start: command not found: [PATH] (ENOENT)',
      lastCriticalAt: AT,
    },
    ['log:error', 'supervise:exited', 'changed'],
  ],
  [
    'a failed initialize with an exit counts as an exit',
    { ...running(), phase: 'connecting' },
    { v: 1, type: 'failed', at: AT, error: { name: 'BackendExited', message: 'exited during initialize' }, authRequired: false, exit },
    UNSUPERVISED,
    { phase: 'failed', firstConnect: false, pid: null, lastError: 'exited during initialize', lastErrorPublic: 'exited during initialize', exitCriticalAt: AT, lastExit: exit },
    ['log:error', 'failInflight', 'changed'],
  ],
  [
    'HTTP 401: awaiting OAuth, not a critical error; credentials never kept',
    { ...running(), phase: 'connecting' },
    { v: 1, type: 'failed', at: AT, error: { name: 'Error', message: 'HTTP 401 for https://u:pw@x.io/mcp' }, authRequired: true, exit: null },
    UNSUPERVISED,
    { phase: 'awaiting_oauth', firstConnect: false, pid: null, lastError: 'HTTP 401 for https://[REDACTED]@x.io/mcp', lastErrorPublic: 'HTTP 401 for [URL]' },
    ['log:error', 'failInflight', 'changed'],
  ],
  ['an end while stopping is expected: nothing changes', running(), { v: 1, type: 'exited', at: AT, exit, error: null }, STOPPING, {}, []],
  ['stopped', running(), { v: 1, type: 'stopped', at: AT }, STOPPING, { phase: 'stopped', pid: null }, ['changed']],
  ['a timeout streak is recorded with its time', running(), { v: 1, type: 'callHealth', at: AT, consecutiveTimeouts: 2 }, UNSUPERVISED, { consecutiveTimeouts: 2, lastTimeoutAt: AT }, []],
  ['a streak that makes the backend unhealthy is its last error', running(), { v: 1, type: 'callHealth', at: AT, consecutiveTimeouts: 3 }, UNSUPERVISED, { consecutiveTimeouts: 3, lastTimeoutAt: AT, lastError: '3 consecutive requests timed out (requestTimeout)', lastErrorPublic: '3 consecutive requests timed out (requestTimeout)' }, []],
  ['an answered call ends the streak', { ...running(), consecutiveTimeouts: 3, lastTimeoutAt: AT - 1 }, { v: 1, type: 'callHealth', at: AT, consecutiveTimeouts: 0 }, UNSUPERVISED, { consecutiveTimeouts: 0 }, []],
  ['worker logs are logged with the backend name', running(), { v: 1, type: 'log', level: 'warn', msg: 'm', fields: { a: 1 } }, UNSUPERVISED, {}, ['log:warn']],
];

for (const [name, state, event, ctx, patch, effects] of cases) {
  test(`reduceBackendEvent :: ${name}`, () => {
    const before = structuredClone(state);
    const reduction = reduceBackendEvent(state, event, ctx);
    assert.equal(reduction.patch, patch);
    assert.equal(types(reduction.effects), effects);
    assert.equal(state, before, 'the state passed in is not modified');
  });
}

test('reduceBackendEvent :: a worker log keeps its fields and names the backend', () => {
  const { effects } = reduceBackendEvent(running(), { v: 1, type: 'log', level: 'info', msg: 'm', fields: { a: 1 } }, UNSUPERVISED);
  assert.equal(effects, [{ type: 'log', level: 'info', msg: 'm', fields: { backend: 'b', a: 1 } }]);
});

test('reduceBackendEvent :: FRESH_START clears every critical fact', () => {
  assert.equal(FRESH_START, { lastCriticalAt: null, exitCriticalAt: null, consecutiveTimeouts: 0, lastTimeoutAt: null });
});

test.run();
