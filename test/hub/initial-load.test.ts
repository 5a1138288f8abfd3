import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InitialLoad, stillLoading } from '../../lib/hub/initial-load.ts';
import { type BackendState, newBackendState } from '../../lib/shared/backend-state.ts';

const backend = (name: string, patch: Partial<BackendState>) => ({ ...newBackendState(name, [], null), ...patch });

test('initial load :: stillLoading names the backends on their first attempt', () => {
  const backends = [
    backend('starting', { phase: 'starting' }),
    backend('connecting', { phase: 'connecting' }),
    backend('queued', { phase: 'queued' }),
    backend('up', { phase: 'connected', firstConnect: false }),
    backend('failed', { phase: 'failed', firstConnect: false }),
    backend('oauth', { phase: 'awaiting_oauth', firstConnect: false }),
    backend('invalid', { phase: 'invalid', firstConnect: false }),
    backend('restarting', { phase: 'starting', supervision: { state: 'restarting', attempt: 1, limit: 5, nextRetryAt: null } }),
  ];
  assert.equal(stillLoading(backends), ['starting', 'connecting', 'queued']);
});

test('initial load :: settles when the configuration is loaded and every first attempt ended', async () => {
  let backends: ReturnType<typeof backend>[] | null = null;
  const load = new InitialLoad({ waitMs: 60_000, backends: () => backends });
  assert.not.ok(load.isSettled(), 'not before the configuration was attempted');
  backends = [backend('a', { phase: 'connecting' }), backend('b', { phase: 'connected', firstConnect: false })];
  load.update();
  assert.not.ok(load.isSettled(), 'not while a backend is connecting');
  backends[0] = backend('a', { phase: 'failed', firstConnect: false });
  load.update();
  assert.ok(load.isSettled());
  await load.settled();
});

test('initial load :: a restarted hub also waits for the backends it is told are connected until their channels say so', async () => {
  let unwired = ['a'];
  const missed: string[][] = [];
  const load = new InitialLoad({ waitMs: 60_000, backends: () => [backend('a', { phase: 'connecting', firstConnect: false })], alsoWaiting: () => unwired, onDeadline: (still) => void missed.push(still) });
  assert.not.ok(load.isSettled(), 'its channel has not said it is connected');
  unwired = [];
  load.update();
  assert.ok(load.isSettled());
  await load.settled();
  const bounded = new InitialLoad({ waitMs: 10, backends: () => [], alsoWaiting: () => ['b'], onDeadline: (still) => void missed.push(still) });
  await bounded.settled();
  assert.equal(missed, [['b']], 'bounded, and named when the wait is over');
});

test('initial load :: no backends (or an unreadable configuration) settles at once', async () => {
  const load = new InitialLoad({ waitMs: 60_000, backends: () => [] });
  assert.ok(load.isSettled());
  await load.settled();
});

test('initial load :: the wait is bounded; the deadline names who is still connecting', async () => {
  const told: string[][] = [];
  const load = new InitialLoad({ waitMs: 30, backends: () => [backend('hangs', { phase: 'connecting' })], onDeadline: (still) => void told.push(still) });
  assert.not.ok(load.isSettled());
  await load.settled();
  assert.equal(told, [['hangs']]);
});

test('initial load :: --initial-wait 0 does not wait', async () => {
  const load = new InitialLoad({ waitMs: 0, backends: () => [backend('hangs', { phase: 'connecting' })] });
  await load.settled();
  assert.ok(load.isSettled());
});

test.run();
