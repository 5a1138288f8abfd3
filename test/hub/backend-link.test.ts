// The hub's end of a backend's direct channel, against a real MessageChannel whose other port
// plays the backend worker.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { BackendLink, type LinkEvents, VERDICT_WAIT_MS } from '../../lib/hub/backend-link.ts';
import type { BackendToHub, HubToBackend, Inventory } from '../../lib/shared/messages/calls.ts';

const inventory: Inventory = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }], resources: [], prompts: [], resourceTemplates: [] };

function setup() {
  const { port1, port2 } = new MessageChannel();
  const events: string[] = [];
  const handlers: LinkEvents = {
    connected: (facts) => events.push(`connected ${facts.connection}`),
    inventory: (connection, inv) => events.push(`inventory ${connection} ${inv.tools.length}`),
    disconnected: (connection) => events.push(`disconnected ${connection}`),
    backendLog: (params) => events.push(`log ${JSON.stringify(params)}`),
  };
  const link = new BackendLink('alpha', 1, port1, handlers);
  const worker = port2;
  const next = async (): Promise<HubToBackend> => ((await once(worker, 'message')) as [HubToBackend])[0];
  const send = (message: BackendToHub) => worker.postMessage(message);
  return { link, worker, next, send, events, close: () => worker.close() };
}

const tick = () => new Promise((r) => setTimeout(r, 10));

test('backend-link :: a call goes out with an id and its outcome comes back', async () => {
  const { link, next, send, close } = setup();
  const pending = link.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
  const call = await next();
  assert.equal(call, { type: 'call', callId: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } }, wantsProgress: false });
  assert.is(link.inflightCount, 1);
  send({ type: 'outcome', callId: 1, outcome: { ok: true, result: { content: [] } } });
  assert.equal(await pending, { ok: true, result: { content: [] } });
  assert.is(link.inflightCount, 0);
  close();
});

test('backend-link :: concurrent calls are told apart by id; progress reaches only its own call', async () => {
  const { link, next, send, close } = setup();
  const progress: number[] = [];
  const first = link.request('tools/call', { name: 'slow' }, { onProgress: (p) => progress.push(p.progress) });
  const a = await next();
  const second = link.request('prompts/get', { name: 'greet' });
  const b = await next();
  assert.ok(a.type === 'call' && a.wantsProgress && b.type === 'call' && !b.wantsProgress);
  assert.is.not(a.callId, b.callId);
  send({ type: 'progress', callId: a.callId, progress: { progress: 1, total: 2 } });
  send({ type: 'outcome', callId: b.callId, outcome: { ok: true, result: { messages: [] } } });
  assert.equal(await second, { ok: true, result: { messages: [] } });
  send({ type: 'progress', callId: a.callId, progress: { progress: 2, total: 2 } });
  send({ type: 'outcome', callId: a.callId, outcome: { ok: false, error: { kind: 'mcp', code: -32602, message: 'bad' } } });
  assert.equal(await first, { ok: false, error: { kind: 'mcp', code: -32602, message: 'bad' } });
  assert.equal(progress, [1, 2], 'progress arrives before the answer, in order');
  close();
});

test('backend-link :: an aborted call sends a cancel for its id', async () => {
  const { link, next, send, close } = setup();
  const abort = new AbortController();
  const pending = link.request('tools/call', { name: 'slow' }, { signal: abort.signal });
  const call = await next();
  abort.abort();
  assert.equal(await next(), { type: 'cancel', callId: (call as { callId: number }).callId });
  send({ type: 'outcome', callId: 1, outcome: { ok: false, error: { kind: 'cancelled', code: -32603, message: 'cancelled' } } });
  const outcome = await pending;
  assert.ok(!('parked' in outcome) && !outcome.ok);
  close();
});

test('backend-link :: down() fails every call in flight at once with the verdict', async () => {
  const { link, next, close } = setup();
  const one = link.request('tools/call', { name: 'a' });
  const two = link.request('tools/call', { name: 'b' });
  await next();
  link.down("backend 'alpha' restarted; the request was not completed and is not replayed");
  const outcomes = await Promise.all([one, two]);
  for (const outcome of outcomes) {
    assert.equal(outcome, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' restarted; the request was not completed and is not replayed" } });
  }
  close();
});

test("backend-link :: down()'s message is final: the worker's port closing right after does not replace it", async () => {
  const { link, next, worker } = setup();
  const pending = link.request('tools/call', { name: 'a' });
  await next();
  link.down("backend 'alpha' is restarting for a change to its configuration; the request was not completed and is not replayed");
  worker.close();
  assert.equal(await pending, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' is restarting for a change to its configuration; the request was not completed and is not replayed" } });
});

test("backend-link :: the worker's port closing first waits for supervision's verdict, which names what happened", async () => {
  const { link, next, worker } = setup();
  const pending = link.request('tools/call', { name: 'a' });
  await next();
  worker.close();
  await tick();
  link.down("backend 'alpha' restarted; the request was not completed and is not replayed");
  assert.equal(await pending, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' restarted; the request was not completed and is not replayed" } });
});

test('backend-link :: a call the worker reports broken waits for the verdict, which names what happened', async () => {
  const { link, next, send, close } = setup();
  const pending = link.request('tools/call', { name: 'a' });
  await next();
  send({ type: 'outcome', callId: 1, outcome: { ok: false, error: { kind: 'disconnected', code: -32603, message: 'connection closed' } } });
  await tick();
  link.down("backend 'alpha' is in a crash loop");
  assert.equal(await pending, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' is in a crash loop" } });
  close();
});

test('backend-link :: without a verdict the broken call fails with its own error after the wait', async () => {
  const { link, next, send, close } = setup();
  const started = Date.now();
  const pending = link.request('tools/call', { name: 'a' });
  await next();
  send({ type: 'outcome', callId: 1, outcome: { ok: false, error: { kind: 'disconnected', code: -32603, message: 'connection closed' } } });
  const outcome = await pending;
  assert.equal(outcome, { ok: false, error: { kind: 'disconnected', code: -32603, message: 'connection closed' } });
  assert.ok(Date.now() - started >= VERDICT_WAIT_MS - 20, 'it waited for a verdict first');
  close();
});

test('backend-link :: the worker end closing fails calls in flight, naming the backend; later calls fail at once', async () => {
  const { link, next, worker } = setup();
  const pending = link.request('tools/call', { name: 'a' });
  await next();
  worker.close();
  assert.equal(await pending, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' went away (its worker thread ended: a stop, a restart or a failure); the request was not completed" } });
  assert.equal(await link.request('tools/call', { name: 'b' }), { ok: false, error: { kind: 'disconnected', code: -32603, message: "Backend 'alpha' is not connected" } });
});

test('backend-link :: close() fails calls in flight with its message and closes the port', async () => {
  const { link, next, worker } = setup();
  const pending = link.request('resources/read', { uri: 'x://y' });
  await next();
  const closed = once(worker as MessagePort, 'close');
  link.close("backend 'alpha' was removed from the configuration; the request was not completed");
  assert.equal(await pending, { ok: false, error: { kind: 'disconnected', code: -32603, message: "backend 'alpha' was removed from the configuration; the request was not completed" } });
  // A closed port does not keep the process alive while its other end hears the close.
  const alive = setTimeout(() => undefined, 2_000);
  await closed;
  clearTimeout(alive);
});

test('backend-link :: connection, inventory, disconnection and logging messages reach the events', async () => {
  const { link, send, events, close } = setup();
  send({ type: 'connected', connection: 3, protocolVersion: '2025-06-18', instructions: null, inventory, capabilities: {} });
  send({ type: 'inventory', connection: 3, inventory: { ...inventory, tools: [] } });
  send({ type: 'backendLog', params: { level: 'info', data: 'hi' } });
  send({ type: 'disconnected', connection: 3 });
  await tick();
  assert.equal(events, ['connected 3', 'inventory 3 0', 'log {"level":"info","data":"hi"}', 'disconnected 3']);
  assert.is(link.name, 'alpha');
  assert.is(link.worker, 1);
  close();
});

test.run();
