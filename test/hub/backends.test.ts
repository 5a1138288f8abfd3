// The hub's view of the backends: the main thread's facts merged with what each backend worker
// says on its direct channel (real MessageChannels play the workers).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { HubBackends } from '../../lib/hub/backends.ts';
import { newBackendState } from '../../lib/shared/backend-state.ts';
import type { BackendToHub, Inventory } from '../../lib/shared/messages/calls.ts';
import type { BackendFacts } from '../../lib/shared/messages/hub.ts';

const tick = () => new Promise((r) => setTimeout(r, 20));
const inv = (...tools: string[]): Inventory => ({ tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })), resources: [], prompts: [], resourceTemplates: [] });

function facts(name: string, phase: BackendFacts['phase'] = 'connected'): BackendFacts {
  const { inventory: _i, instructions: _s, ...rest } = newBackendState(name, ['t'], null);
  return { ...rest, phase, protocolVersion: null };
}

function setup() {
  let changes = 0;
  const logs: [string, Record<string, unknown>][] = [];
  const backends = new HubBackends({ changed: () => void changes++, backendLog: (name, params) => void logs.push([name, params]), resourceUpdated: () => undefined, taskStatus: () => undefined, connected: () => undefined, removed: () => undefined, warn: () => undefined });
  const worker = (name: string, index: number) => {
    const { port1, port2 } = new MessageChannel();
    backends.attach(name, index, port1);
    return { port: port2, send: (m: BackendToHub) => port2.postMessage(m) };
  };
  return { backends, worker, logs, changes: () => changes };
}

test('backends :: a backend is connected for the hub only once its worker says so on the channel', async () => {
  const { backends, worker, changes } = setup();
  backends.applyFacts([facts('a')], [], ['off']);
  assert.is(backends.get('a')?.phase, 'connecting', 'the main thread says connected, the channel has said nothing yet');
  assert.is(backends.link('a'), undefined);
  const w = worker('a', 1);
  w.send({ type: 'connected', connection: 1, protocolVersion: '2025-06-18', instructions: 'use a', inventory: inv('echo'), capabilities: {} });
  await tick();
  const view = backends.get('a')!;
  assert.equal([view.phase, view.instructions, view.protocolVersion, view.inventory?.tools.map((t) => t.name)], ['connected', 'use a', '2025-06-18', ['echo']]);
  assert.ok(backends.link('a'));
  assert.equal([...backends.disabled()], ['off']);
  assert.ok(changes() >= 3, 'facts, attach and connection each count as a change');
  w.port.close();
});

test('backends :: after a disconnection the last inventory stays visible (for REST) while the backend is connecting again', async () => {
  const { backends, worker } = setup();
  backends.applyFacts([facts('a')], [], []);
  const w = worker('a', 1);
  w.send({ type: 'connected', connection: 1, protocolVersion: null, instructions: 'i', inventory: inv('echo'), capabilities: {} });
  w.send({ type: 'inventory', connection: 1, inventory: inv('echo', 'add') });
  await tick();
  assert.equal(backends.get('a')!.inventory?.tools.map((t) => t.name), ['echo', 'add']);
  w.send({ type: 'disconnected', connection: 1 });
  await tick();
  const view = backends.get('a')!;
  assert.is(view.phase, 'connecting');
  assert.is(view.instructions, null);
  assert.equal(view.inventory?.tools.map((t) => t.name), ['echo', 'add']);
  assert.is(backends.link('a'), undefined, 'no calls go to a disconnected backend');
  w.port.close();
});

test('backends :: news about an older connection is ignored', async () => {
  const { backends, worker } = setup();
  backends.applyFacts([facts('a')], [], []);
  const w = worker('a', 1);
  w.send({ type: 'connected', connection: 2, protocolVersion: null, instructions: null, inventory: inv('new'), capabilities: {} });
  w.send({ type: 'inventory', connection: 1, inventory: inv('stale') });
  w.send({ type: 'disconnected', connection: 1 });
  await tick();
  assert.is(backends.get('a')!.phase, 'connected');
  assert.equal(backends.get('a')!.inventory?.tools.map((t) => t.name), ['new']);
  w.port.close();
});

test('backends :: a newer worker replaces the channel and fails the old one’s calls; an older one is refused', async () => {
  const { backends, worker } = setup();
  backends.applyFacts([facts('a')], [], []);
  const first = worker('a', 1);
  first.send({ type: 'connected', connection: 1, protocolVersion: null, instructions: null, inventory: inv('echo'), capabilities: {} });
  await tick();
  const call = backends.link('a')!.request('tools/call', { name: 'echo' });
  const second = worker('a', 2);
  assert.equal(await call, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'a' has a new worker (it was restarted); the request was not completed and is not replayed" } });
  assert.is(backends.get('a')!.phase, 'connecting', 'the new worker has not connected yet');
  let refusedClosed = false;
  const { port1, port2 } = new MessageChannel();
  port2.on('close', () => (refusedClosed = true));
  backends.attach('a', 1, port1);
  await tick();
  assert.ok(refusedClosed, 'a port from an older worker is closed');
  second.send({ type: 'connected', connection: 1, protocolVersion: null, instructions: null, inventory: inv('echo'), capabilities: {} });
  await tick();
  assert.is(backends.link('a')!.worker, 2);
  second.port.close();
});

test('backends :: removing a backend fails its calls, naming the configuration', async () => {
  const { backends, worker } = setup();
  backends.applyFacts([facts('a'), facts('b')], [], []);
  const w = worker('a', 1);
  w.send({ type: 'connected', connection: 1, protocolVersion: null, instructions: null, inventory: inv('echo'), capabilities: {} });
  await tick();
  const call = backends.link('a')!.request('tools/call', { name: 'echo' });
  backends.applyFacts([], ['a'], []);
  assert.equal(await call, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'a' was removed from the configuration; the request was not completed" } });
  assert.is(backends.get('a'), undefined);
  assert.equal([...backends.all()].map((b) => b.name), ['b']);
});

test('backends :: down() passes supervision’s verdict to the calls in flight; logging messages name their backend', async () => {
  const { backends, worker, logs } = setup();
  backends.applyFacts([facts('a')], [], []);
  const w = worker('a', 1);
  w.send({ type: 'connected', connection: 1, protocolVersion: null, instructions: null, inventory: inv('echo'), capabilities: {} });
  w.send({ type: 'backendLog', params: { level: 'info', data: 'x' } });
  await tick();
  assert.equal(logs, [['a', { level: 'info', data: 'x' }]]);
  const link = backends.link('a')!;
  const call = link.request('tools/call', { name: 'echo' });
  backends.down('a', "backend 'a' restarted; the request was not completed and is not replayed");
  assert.is(((await call) as { error: { message: string } }).error.message, "backend 'a' restarted; the request was not completed and is not replayed");
  backends.closeAll('shutting down');
  assert.is(backends.link('a'), undefined, 'shutdown ends every channel');
  assert.equal(await link.request('tools/call', {}), { ok: false, error: { kind: 'disconnected', code: -32603, message: "Backend 'a' is not connected" } });
  w.port.close();
});

test.run();
